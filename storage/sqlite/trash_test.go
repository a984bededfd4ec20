package sqlite

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

func TestDeleteKeepsRecordAndRestoreBringsItBack(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	a := mustInsert(t, db, newMemory("Use WAL mode", "global", memory.TypeDecision), nil)
	b := mustInsert(t, db, newMemory("Checkpoint on shutdown", "global", memory.TypePattern), nil)
	golden := mustInsert(t, db, newMemory("Never push to main", "global", memory.TypeGoldenRule), nil)
	if _, err := db.InsertEdge(ctx, &memory.Edge{SourceID: a.ID, TargetID: b.ID, Relation: memory.RelationRelatesTo, Weight: 1, CreatedAt: testClock}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddEvent(ctx, &memory.ValidationEvent{MemoryID: a.ID, EventType: memory.EventSucceeded, ConfidenceBefore: 0.3, ConfidenceAfter: 0.4, CreatedAt: testClock}); err != nil {
		t.Fatal(err)
	}
	// A refused delete leaves nothing in the trash.
	if err := db.TrashMemory(ctx, golden.ID, true); !errors.Is(err, memory.ErrProtected) {
		t.Fatalf("delete golden without force: %v", err)
	}
	if err := db.TrashMemory(ctx, a.ID, true); err != nil {
		t.Fatal(err)
	}
	items, err := db.Trash(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].Memory.ID != a.ID || items[0].Memory.Content != "Use WAL mode" || len(items[0].Edges) != 1 || len(items[0].Events) != 1 {
		t.Fatalf("trash after one delete: %+v", items)
	}

	if _, err := db.RestoreMemory(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	got, err := db.GetMemory(ctx, a.ID)
	if err != nil || got.Content != "Use WAL mode" || got.Type != memory.TypeDecision {
		t.Fatalf("restored memory: %+v %v", got, err)
	}
	if edges, _ := db.Edges(ctx, memory.EdgeQuery{SourceID: a.ID}); len(edges) != 1 || edges[0].TargetID != b.ID {
		t.Errorf("restored edges: %+v", edges)
	}
	if evs, _ := db.Events(ctx, a.ID, "", 0); len(evs) != 1 || evs[0].ConfidenceAfter != 0.4 {
		t.Errorf("restored events: %+v", evs)
	}
	if items, _ := db.Trash(ctx); len(items) != 0 {
		t.Errorf("trash after the restore: %+v", items)
	}
	if _, err := db.RestoreMemory(ctx, a.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("second restore: %v, want not found", err)
	}

	// Past the keeping time a record is purged and cannot be restored.
	if err := db.TrashMemory(ctx, b.ID, true); err != nil {
		t.Fatal(err)
	}
	defer func(f func() time.Time) { storage.TrashNow = f }(storage.TrashNow)
	later := time.Now().Add(memory.TrashKeep + time.Hour)
	storage.TrashNow = func() time.Time { return later }
	if _, err := db.RestoreMemory(ctx, b.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("restore after %v: %v, want not found", memory.TrashKeep, err)
	}
	if items, _ := db.Trash(ctx); len(items) != 0 {
		t.Errorf("trash after %v: %+v", memory.TrashKeep, items)
	}
}

// A forget through the tools or the CLI (DeleteMemory) means gone: nothing of
// the memory stays in the trash. Only the viewer's delete (TrashMemory) keeps it.
func TestDeleteForGoodLeavesTheTrashEmpty(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	secret := mustInsert(t, db, newMemory("The staging password is hunter2", "global", memory.TypeDecision), nil)
	if err := db.DeleteMemory(ctx, secret.ID, true); err != nil {
		t.Fatal(err)
	}
	items, err := db.Trash(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 0 {
		t.Fatalf("a forgotten memory stayed in the trash: %+v", items)
	}
	var n int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM trash WHERE record LIKE '%hunter2%'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("trash rows holding the forgotten content: %d, %v", n, err)
	}
}

// An archived memory leaves the store like a deleted one but stays in the
// trash past the keeping time, marked archived, and comes back on restore.
func TestArchivedMemoryIsKeptUntilRestored(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	old := mustInsert(t, db, newMemory("Deploy with the old Makefile target", "global", memory.TypeDecision), nil)
	golden := mustInsert(t, db, newMemory("Never push to main", "global", memory.TypeGoldenRule), nil)
	if err := db.ArchiveMemory(ctx, golden.ID, true); !errors.Is(err, memory.ErrProtected) {
		t.Fatalf("archive a golden rule without force: %v", err)
	}
	if err := db.ArchiveMemory(ctx, old.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := db.GetMemory(ctx, old.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("an archived memory is still in the store: %v", err)
	}
	defer func(f func() time.Time) { storage.TrashNow = f }(storage.TrashNow)
	later := time.Now().Add(memory.TrashKeep + 24*time.Hour)
	storage.TrashNow = func() time.Time { return later }
	items, err := db.Trash(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].Memory.ID != old.ID || !items[0].Archived {
		t.Fatalf("trash %v after the archive: %+v", memory.TrashKeep, items)
	}
	if ch := items[0].Changes; len(ch) == 0 || ch[len(ch)-1].Action != memory.ChangeArchive {
		t.Errorf("the archive is not the last entry of the change log: %+v", ch)
	}
	if _, err := db.RestoreMemory(ctx, old.ID); err != nil {
		t.Fatalf("restore an archived memory after %v: %v", memory.TrashKeep, err)
	}
	if got, err := db.GetMemory(ctx, old.ID); err != nil || got.Content != old.Content {
		t.Fatalf("restored: %+v %v", got, err)
	}
}

// Listing the trash only reads (the viewer's GET /api/trash): it answers while
// another process holds the write lock, leaves records past their keeping time
// out without deleting them, and the next delete purges them.
func TestTrashListingOnlyReads(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	a := mustInsert(t, db, newMemory("Use WAL mode", "global", memory.TypeDecision), nil)
	b := mustInsert(t, db, newMemory("Checkpoint on shutdown", "global", memory.TypePattern), nil)
	if err := db.TrashMemory(ctx, a.ID, true); err != nil {
		t.Fatal(err)
	}
	defer func(f func() time.Time) { storage.TrashNow = f }(storage.TrashNow)
	later := time.Now().Add(memory.TrashKeep + time.Hour)
	storage.TrashNow = func() time.Time { return later }

	lock, err := db.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lock.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, notWaiting)
	items, err := db.Trash(short)
	cancel()
	if err != nil || len(items) != 0 {
		t.Errorf("trash listed under another writer, past the keeping time: %+v, %v (want none, without waiting)", items, err)
	}
	_, _ = lock.ExecContext(ctx, `ROLLBACK`)
	lock.Close()

	countRows := func() (n int) {
		if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM trash`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := countRows(); n != 1 {
		t.Fatalf("%d trash rows after a listing, want the expired one still there (a listing deletes nothing)", n)
	}
	if err := db.TrashMemory(ctx, b.ID, true); err != nil {
		t.Fatal(err)
	}
	if n := countRows(); n != 1 {
		t.Errorf("%d trash rows after the next delete, want only its own (the expired one purged)", n)
	}
}
