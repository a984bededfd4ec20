package storage

import (
	"context"
	"fmt"
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
	const crowd = 5000 // more than the candidates a filtered search takes (2500 for 5 results)
	for i := range crowd + 12 {
		m := newMemory(fmt.Sprintf("prefilter memory %d", i), "project:crowd", memory.TypeDecision)
		if i >= crowd { // the few that pass each filter
			m.Namespace = "project:small"
			m.Type = memory.TypePattern
			m.Importance = 0.95
		}
		mustInsert(t, db, m, unitVector(r, 64))
	}
	query := unitVector(r, 64)
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
