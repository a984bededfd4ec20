package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

// A database of schema version 11 whose memories kept their changes in
// metadata.edits (as the viewer's edit and demote wrote them) gets those
// entries as change log rows when it is opened, and loses the key.
func TestMigrationMovesMetadataEditsToTheChangeLog(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "recall.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	m := newMemory("never force-push main", "project:web", memory.TypeDecision)
	m.Metadata = map[string]any{
		"demoted_at": "2025-03-02T10:00:00Z", "demoted_reason": "release branches are force-pushed",
		memory.MetaEdits: []any{
			map[string]any{"at": "2025-03-01T09:00:00Z", "by": "viewer", "fields": []any{"content", "importance"},
				"previous_content_hash": "abc123", "previous_importance": 0.5},
			map[string]any{"at": "2025-03-02T10:00:00Z", "by": "viewer", "fields": []any{"memory_type"},
				"previous_memory_type": "golden_rule", "reason": "release branches are force-pushed"},
		},
	}
	mustInsert(t, db, m, nil)
	plain := newMemory("tabs in Makefiles", "global", memory.TypePattern)
	plain.Metadata = map[string]any{memory.MetaEdits: 3} // an agent's own key
	mustInsert(t, db, plain, nil)
	// Back to version 11: no change log yet.
	for _, q := range append(append(undoJournalKeywords(), undoJobsTable(true)...), `DROP TABLE change_log`, `DROP INDEX memories_updated`,
		`ALTER TABLE trash DROP COLUMN archived`, // and what later migrations added
		`UPDATE meta SET value = '11' WHERE key = 'schema_version'`) {
		if _, err := db.SQL().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	log, err := db.Changes(ctx, memory.ChangeQuery{MemoryID: m.ID})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range log {
		got = append(got, fmt.Sprintf("%s %s by %s %v %q", c.At.Format("01-02"), c.Action, c.Source, c.Fields, c.Reason))
	}
	want := `[03-02 demote by viewer [{memory_type golden_rule <nil>}] "release branches are force-pushed" ` +
		`03-01 edit by viewer [{content_hash abc123 <nil>} {importance 0.5 <nil>}] ""]`
	if fmt.Sprint(got) != want {
		t.Errorf("change log after the migration:\n%v\nwant\n%s", got, want)
	}
	after, err := db.GetMemory(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, kept := after.Metadata[memory.MetaEdits]; kept || after.Metadata["demoted_at"] == nil {
		t.Errorf("metadata after the migration: %v; want edits gone and demoted_at kept", after.Metadata)
	}
	if !after.UpdatedAt.Equal(m.UpdatedAt) {
		t.Errorf("updated_at moved from %v to %v", m.UpdatedAt, after.UpdatedAt)
	}
	if others, _ := db.Changes(ctx, memory.ChangeQuery{MemoryID: plain.ID}); len(others) != 0 {
		t.Errorf("a memory without edits got entries: %+v", others)
	}
	if kept, _ := db.GetMemory(ctx, plain.ID); kept == nil || kept.Metadata[memory.MetaEdits] != 3.0 {
		t.Errorf("an edits key of another shape was not kept: %+v", kept)
	}
}

// The entry is written with the change or not at all.
func TestLoggedUpdateWritesTheEntryWithTheChange(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	m := mustInsert(t, db, newMemory("the build uses bazel", "global", memory.TypeDecision), nil)
	mustInsert(t, db, newMemory("the build uses make", "global", memory.TypeDecision), nil)

	edit := func(content string) (*memory.Memory, error) {
		return db.UpdateMemoryLogged(ctx, m.ID, func(x *memory.Memory) (*memory.Change, error) {
			c := &memory.Change{Action: memory.ChangeEdit, Source: memory.SourceCLI,
				Fields: []memory.FieldChange{{Field: "content", Before: x.Content, After: content}}}
			x.Content = content
			return c, nil
		})
	}
	// The same content as another memory of the namespace: refused, and the
	// entry rolls back with it.
	if _, err := edit("the build uses make"); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("duplicate content: %v, want ErrInvalid", err)
	}
	if log, _ := db.Changes(ctx, memory.ChangeQuery{MemoryID: m.ID}); len(log) != 0 {
		t.Fatalf("a refused update left entries: %+v", log)
	}
	after, err := edit("the build uses ninja")
	if err != nil {
		t.Fatal(err)
	}
	log, err := db.Changes(ctx, memory.ChangeQuery{MemoryID: m.ID})
	if err != nil || len(log) != 1 {
		t.Fatalf("log %+v, %v; want one entry", log, err)
	}
	if c := log[0]; c.Namespace != "global" || !c.At.Equal(after.UpdatedAt) || c.Source != "cli" ||
		fmt.Sprint(c.Fields) != "[{content the build uses bazel the build uses ninja}]" {
		t.Errorf("entry %+v", c)
	}
}

// The viewer's delete keeps the log in the trash and a restore brings it back
// with the delete and the restore; a delete for good takes it.
func TestTrashKeepsTheChangeLog(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	m := mustInsert(t, db, newMemory("deploys go through make release", "global", memory.TypeDecision), nil)
	gone := mustInsert(t, db, newMemory("a note to forget", "global", memory.TypeDecision), nil)
	for _, id := range []string{m.ID, gone.ID} {
		if err := db.AddChanges(ctx, memory.Change{MemoryID: id, Namespace: "global", At: testClock, Action: memory.ChangeEdit, Source: "viewer"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.TrashMemory(ctx, m.ID, true); err != nil {
		t.Fatal(err)
	}
	if log, _ := db.Changes(ctx, memory.ChangeQuery{MemoryID: m.ID}); len(log) != 0 {
		t.Errorf("a deleted memory still has a log: %+v", log)
	}
	if _, err := db.RestoreMemory(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	log, err := db.Changes(ctx, memory.ChangeQuery{MemoryID: m.ID})
	if err != nil {
		t.Fatal(err)
	}
	var actions []memory.ChangeAction
	for _, c := range log {
		actions = append(actions, c.Action)
	}
	if fmt.Sprint(actions) != "[restore delete edit]" {
		t.Errorf("log after a restore: %v, want restore, delete, edit", actions)
	}
	if err := db.DeleteMemory(ctx, gone.ID, true); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM change_log WHERE memory_id = ?`, gone.ID).Scan(&left); err != nil || left != 0 {
		t.Errorf("a memory deleted for good left %d entries (%v)", left, err)
	}
}

// The live updates' query finds changed memories by the updated_at index.
func TestChangedSinceUsesTheUpdatedIndex(t *testing.T) {
	db := openTest(t)
	var plan string
	var id, parent, unused int
	err := db.SQL().QueryRow(`EXPLAIN QUERY PLAN `+changedSinceQuery, "2025", 10).Scan(&id, &parent, &unused, &plan)
	if err != nil {
		t.Fatal(err)
	}
	if plan != "SEARCH memories USING INDEX memories_updated (updated_at>?)" {
		t.Errorf("plan %q, want a search of memories_updated", plan)
	}
}

// A project renamed keeps its golden rules' audit trail; a duplicate folded
// by a merge hands its history to the copy that is kept.
func TestChangeLogFollowsRenameAndMerge(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	rule := mustInsert(t, db, newMemory("Rebase before a pull request", "project:old", memory.TypeGoldenRule), nil)
	dup := mustInsert(t, db, newMemory("Tabs in Makefiles", "project:old", memory.TypePattern), nil)
	kept := mustInsert(t, db, newMemory("Tabs in Makefiles", "project:into", memory.TypePattern), nil)
	if err := db.AddChanges(ctx,
		memory.Change{MemoryID: rule.ID, Namespace: "project:old", At: testClock, Action: memory.ChangePromote, Source: memory.SourceViewer, Reason: "agreed"},
		memory.Change{MemoryID: dup.ID, Namespace: "project:old", At: testClock, Action: memory.ChangeNotContradiction, Source: memory.SourceViewer, RelatedID: rule.ID},
	); err != nil {
		t.Fatal(err)
	}
	if _, err := db.RenameProject(ctx, "project:old", "project:new"); err != nil {
		t.Fatal(err)
	}
	audit, err := db.Changes(ctx, memory.ChangeQuery{Namespaces: []string{"project:new"}, Actions: []memory.ChangeAction{memory.ChangePromote}})
	if err != nil || len(audit) != 1 || audit[0].MemoryID != rule.ID {
		t.Fatalf("audit of the renamed project: %+v %v", audit, err)
	}
	if _, err := db.MergeProjects(ctx, "project:new", "project:into"); err != nil {
		t.Fatal(err)
	}
	got, err := db.Changes(ctx, memory.ChangeQuery{MemoryID: kept.ID})
	if err != nil || len(got) != 1 || got[0].Action != memory.ChangeNotContradiction || got[0].Namespace != "project:into" {
		t.Fatalf("the kept copy's log after the merge: %+v %v; want the duplicate's verdict", got, err)
	}
}
