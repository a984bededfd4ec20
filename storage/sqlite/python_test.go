package sqlite

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/internal/pyrecall"
	"github.com/recall-mcp/recall/memory"
)

// TestOpenMigratesAPythonRecallDatabase opens a database the Python Recall
// made and checks that every row came across, that a backup sits beside it,
// and that the migration is recorded.
func TestOpenMigratesAPythonRecallDatabase(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "recall.db")
	sample := pyrecall.Sample()
	if err := pyrecall.Create(path, sample); err != nil {
		t.Fatal(err)
	}
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	checkPythonSample(t, db, sample)

	imp, err := db.PythonImport(ctx)
	if err != nil || imp == nil {
		t.Fatalf("PythonImport = %v, %v; want the migration recorded", imp, err)
	}
	if imp.Result.Memories != len(sample.Memories) || imp.Result.Edges != len(sample.Edges) || len(imp.Result.Skipped) != 0 {
		t.Errorf("recorded result = %+v", imp.Result)
	}
	backup, err := Open(ctx, imp.Backup) // the backup is the Python database: opening a copy migrates the copy
	if err != nil {
		t.Fatalf("backup %s: %v", imp.Backup, err)
	}
	defer backup.Close()
	checkPythonSample(t, backup, sample)
}

// checkPythonSample compares a migrated database with the Python rows.
func checkPythonSample(t *testing.T, db *DB, sample pyrecall.Data) {
	t.Helper()
	ctx := context.Background()
	for _, p := range sample.Memories {
		m, err := db.GetMemory(ctx, p.ID)
		if err != nil {
			t.Errorf("memory %s: %v", p.ID, err)
			continue
		}
		if m.Content != p.Content || m.Importance != p.Importance || m.Confidence != p.Confidence || m.AccessCount != p.AccessCount {
			t.Errorf("memory %s = %+v, want %+v", p.ID, m, p)
		}
		if got := float64(m.CreatedAt.UnixMicro()) / 1e6; got != p.CreatedAt {
			t.Errorf("memory %s created_at = %f, want %f", p.ID, got, p.CreatedAt)
		}
		if got := float64(m.AccessedAt.UnixMicro()) / 1e6; got != p.AccessedAt {
			t.Errorf("memory %s accessed_at = %f, want %f", p.ID, got, p.AccessedAt)
		}
		if m.ContentHash != memory.ContentHash(p.Content) || !m.EmbeddingPending {
			t.Errorf("memory %s hash %s pending %v, want Python's hash and a vector to make", p.ID, m.ContentHash, m.EmbeddingPending)
		}
		for k, v := range p.Metadata {
			if m.Metadata[k] != v {
				t.Errorf("memory %s metadata %v, want %s=%v", p.ID, m.Metadata, k, v)
			}
		}
		if _, err := memory.ParseType(p.Type); err == nil && string(m.Type) != p.Type {
			t.Errorf("memory %s type %s, want %s", p.ID, m.Type, p.Type)
		}
	}
	old, _ := db.GetMemory(ctx, "mem_1735689900000000_cafebabe")
	if old == nil || old.Type != memory.TypeSession || old.Namespace != "global" || old.Metadata["python_type"] != "general" || old.Metadata["python_namespace"] != "default" {
		t.Errorf("a memory of type general in namespace default = %+v, want session/global with the originals in metadata", old)
	}
	edges, err := db.Edges(ctx, memory.EdgeQuery{MemoryIDs: memoryIDs(sample), Direction: memory.DirectionBoth})
	if err != nil || len(edges) != len(sample.Edges) {
		t.Fatalf("edges = %d, %v; want %d", len(edges), err, len(sample.Edges))
	}
	n := 0
	for _, p := range sample.Memories {
		evs, _ := db.Events(ctx, p.ID, "", 0)
		n += len(evs)
	}
	if n != len(sample.Events) {
		t.Errorf("validation events = %d, want %d", n, len(sample.Events))
	}
	files, err := db.RecentFiles(ctx, "/src/billing", time.Unix(0, 0), 10)
	if err != nil || len(files) != len(sample.Files) {
		t.Errorf("file activity = %v, %v; want %d files", files, err, len(sample.Files))
	}
	hits, err := db.SearchKeyword(ctx, "billing service", memory.Filter{}, 5)
	if err != nil || len(hits) == 0 {
		t.Errorf("keyword search after migration = %v, %v; want hits", hits, err)
	}
}

func memoryIDs(d pyrecall.Data) []string {
	var ids []string
	for _, m := range d.Memories {
		ids = append(ids, m.ID)
	}
	return ids
}

