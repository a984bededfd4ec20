package sqlite

import (
	"context"
	"testing"
	"time"

	"github.com/recall-mcp/recall/capture/journal"
	"github.com/recall-mcp/recall/memory"
)

func TestWatchSeesCommitsFromAnotherOpenOfTheFile(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	other, err := Open(ctx, db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	w, err := db.Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	if changed, err := w.Changed(ctx); err != nil || changed {
		t.Fatalf("nothing written yet: changed %v, %v", changed, err)
	}
	m := newMemory("written by the other handle", "global", "decision")
	if _, _, err := other.InsertMemory(ctx, m, nil); err != nil {
		t.Fatal(err)
	}
	if changed, err := w.Changed(ctx); err != nil || !changed {
		t.Fatalf("after another handle's commit: changed %v, %v; want true", changed, err)
	}
	if changed, _ := w.Changed(ctx); changed {
		t.Errorf("changed again without a new commit")
	}
	c, err := w.ChangedSince(ctx, m.UpdatedAt, 10)
	if err != nil || c.Total != 1 || len(c.Memories) != 1 || c.Memories[0].ID != m.ID || !c.Memories[0].CreatedAt.Equal(m.CreatedAt) {
		t.Fatalf("ChangedSince: %+v, %v; want the one memory", c, err)
	}
	if later, _ := w.ChangedSince(ctx, m.UpdatedAt.Add(1), 10); len(later.Memories) != 0 {
		t.Errorf("ChangedSince after its update time: %+v, want none", later.Memories)
	}
	// An edge alone changes the edge summary.
	m2 := newMemory("a second memory", "global", "decision")
	if _, _, err := other.InsertMemory(ctx, m2, nil); err != nil {
		t.Fatal(err)
	}
	before, _ := w.ChangedSince(ctx, m2.UpdatedAt, 10)
	if _, err := other.InsertEdge(ctx, &memory.Edge{SourceID: m.ID, TargetID: m2.ID, Relation: memory.RelationContradicts, Weight: 1, CreatedAt: m2.CreatedAt}); err != nil {
		t.Fatal(err)
	}
	after, _ := w.ChangedSince(ctx, m2.UpdatedAt, 10)
	if before.Edges == after.Edges {
		t.Errorf("edge summary %v unchanged after adding an edge", after.Edges)
	}
	// A journal entry (a hook's capture) changes the journal summary, and
	// forgetting it too.
	w.Changed(ctx)
	if _, err := other.AddEntry(ctx, &journal.Entry{Kind: journal.KindPrompt, Namespace: "global", SessionID: "s1", Title: "fix the build"}); err != nil {
		t.Fatal(err)
	}
	if changed, _ := w.Changed(ctx); !changed {
		t.Error("a journal entry went unnoticed")
	}
	entry, _ := w.ChangedSince(ctx, m2.UpdatedAt, 10)
	if entry.Journal == after.Journal || entry.Edges != after.Edges || entry.Total != after.Total {
		t.Errorf("after a journal entry: %+v, before it %+v; want only the journal summary moved", entry, after)
	}
	if _, _, err := other.ForgetEntries(ctx, "s1", time.Time{}); err != nil {
		t.Fatal(err)
	}
	if gone, _ := w.ChangedSince(ctx, m2.UpdatedAt, 10); gone.Journal == entry.Journal {
		t.Errorf("journal summary %v unchanged after forgetting the entry", gone.Journal)
	}
}
