package postgres_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/sqlite"
	"github.com/recall-mcp/recall/transfer"
)

// TestImportMovesLegacyEditsToTheChangeLog: an export made before the change
// log (a memory's edits kept in metadata.edits) gives the same change log on
// PostgreSQL as on SQLite, and the key leaves the metadata on both.
func TestImportMovesLegacyEditsToTheChangeLog(t *testing.T) {
	ctx := context.Background()
	const id = "mem_1735689600000_0a1b2c3d"
	old := `{"record":"header","format":"recall-export","version":1,"exported_at":"2025-01-01T00:00:00Z"}
{"record":"memory","id":"` + id + `","content":"ship on fridays","content_hash":"","memory_type":"decision","namespace":"global","importance":0.5,"confidence":0.3,"metadata":{"source":"test","edits":[{"at":"2025-01-02T00:00:00Z","by":"viewer","fields":["importance"],"previous_importance":0.7},{"at":"2025-01-03T00:00:00Z","by":"viewer","fields":["memory_type"],"previous_memory_type":"golden_rule","reason":"not always"}]},"created_at":"2025-01-01T00:00:00Z","updated_at":"2025-01-03T00:00:00Z","accessed_at":"2025-01-01T00:00:00Z","access_count":0}
`
	lite, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "recall.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	pg := openTest(t)
	logs := map[string]string{}
	for name, s := range map[string]interface {
		transfer.Sink
		Changes(context.Context, memory.ChangeQuery) ([]memory.Change, error)
		GetMemory(context.Context, string) (*memory.Memory, error)
	}{"sqlite": lite, "postgres": pg} {
		if _, err := transfer.Import(ctx, s, strings.NewReader(old), transfer.ImportOptions{}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		log, err := s.Changes(ctx, memory.ChangeQuery{MemoryID: id})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var lines []string
		for _, c := range log {
			lines = append(lines, fmt.Sprintf("%s %s by %s %v %q", c.At.UTC().Format("01-02"), c.Action, c.Source, c.Fields, c.Reason))
		}
		logs[name] = strings.Join(lines, "; ")
		m, err := s.GetMemory(ctx, id)
		if err != nil || m.Metadata["source"] != "test" || m.Metadata[memory.MetaEdits] != nil {
			t.Errorf("%s: metadata after import: %+v, %v; want source kept and edits moved", name, m, err)
		}
	}
	want := `01-03 demote by viewer [{memory_type golden_rule <nil>}] "not always"; 01-02 edit by viewer [{importance 0.7 <nil>}] ""`
	for name, got := range logs {
		if got != want {
			t.Errorf("%s change log:\n%s\nwant\n%s", name, got, want)
		}
	}
}
