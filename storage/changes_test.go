package storage

import (
	"context"
	"testing"
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
	stamps, total, err := w.ChangedSince(ctx, m.UpdatedAt, 10)
	if err != nil || total != 1 || len(stamps) != 1 || stamps[0].ID != m.ID || !stamps[0].CreatedAt.Equal(m.CreatedAt) {
		t.Fatalf("ChangedSince: %+v, total %d, %v; want the one memory", stamps, total, err)
	}
	if later, _, _ := w.ChangedSince(ctx, m.UpdatedAt.Add(1), 10); len(later) != 0 {
		t.Errorf("ChangedSince after its update time: %+v, want none", later)
	}
}
