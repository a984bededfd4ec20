package transfer

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

// The change log travels with an export and comes back with the import, once
// however often the file is read; an export made before the change log
// (entries in metadata.edits) gives log entries on import.
func TestChangeLogTravels(t *testing.T) {
	ctx := context.Background()
	src := sampleDB(t)
	ms, err := src.ListMemories(ctx, memory.ListQuery{Limit: 1})
	if err != nil || len(ms) == 0 {
		t.Fatal(ms, err)
	}
	id := ms[0].ID
	if _, err := src.UpdateMemoryLogged(ctx, id, func(m *memory.Memory) (*memory.Change, error) {
		m.Importance = 0.9
		return &memory.Change{Action: memory.ChangeEdit, Source: memory.SourceViewer, Reason: "matters more",
			Fields: []memory.FieldChange{{Field: "importance", Before: 0.5, After: 0.9}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	first := export(t, src)
	if !strings.Contains(first, `"record":"change"`) {
		t.Fatalf("no change record in the export:\n%s", first)
	}
	dst := openDB(t, "dst.db")
	if _, err := Import(ctx, dst, strings.NewReader(first), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if second := export(t, dst); second != first {
		t.Errorf("export after import differs:\nfirst:\n%s\nsecond:\n%s", first, second)
	}
	again, err := Import(ctx, dst, strings.NewReader(first), ImportOptions{})
	if err != nil || again.Result.Changes != 0 {
		t.Errorf("a second import of the same file: %+v, %v; want no change entry added", again.Result, err)
	}
	if log, _ := dst.Changes(ctx, memory.ChangeQuery{MemoryID: id}); len(log) != 1 {
		t.Errorf("log after two imports: %+v, want one entry", log)
	}

	// A memory line as exports carried it before the change log.
	old := `{"record":"header","format":"recall-export","version":1,"exported_at":"2025-01-01T00:00:00Z"}
{"record":"memory","id":"mem_1735689600000_0a1b2c3d","content":"ship on fridays","content_hash":"","memory_type":"decision","namespace":"global","importance":0.5,"confidence":0.3,"metadata":{"source":"test","edits":[{"at":"2025-01-02T00:00:00Z","by":"viewer","fields":["importance"],"previous_importance":0.7}]},"created_at":"2025-01-01T00:00:00Z","updated_at":"2025-01-02T00:00:00Z","accessed_at":"2025-01-01T00:00:00Z","access_count":0}
`
	legacy := openDB(t, "legacy.db")
	if _, err := Import(ctx, legacy, strings.NewReader(old), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	log, err := legacy.Changes(ctx, memory.ChangeQuery{MemoryID: "mem_1735689600000_0a1b2c3d"})
	if err != nil || len(log) != 1 || log[0].Source != "viewer" || fmt.Sprint(log[0].Fields) != "[{importance 0.7 <nil>}]" {
		t.Errorf("log of an old export's memory: %+v, %v", log, err)
	}
	m, err := legacy.GetMemory(ctx, "mem_1735689600000_0a1b2c3d")
	if err != nil || m.Metadata["source"] != "test" || m.Metadata[memory.MetaEdits] != nil {
		t.Errorf("metadata after import: %+v, %v; want source kept and edits moved", m, err)
	}
}