// TestPythonMigrationSurvivesAKill kills (SIGKILL) a process halfway through
// migrating, then opens the database again: nothing is lost.
func TestPythonMigrationSurvivesAKill(t *testing.T) {
	if os.Getenv("RECALL_TEST_MIGRATE_AND_HANG") != "" {
		return // the child's part is in TestMain's hook below
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "recall.db")
	sample := pyrecall.Sample()
	if err := pyrecall.Create(path, sample); err != nil {
		t.Fatal(err)
	}
	halfway := filepath.Join(dir, "halfway")
	cmd := exec.Command(os.Args[0], "-test.run=^TestPythonMigrationChild$")
	cmd.Env = append(os.Environ(), "RECALL_TEST_MIGRATE_AND_HANG="+path, "RECALL_TEST_HALFWAY="+halfway)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !fileExists(halfway) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the child never reached the middle of the migration")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no deferred cleanup runs
		t.Fatal(err)
	}
	cmd.Wait()

	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("open after the kill: %v", err)
	}
	defer db.Close()
	checkPythonSample(t, db, sample)
}

// TestPythonMigrationChild is the killed process of the test above: it opens
// the database and stops halfway through the migration, forever.
func TestPythonMigrationChild(t *testing.T) {
	path := os.Getenv("RECALL_TEST_MIGRATE_AND_HANG")
	if path == "" {
		t.Skip("run by TestPythonMigrationSurvivesAKill")
	}
	pythonMigrationPause = func() {
		os.WriteFile(os.Getenv("RECALL_TEST_HALFWAY"), nil, 0o600)
		select {}
	}
	Open(context.Background(), path)
}

// TestOpenMigratesTheFirstPythonSchema opens a database of the Python
// Recall's first schema: no confidence column, no validation events, no file
// activity. Memories take the default confidence.
func TestOpenMigratesTheFirstPythonSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "recall.db")
	sample := pyrecall.Sample()
	sample.Events, sample.Files = nil, nil
	if err := pyrecall.Create(path, sample); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = raw.Exec(`ALTER TABLE memories DROP COLUMN confidence; DROP TABLE validation_events; DROP TABLE file_activity`)
	raw.Close()
	if err != nil {
		t.Fatal(err)
	}
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n, _ := db.CountMemories(ctx, memory.Filter{IncludeSuperseded: true}); n != len(sample.Memories) {
		t.Errorf("%d memories, want %d", n, len(sample.Memories))
	}
	m, err := db.GetMemory(ctx, sample.Memories[0].ID)
	if err != nil || m.Confidence != memory.DefaultConfidence {
		t.Errorf("memory without a stored confidence = %+v, %v; want confidence %v", m, err, memory.DefaultConfidence)
	}
}

// TestPythonTablesRecallDoesNotKnowStay opens a Python database with a table
// Recall does not know that points at memories: the migration succeeds and
// the table stays, its rows pointing at the same memories.
func TestPythonTablesRecallDoesNotKnowStay(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "recall.db")
	sample := pyrecall.Sample()
	if err := pyrecall.Create(path, sample); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite3", path+"?_foreign_keys=on")
	if err != nil {
		t.Fatal(err)
	}
	_, err = raw.Exec(`CREATE TABLE memory_tags (memory_id TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE, tag TEXT NOT NULL);
		INSERT INTO memory_tags VALUES ('` + sample.Memories[0].ID + `', 'ui')`)
	raw.Close()
	if err != nil {
		t.Fatal(err)
	}
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer db.Close()
	var tag string
	if err := db.SQL().QueryRow(`SELECT tag FROM memory_tags JOIN memories ON memories.id = memory_tags.memory_id`).Scan(&tag); err != nil || tag != "ui" {
		t.Errorf("the unknown table's row = %q, %v; want it kept and still pointing at its memory", tag, err)
	}
}

// A Python Recall database's memories enter Recall as every text does:
// <private> sections dropped and secrets redacted; the backup keeps them.
func TestPythonMigrationCleansWhatItBringsIn(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "recall.db")
	d := pyrecall.Data{Memories: []pyrecall.Memory{{
		ID: "mem_1735689600123456_0a1b2c3d", Type: "decision", Namespace: "global", Importance: 0.5, Confidence: 0.3,
		CreatedAt: 1735689600, AccessedAt: 1735689600,
		Content: "Deploy with key AKIAQ3EGRF6PHX2NV7LM <private>the vault passphrase is tulip</private> then tag the release",
	}}}
	if err := pyrecall.Create(path, d); err != nil {
		t.Fatal(err)
	}
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m, err := db.GetMemory(ctx, d.Memories[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(m.Content, "AKIAQ3EGRF6PHX2NV7LM") || strings.Contains(m.Content, "tulip") || !strings.Contains(m.Content, "then tag the release") {
		t.Errorf("migrated content %q: want the key redacted and the private section gone, the rest kept", m.Content)
	}
	if m.ContentHash != memory.ContentHash(m.Content) {
		t.Errorf("content hash %s is not the cleaned content's", m.ContentHash)
	}
}
