package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

// searchBySigns makes vector search pick candidates by sign bits at any size,
// as it does above exactScanBelow vectors.
func searchBySigns(t *testing.T) {
	t.Helper()
	old := exactScanBelow
	exactScanBelow = 0
	t.Cleanup(func() { exactScanBelow = old })
}

// seedSignsFile stores n memories in a new file and returns its path, closed.
func seedSignsFile(t *testing.T, n int, r *rand.Rand) string {
	t.Helper()
	db := openTest(t)
	namespaces := []string{"global", "project:a", "project:b"}
	for i := range n {
		mustInsert(t, db, newMemory(fmt.Sprintf("memory %d", i), namespaces[i%3], memory.TypeDecision), unitVector(r, 64))
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return db.Path()
}

// A new process's first search over many vectors is the exact scan and starts
// loading the signs; once loaded, searches pick candidates by sign bits. Both
// return the exact neighbours (few vectors: the candidates are all of them).
func TestFirstSearchExactThenSigns(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(5, 5))
	path := seedSignsFile(t, 300, r)
	old, oldInline := exactScanBelow, catchUpInline
	exactScanBelow, catchUpInline = 100, 50 // 300 vectors count as many
	t.Cleanup(func() { exactScanBelow, catchUpInline = old, oldInline })

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := unitVector(r, 64)
	f := memory.Filter{Namespaces: []string{"project:a"}}
	want, err := exactNeighbours(ctx, db, q, f, 10)
	if err != nil || len(want) != 10 {
		t.Fatalf("exact neighbours: %v, %v", want, err)
	}

	first, err := db.SearchVector(ctx, q, f, 10)
	if err != nil {
		t.Fatal(err)
	}
	if got := hitSeqs(t, db, first); !slices.Equal(got, want) {
		t.Errorf("first search = %v, want %v", got, want)
	}
	db.loader.wait()
	if _, ok, err := db.signCandidates(ctx, q, f, 1000, 100); err != nil || !ok {
		t.Fatalf("after the background load: signs used %v, %v; want true", ok, err)
	}
	if n := len(db.signs.seqs); n != 300 {
		t.Errorf("loaded copy holds %d vectors, want 300", n)
	}
	second, err := db.SearchVector(ctx, q, f, 10)
	if err != nil {
		t.Fatal(err)
	}
	if got := hitSeqs(t, db, second); !slices.Equal(got, want) {
		t.Errorf("search by signs = %v, want %v", got, want)
	}
	for i, h := range second {
		if h.ID != first[i].ID || h.Score-first[i].Score > 1e-5 || first[i].Score-h.Score > 1e-5 {
			t.Errorf("hit %d: signs %+v, exact %+v", i, h, first[i])
		}
	}
}

// Below exactScanBelow vectors a process's first search reads the small copy
// of the signs and ranks its candidates (a cold exact scan reads whole vec0
// chunks); later searches take the exact scan. Both answer the same.
func TestSmallDatabaseFirstSearchBySignsThenExact(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(6, 6))
	db, err := Open(ctx, seedSignsFile(t, 40, r))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	query := unitVector(r, 64)
	first, err := db.SearchVector(ctx, query, memory.Filter{}, 5)
	if err != nil || len(first) != 5 {
		t.Fatalf("first SearchVector = %d hits, %v; want 5", len(first), err)
	}
	if n := len(db.signs.seqs); n != 40 {
		t.Fatalf("after the first search the copy holds %d vectors, want all 40", n)
	}
	for range 2 {
		again, err := db.SearchVector(ctx, query, memory.Filter{}, 5)
		if err != nil || !slices.Equal(hitIDs(again), hitIDs(first)) {
			t.Fatalf("later search (exact scan) = %v, %v; want %v", hitIDs(again), err, hitIDs(first))
		}
	}
	db.loader.wait()
	if db.loader.running {
		t.Error("a background load ran below the threshold")
	}
}

// Close stops a background load: the goroutine is gone when Close returns, and
// no load starts after it.
func TestCloseStopsSignLoad(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(8, 8))
	path := seedSignsFile(t, 200, r)
	old, oldInline := exactScanBelow, catchUpInline
	exactScanBelow, catchUpInline = 10, 10
	t.Cleanup(func() { exactScanBelow, catchUpInline = old, oldInline })

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SearchVector(ctx, unitVector(r, 64), memory.Filter{}, 5); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db.loader.mu.Lock()
	running := db.loader.running
	db.loader.mu.Unlock()
	if running {
		t.Error("a load of the signs still runs after Close")
	}
	db.loader.start(db.db, db.signs, 200)
	db.loader.mu.Lock()
	running = db.loader.running
	db.loader.mu.Unlock()
	if running {
		t.Error("a load of the signs started after Close")
	}
}

// hitSeqs maps hits to their memories' seqs.
func hitSeqs(t *testing.T, db *DB, hits []memory.Hit) []int64 {
	t.Helper()
	var seqs []int64
	for _, h := range hits {
		var seq int64
		if err := db.SQL().QueryRow(`SELECT seq FROM memories WHERE id = ?`, h.ID).Scan(&seq); err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, seq)
	}
	return seqs
}
