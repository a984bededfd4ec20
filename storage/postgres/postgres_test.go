package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/recall-mcp/recall/capture/journal"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/postgres"
	"github.com/recall-mcp/recall/storage/postgres/pgtest"
	"github.com/recall-mcp/recall/storage/storetest"
)

func openTest(t testing.TB) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(context.Background(), pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestContract runs the contract every store passes, each case in a schema
// of its own.
func TestContract(t *testing.T) {
	pgtest.URL(t)
	storetest.Run(t, func(t *testing.T) storetest.Store { return openTest(t) })
}

// TestWatchSeesAnotherInstancesWrites: a viewer's watch on one store learns
// of a memory another store (another server) wrote, through NOTIFY.
func TestWatchSeesAnotherInstancesWrites(t *testing.T) {
	u := pgtest.Schema(t)
	ctx := context.Background()
	viewerSide, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer viewerSide.Close()
	writer, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	w, err := viewerSide.Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if changed, err := w.Changed(ctx); err != nil || changed {
		t.Fatalf("before any write: changed=%v err=%v", changed, err)
	}
	m := &memory.Memory{ID: memory.NewID(time.Now()), Content: "seen elsewhere", Type: memory.TypeDecision,
		Namespace: "global", Importance: 0.5, Confidence: 0.3}
	if _, _, err := writer.InsertMemory(ctx, m, nil); err != nil {
		t.Fatal(err)
	}
	var changed bool
	for i := 0; i < 100 && !changed; i++ {
		if changed, err = w.Changed(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !changed {
		t.Fatal("the watch never heard of the other store's write")
	}
	c, err := w.ChangedSince(ctx, time.Now().Add(-time.Minute), 10)
	if err != nil {
		t.Fatal(err)
	}
	if c.Total != 1 || len(c.Memories) != 1 || c.Memories[0].ID != m.ID {
		t.Fatalf("changes = %+v", c)
	}
	if changed, _ := w.Changed(ctx); changed {
		t.Fatal("a change reported twice")
	}
	// A journal entry (a hook's capture on another server) is announced
	// too, and so is forgetting it.
	heard := func(what string) *memory.Changes {
		t.Helper()
		for i := 0; i < 100; i++ {
			if changed, err := w.Changed(ctx); err != nil {
				t.Fatal(err)
			} else if changed {
				c, err := w.ChangedSince(ctx, time.Now().Add(-time.Minute), 10)
				if err != nil {
					t.Fatal(err)
				}
				return c
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("the watch never heard of %s", what)
		return nil
	}
	if _, err := writer.AddEntry(ctx, &journal.Entry{Kind: journal.KindPrompt, Namespace: "global", SessionID: "s1", Title: "fix the build"}); err != nil {
		t.Fatal(err)
	}
	entry := heard("a journal entry")
	if entry.Journal == c.Journal || entry.Total != c.Total {
		t.Fatalf("after a journal entry: %+v, before %+v", entry, c)
	}
	if _, _, err := writer.ForgetEntries(ctx, "s1", time.Time{}); err != nil {
		t.Fatal(err)
	}
	if gone := heard("a forgotten journal entry"); gone.Journal == entry.Journal {
		t.Fatalf("journal summary %v unchanged after the forget", gone.Journal)
	}
}
