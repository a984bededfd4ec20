package sqlite

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

// A process that loads every sign writes them down; the next process reads
// that snapshot instead of loading (its first search already ranks by signs),
// catches up on what changed since (a new vector, a deletion, a namespace
// change) and finds what the exact search finds.
func TestNewProcessReadsTheSnapshot(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(8, 8))
	path := seedSignsFile(t, 300, r)
	old, oldInline := exactScanBelow, catchUpInline
	exactScanBelow, catchUpInline = 100, 50 // 300 vectors count as many
	t.Cleanup(func() { exactScanBelow, catchUpInline = old, oldInline })

	first, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	q := unitVector(r, 64)
	if _, err := first.SearchVector(ctx, q, memory.Filter{}, 10); err != nil {
		t.Fatal(err)
	}
	first.loader.wait()
	if v, err := snapshotVersion(ctx, first.db); err != nil || v == 0 {
		t.Fatalf("after the first process's load: snapshot version %d, %v; want one written", v, err)
	}
	// Changes after the snapshot.
	added := mustInsert(t, first, newMemory("added after the snapshot", "global", memory.TypeDecision), q)
	listed, err := first.ListMemories(ctx, memory.ListQuery{Limit: 2, OrderBy: memory.OrderCreatedAt})
	if err != nil || len(listed) != 2 {
		t.Fatal(listed, err)
	}
	if err := first.DeleteMemory(ctx, listed[0].ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := first.UpdateMemory(ctx, listed[1].ID, func(m *memory.Memory) error { m.Namespace = "project:moved"; return nil }); err != nil {
		t.Fatal(err)
	}
	first.Close()

	second, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	for _, f := range []memory.Filter{{}, {Namespaces: []string{"project:a"}}, {Namespaces: []string{"project:moved"}}} {
		want, err := exactNeighbours(ctx, second, q, f, 10)
		if err != nil {
			t.Fatal(err)
		}
		hits, err := second.SearchVector(ctx, q, f, 10)
		if err != nil {
			t.Fatal(err)
		}
		if got := hitSeqs(t, second, hits); !slices.Equal(got, want) {
			t.Errorf("filter %v: %v, want the exact %v", f.Namespaces, got, want)
		}
	}
	if !second.signs.searched || second.signs.snapshot == 0 || second.loader.running {
		t.Errorf("the second process did not start from the snapshot (snapshot version %d, loading %v)", second.signs.snapshot, second.loader.running)
	}
	hits, err := second.SearchVector(ctx, q, memory.Filter{}, 1)
	if err != nil || len(hits) != 1 || hits[0].ID != added.ID {
		t.Errorf("best hit %v, %v; want the memory added after the snapshot %s", hitIDs(hits), err, added.ID)
	}
	if n := len(second.signs.seqs); n < 300 {
		t.Errorf("copy holds %d vectors, want at least 300", n)
	}
}
