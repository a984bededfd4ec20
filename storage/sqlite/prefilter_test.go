package sqlite

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

// TestSignPrefilterAppliesFilters: when candidates are picked by sign bits,
// a filter that few memories pass (a small namespace, a rare type, a high
// importance) still gets its full, exact answer: the filter is applied while
// candidates are picked, not only afterwards, where the many memories that
// fail it would have crowded out the few that pass.
func TestSignPrefilterAppliesFilters(t *testing.T) {
	searchBySigns(t)
	ctx := context.Background()
	db, err := OpenWith(ctx, filepath.Join(t.TempDir(), "prefilter.db"), Options{SyncNormal: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r := rand.New(rand.NewPCG(7, 7))
	query := unitVector(r, 64)
	// The crowd lies near the query and the few far from it: ranked by sign
	// bits without the filter, the crowd would fill every candidate slot.
	near := func(sign float32) []float32 {
		v := unitVector(r, 64)
		for i := range v {
			v[i] = sign*query[i] + 0.3*v[i]
		}
		return v
	}
	const crowd = 3000 // more than the candidates a filtered search takes (2500 for 5 results)
	for i := range crowd + 12 {
		m := newMemory(fmt.Sprintf("prefilter memory %d", i), "project:crowd", memory.TypeDecision)
		vec := near(1)
		if i >= crowd { // the few that pass each filter
			m.Namespace = "project:small"
			m.Type = memory.TypePattern
			m.Importance = 0.95
			vec = near(-1)
		}
		mustInsert(t, db, m, normalize(vec))
	}
	for name, f := range map[string]memory.Filter{
		"namespace":  {Namespaces: []string{"project:small"}},
		"type":       {Types: []memory.Type{memory.TypePattern}},
		"importance": {MinImportance: 0.9},
	} {
		exact, err := db.knnVectorSearch(ctx, query, f, 5, 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := db.SearchVector(ctx, query, f, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(exact) != 5 {
			t.Fatalf("%s: the exact scan found %d, want 5", name, len(exact))
		}
		if !slices.Equal(hitIDs(got), hitIDs(exact)) {
			t.Errorf("%s filter: search by signs = %v, exact = %v", name, hitIDs(got), hitIDs(exact))
		}
	}
}

func normalize(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	n = math.Sqrt(n)
	for i := range v {
		v[i] = float32(float64(v[i]) / n)
	}
	return v
}
