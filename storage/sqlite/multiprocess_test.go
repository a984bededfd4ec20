package sqlite

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

// Environment of the writer processes started by TestManyProcessesWriteOneFile.
const (
	envHelperDB     = "RECALL_STORAGE_TEST_WRITER_DB"
	envHelperWorker = "RECALL_STORAGE_TEST_WRITER_ID"
	envHelperShared = "RECALL_STORAGE_TEST_WRITER_SHARED"
)

const (
	writerProcesses = 5
	writesPerWorker = 30
	writerDim       = 8
)

// TestManyProcessesWriteOneFile starts several OS processes that write into one
// database file at once, as one server per editor window plus the hooks do, and
// checks that every write a process saw acknowledged is there afterwards.
func TestManyProcessesWriteOneFile(t *testing.T) {
	if os.Getenv(envHelperDB) != "" {
		t.Skip("running as a writer process")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shared.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.ResetEmbeddings(ctx, memory.EmbeddingSpace{Model: "test", Dimension: writerDim}); err != nil {
		t.Fatal(err)
	}
	shared := mustInsert(t, db, newMemory("counted by every writer", "global", memory.TypePattern), nil)

	cmds := make([]*exec.Cmd, writerProcesses)
	outs := make([]*bytes.Buffer, writerProcesses)
	for i := range cmds {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$", "-test.count=1")
		cmd.Env = append(os.Environ(), envHelperDB+"="+path, envHelperWorker+"="+strconv.Itoa(i), envHelperShared+"="+shared.ID)
		outs[i] = new(bytes.Buffer)
		cmd.Stdout = outs[i]
		cmd.Stderr = outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i] = cmd
	}
	acked := map[string][]string{}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("writer %d failed: %v\n%s", i, err, outs[i])
		}
		sc := bufio.NewScanner(outs[i])
		for sc.Scan() {
			if kind, id, ok := strings.Cut(sc.Text(), " "); ok && (kind == "memory" || kind == "edge" || kind == "event") {
				acked[kind] = append(acked[kind], id)
			}
		}
	}
	if t.Failed() {
		return
	}

	const want = writerProcesses * writesPerWorker
	if len(acked["memory"]) != want {
		t.Errorf("%d memories acknowledged, want %d", len(acked["memory"]), want)
	}
	got, err := db.GetMemories(ctx, acked["memory"])
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(acked["memory"]) {
		t.Errorf("%d of %d acknowledged memories are stored", len(got), len(acked["memory"]))
	}
	for _, m := range got {
		if m.EmbeddingPending {
			t.Errorf("memory %s was acknowledged with its vector but is pending", m.ID)
		}
	}
	for _, kind := range []string{"edge", "event"} {
		table := map[string]string{"edge": "edges", "event": "validation_events"}[kind]
		for _, id := range acked[kind] {
			var n int
			db.SQL().QueryRow(`SELECT count(*) FROM `+table+` WHERE id = ?`, id).Scan(&n)
			if n != 1 {
				t.Errorf("acknowledged %s %s is missing", kind, id)
			}
		}
	}
	if len(acked["edge"]) != writerProcesses*(writesPerWorker-1) || len(acked["event"]) != want {
		t.Errorf("acknowledged %d edges and %d events", len(acked["edge"]), len(acked["event"]))
	}
	sharedNow, _ := db.GetMemory(ctx, shared.ID)
	if sharedNow.AccessCount != want {
		t.Errorf("read-modify-writes from %d processes: access count %d, want %d", writerProcesses, sharedNow.AccessCount, want)
	}
	hits, err := db.SearchVector(ctx, unitVector(rand.New(rand.NewPCG(9, 9)), writerDim), memory.Filter{}, 1000)
	if err != nil || len(hits) != want {
		t.Errorf("vector index holds %d of %d vectors: %v", len(hits), want, err)
	}
	var check string
	if err := db.SQL().QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check = %q, %v", check, err)
	}
	if _, err := db.SQL().Exec(`INSERT INTO memories_fts (memories_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
		t.Errorf("FTS index out of step: %v", err)
	}
}

// TestHelperWriter is one writer process of TestManyProcessesWriteOneFile; it
// prints "<kind> <id>" for every write the store acknowledged.
func TestHelperWriter(t *testing.T) {
	path := os.Getenv(envHelperDB)
	if path == "" {
		t.Skip("only runs as a writer process")
	}
	worker, _ := strconv.Atoi(os.Getenv(envHelperWorker))
	shared := os.Getenv(envHelperShared)
	ctx := context.Background()
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r := rand.New(rand.NewPCG(uint64(worker), 7))
	prev := ""
	for i := range writesPerWorker {
		m := newMemory(fmt.Sprintf("writer %d note %d: %s", worker, i, randomSentence(r, 12)), "global", memory.TypeSession)
		stored, created, err := db.InsertMemory(ctx, m, unitVector(r, writerDim))
		if err != nil || !created {
			t.Fatalf("insert %d: created=%v err=%v", i, created, err)
		}
		fmt.Println("memory", stored.ID)
		if prev != "" {
			id, err := db.InsertEdge(ctx, &memory.Edge{SourceID: prev, TargetID: stored.ID, Relation: memory.RelationRelatesTo, Weight: 1})
			if err != nil {
				t.Fatal(err)
			}
			fmt.Println("edge", id)
		}
		id, err := db.AddEvent(ctx, &memory.ValidationEvent{MemoryID: stored.ID, EventType: memory.EventApplied})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println("event", id)
		if _, err := db.UpdateMemory(ctx, shared, func(m *memory.Memory) error {
			m.AccessCount++
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		prev = stored.ID
	}
}
