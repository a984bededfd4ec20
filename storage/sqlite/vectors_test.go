package sqlite

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

func TestEmbeddingSpaceLifecycle(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	sp, err := db.EmbeddingSpace(ctx)
	if err != nil || sp != (memory.EmbeddingSpace{}) {
		t.Fatalf("EmbeddingSpace of a new database = %+v, %v", sp, err)
	}
	if hits, err := db.SearchVector(ctx, []float32{1, 0, 0}, memory.Filter{}, 5); err != nil || len(hits) != 0 {
		t.Errorf("SearchVector before any vector = %v, %v; want none, no error", hits, err)
	}
	if err := db.ResetEmbeddings(ctx, memory.EmbeddingSpace{Model: "mxbai-embed-large", Dimension: 3}); err != nil {
		t.Fatal(err)
	}
	a := mustInsert(t, db, newMemory("vector a", "global", memory.TypeSession), []float32{1, 0, 0})
	if a.EmbeddingPending {
		t.Error("a memory stored with a vector must not be pending")
	}
	sp, _ = db.EmbeddingSpace(ctx)
	if sp != (memory.EmbeddingSpace{Model: "mxbai-embed-large", Dimension: 3}) {
		t.Errorf("EmbeddingSpace = %+v", sp)
	}

	// Another dimension is refused, and nothing is stored.
	_, _, err = db.InsertMemory(ctx, newMemory("vector b", "global", memory.TypeSession), []float32{1, 0})
	if !errors.Is(err, memory.ErrEmbeddingMismatch) {
		t.Errorf("InsertMemory with a 2-dim vector in a 3-dim space: %v, want ErrEmbeddingMismatch", err)
	}
	if n, _ := db.CountMemories(ctx, memory.Filter{}); n != 1 {
		t.Errorf("a refused insert left %d memories, want 1", n)
	}
	if err := db.SetEmbedding(ctx, a.ID, []float32{1, 2, 3, 4}); !errors.Is(err, memory.ErrEmbeddingMismatch) {
		t.Errorf("SetEmbedding with a wrong dimension: %v", err)
	}
	if _, err := db.SearchVector(ctx, []float32{1, 0}, memory.Filter{}, 5); !errors.Is(err, memory.ErrEmbeddingMismatch) {
		t.Errorf("SearchVector with a wrong dimension: %v", err)
	}

	// A model change drops every vector and marks everything pending.
	if err := db.ResetEmbeddings(ctx, memory.EmbeddingSpace{Model: "nomic-embed-text", Dimension: 2}); err != nil {
		t.Fatal(err)
	}
	pending, err := db.PendingEmbeddings(ctx, 10)
	if err != nil || len(pending) != 1 || pending[0].ID != a.ID {
		t.Fatalf("PendingEmbeddings after reset = %v, %v", pending, err)
	}
	if hits, _ := db.SearchVector(ctx, []float32{1, 0}, memory.Filter{}, 5); len(hits) != 0 {
		t.Errorf("vectors survived a reset: %v", hits)
	}
	if err := db.SetEmbedding(ctx, a.ID, []float32{0, 1}); err != nil {
		t.Fatal(err)
	}
	if pending, _ := db.PendingEmbeddings(ctx, 10); len(pending) != 0 {
		t.Errorf("still pending after SetEmbedding: %v", pending)
	}
	hits, _ := db.SearchVector(ctx, []float32{0, 1}, memory.Filter{}, 5)
	if len(hits) != 1 || hits[0].ID != a.ID || math.Abs(hits[0].Score-1) > 1e-6 {
		t.Errorf("SearchVector = %+v, want %s with score 1", hits, a.ID)
	}
	for _, bad := range [][]float32{{0, 0}, {float32(math.NaN()), 1}, {float32(math.Inf(1)), 0}} {
		if err := db.SetEmbedding(ctx, a.ID, bad); !errors.Is(err, memory.ErrInvalid) {
			t.Errorf("SetEmbedding(%v) = %v, want ErrInvalid", bad, err)
		}
		if _, err := db.SearchVector(ctx, bad, memory.Filter{}, 5); !errors.Is(err, memory.ErrInvalid) {
			t.Errorf("SearchVector(%v) = %v, want ErrInvalid", bad, err)
		}
	}
	if err := db.ResetEmbeddings(ctx, memory.EmbeddingSpace{Model: "x", Dimension: 0}); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("ResetEmbeddings with dimension 0: %v, want ErrInvalid", err)
	}
}

