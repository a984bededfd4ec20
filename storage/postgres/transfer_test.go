package postgres

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/capture/journal"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/postgres/pgtest"
	"github.com/recall-mcp/recall/storage/sqlite"
	"github.com/recall-mcp/recall/transfer"
)

// transferStore is what the round trip needs of either store.
type transferStore interface {
	transfer.Source
	transfer.Sink
	InsertMemory(ctx context.Context, m *memory.Memory, vec []float32) (*memory.Memory, bool, error)
	ClaimEmbeddingSpace(ctx context.Context, space memory.EmbeddingSpace) (memory.EmbeddingSpace, error)
	InsertEdge(ctx context.Context, e *memory.Edge) (int64, error)
	TrashMemory(ctx context.Context, id string, keepGolden bool) error
	ArchiveMemory(ctx context.Context, id string, keepGolden bool) error
	AddEntry(ctx context.Context, e *journal.Entry) (int64, error)
	Embedding(ctx context.Context, id string) ([]float32, error)
	Close() error
}

// exportLines is an export without its header (which names the moment).
func exportLines(t *testing.T, src transferStore) []string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := transfer.ExportJSONL(context.Background(), src, &buf, time.Now()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	return lines[1:]
}

func importLines(t *testing.T, into transferStore, lines []string) *transfer.ImportReport {
	t.Helper()
	text := `{"record":"header","format":"recall-export","version":3,"exported_at":"2026-01-01T00:00:00Z"}` + "\n" + strings.Join(lines, "\n")
	rep, err := transfer.Import(context.Background(), into, strings.NewReader(text), transfer.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.BadLines) > 0 {
		t.Fatalf("lines left out: %v", rep.BadLines)
	}
	return rep
}

// TestExportMovesEverythingBetweenStores: an export from SQLite imported
// into PostgreSQL, exported again and imported into a new SQLite file gives
// the same records line for line (times to the microsecond, PostgreSQL's
// precision): memories, edges, the trash (archived and deleted), the
// capture journal and the vectors with their model.
func TestExportMovesEverythingBetweenStores(t *testing.T) {
	ctx := context.Background()
	openSQLite := func() transferStore {
		db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "recall.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	first := openSQLite()
	if _, err := first.ClaimEmbeddingSpace(ctx, memory.EmbeddingSpace{Model: "nomic-embed-text", Dimension: 4}); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range 4 {
		m := &memory.Memory{ID: memory.NewID(time.Now()) + fmt.Sprint(i), Content: fmt.Sprintf("deploys go out on day %d", i),
			Type: memory.TypeDecision, Namespace: "project:a", Importance: 0.5, Confidence: 0.3}
		if _, _, err := first.InsertMemory(ctx, m, []float32{1, float32(i) / 4, 0.5, -0.25}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	if _, err := first.InsertEdge(ctx, &memory.Edge{SourceID: ids[0], TargetID: ids[1], Relation: memory.RelationRelatesTo, Weight: 0.5}); err != nil {
		t.Fatal(err)
	}
	if err := first.TrashMemory(ctx, ids[2], false); err != nil {
		t.Fatal(err)
	}
	if err := first.ArchiveMemory(ctx, ids[3], false); err != nil {
		t.Fatal(err)
	}
	for i, kind := range []journal.Kind{journal.KindPrompt, journal.KindObservation} {
		if _, err := first.AddEntry(ctx, &journal.Entry{Kind: kind, Namespace: "project:a", SessionID: "s1",
			Title: fmt.Sprintf("step %d", i), Body: "ran the deploy", Files: []string{"deploy.sh"}, MemoryID: ids[0]}); err != nil {
			t.Fatal(err)
		}
	}
	fromSQLite := exportLines(t, first)
	for _, want := range []string{`"record":"deleted_memory"`, `"record":"archived_memory"`, `"record":"journal_entry"`, `"record":"embedding_space"`, `"record":"vector"`} {
		if !strings.Contains(strings.Join(fromSQLite, "\n"), want) {
			t.Fatalf("the export has no %s line:\n%s", want, strings.Join(fromSQLite, "\n"))
		}
	}

	pg, err := Open(ctx, pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	rep := importLines(t, pg, fromSQLite)
	if r := rep.Result; r.Memories != 2 || r.Deleted != 1 || r.Archived != 1 || r.Journal != 2 || r.Vectors != 2 {
		t.Fatalf("into PostgreSQL: %+v", r)
	}
	if vec, err := pg.Embedding(ctx, ids[1]); err != nil || len(vec) != 4 || vec[1] != 0.25 {
		t.Fatalf("vector in PostgreSQL: %v, %v", vec, err)
	}
	fromPostgres := exportLines(t, pg)
	last := openSQLite()
	importLines(t, last, fromPostgres)
	fromLast := exportLines(t, last)
	for i, pair := range [][2][]string{{fromSQLite, fromPostgres}, {fromPostgres, fromLast}} {
		if a, b := micros(strings.Join(pair[0], "\n")), micros(strings.Join(pair[1], "\n")); a != b {
			t.Errorf("step %d changed the records:\n%s\n---\n%s", i+1, a, b)
		}
	}
	// Read twice, nothing more is written.
	if r := importLines(t, pg, fromSQLite).Result; r.Memories != 0 || r.Journal != 0 || r.JournalExisting != 2 || r.Vectors != 0 {
		t.Fatalf("importing again: %+v", r)
	}
}

// micros writes every time of an export to the microsecond: PostgreSQL
// keeps times to the microsecond, SQLite to the nanosecond.
func micros(export string) string {
	return timeFraction.ReplaceAllStringFunc(export, func(f string) string {
		digits := strings.TrimSuffix(strings.TrimPrefix(f, "."), "Z")
		return "." + (digits + "000000")[:6] + "Z"
	})
}

var timeFraction = regexp.MustCompile(`\.[0-9]+Z`)

// TestImportLeavesVectorsOfAnotherModel: vectors of another model than the
// store's are not mixed in; their memories wait to be embedded again.
func TestImportLeavesVectorsOfAnotherModel(t *testing.T) {
	ctx := context.Background()
	pg, err := Open(ctx, pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	if _, err := pg.ClaimEmbeddingSpace(ctx, memory.EmbeddingSpace{Model: "mxbai-embed-large", Dimension: 4}); err != nil {
		t.Fatal(err)
	}
	id := memory.NewID(time.Now())
	lines := []string{
		fmt.Sprintf(`{"record":"memory","id":%q,"content":"deploys go out on Tuesdays","content_hash":"","memory_type":"decision","namespace":"global","importance":0.5,"confidence":0.3,"metadata":{},"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","accessed_at":"2026-01-01T00:00:00Z","access_count":0}`, id),
		`{"record":"embedding_space","model":"nomic-embed-text","dimension":4}`,
		fmt.Sprintf(`{"record":"vector","memory_id":%q,"vector":"AACAPwAAgD4AAAA/AACAvg=="}`, id),
	}
	rep := importLines(t, pg, lines)
	if rep.Result.Vectors != 0 || !strings.Contains(rep.Result.VectorsLeft, "nomic-embed-text") {
		t.Fatalf("result %+v", rep.Result)
	}
	m, err := pg.GetMemory(ctx, id)
	if err != nil || !m.EmbeddingPending {
		t.Fatalf("memory %+v, %v: want it pending", m, err)
	}
}