func TestFirstVectorWithoutSpaceFixesDimension(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	mustInsert(t, db, newMemory("first vector", "global", memory.TypeSession), []float32{0.6, 0.8})
	sp, _ := db.EmbeddingSpace(ctx)
	if sp != (memory.EmbeddingSpace{Dimension: 2}) {
		t.Errorf("EmbeddingSpace = %+v, want dimension 2 and no model", sp)
	}
	_, _, err := db.InsertMemory(ctx, newMemory("second vector", "global", memory.TypeSession), []float32{1, 0, 0})
	if !errors.Is(err, memory.ErrEmbeddingMismatch) {
		t.Errorf("a second dimension: %v, want ErrEmbeddingMismatch", err)
	}
}

func TestSearchVectorRanksAndFilters(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	r := rand.New(rand.NewPCG(1, 2))
	const dim = 16
	if err := db.ResetEmbeddings(ctx, memory.EmbeddingSpace{Model: "test", Dimension: dim}); err != nil {
		t.Fatal(err)
	}
	type stored struct {
		m   *memory.Memory
		vec []float32
	}
	var all []stored
	for i := range 60 {
		ns := []string{"global", "project:a", "project:b"}[i%3]
		typ := []memory.Type{memory.TypeSession, memory.TypeDecision}[i%2]
		m := newMemory("memory "+string(rune('A'+i)), ns, typ)
		m.Importance = float64(i%10) / 10
		v := unitVector(r, dim)
		all = append(all, stored{mustInsert(t, db, m, v), v})
	}
	query := unitVector(r, dim)
	// exact answers the slow way
	exact := func(keep func(*memory.Memory) bool, k int) []string {
		var cands []stored
		for _, s := range all {
			if keep(s.m) {
				cands = append(cands, s)
			}
		}
		slices.SortStableFunc(cands, func(a, b stored) int {
			da, db := dot(a.vec, query), dot(b.vec, query)
			switch {
			case da > db:
				return -1
			case da < db:
				return 1
			}
			return 0
		})
		var ids []string
		for _, c := range cands[:min(k, len(cands))] {
			ids = append(ids, c.m.ID)
		}
		return ids
	}
	check := func(name string, f memory.Filter, keep func(*memory.Memory) bool) {
		t.Helper()
		hits, err := db.SearchVector(ctx, query, f, 5)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got, want := hitIDs(hits), exact(keep, 5); !slices.Equal(got, want) {
			t.Errorf("%s: got %v, want %v", name, got, want)
		}
		for i := 1; i < len(hits); i++ {
			if hits[i].Score > hits[i-1].Score {
				t.Errorf("%s: not best first: %+v", name, hits)
			}
		}
	}
	check("no filter", memory.Filter{}, func(*memory.Memory) bool { return true })
	check("namespace", memory.Filter{Namespaces: []string{"project:b"}}, func(m *memory.Memory) bool { return m.Namespace == "project:b" })
	check("two namespaces and a type", memory.Filter{Namespaces: []string{"project:a", "global"}, Types: []memory.Type{memory.TypeDecision}},
		func(m *memory.Memory) bool { return m.Namespace != "project:b" && m.Type == memory.TypeDecision })
	check("importance", memory.Filter{MinImportance: 0.85}, func(m *memory.Memory) bool { return m.Importance >= 0.85 })
	ids := []string{all[3].m.ID, all[17].m.ID, all[42].m.ID}
	check("ids", memory.Filter{IDs: ids}, func(m *memory.Memory) bool { return slices.Contains(ids, m.ID) })

	// Supersede the best five: the next five come back instead, none starved.
	best := exact(func(*memory.Memory) bool { return true }, 10)
	newer := mustInsert(t, db, newMemory("the newer decision", "global", memory.TypeDecision), nil)
	for _, id := range best[:5] {
		if _, err := db.InsertEdge(ctx, &memory.Edge{SourceID: newer.ID, TargetID: id, Relation: memory.RelationSupersedes, Weight: 1}); err != nil {
			t.Fatal(err)
		}
	}
	check("superseded left out", memory.Filter{}, func(m *memory.Memory) bool { return !slices.Contains(best[:5], m.ID) })

	// Promotion changes the type; the vector index must follow.
	target := all[1].m.ID // a decision
	if _, err := db.UpdateMemory(ctx, target, func(m *memory.Memory) error {
		m.Type, m.Namespace = memory.TypeGoldenRule, "project:z"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	hits, err := db.SearchVector(ctx, query, memory.Filter{Types: []memory.Type{memory.TypeGoldenRule}, Namespaces: []string{"project:z"}}, 5)
	if err != nil || !slices.Equal(hitIDs(hits), []string{target}) {
		t.Errorf("after promotion: %v, %v; want [%s]", hits, err, target)
	}
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}
