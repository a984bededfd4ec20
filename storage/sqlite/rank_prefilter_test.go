package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

// A short-lived process ranks keyword matches in two steps (see rankFTS); the
// result must be the one-step ranking's, whatever the filter keeps.
func TestShortLivedKeywordRankingIsExact(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "recall.db")
	long, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer long.Close()
	for i := range 600 {
		ns := fmt.Sprintf("project:p%d", i%10)
		if i%3 == 0 {
			ns = "global"
		}
		content := fmt.Sprintf("Orders service note %d: cache the orders for %d minutes", i, i%13+1)
		if i%7 == 0 {
			content += " and the orders cache is warm"
		}
		mustInsert(t, long, newMemory(content, ns, memory.TypeDecision), nil)
	}
	short, err := OpenWith(ctx, path, Options{ShortLived: true})
	if err != nil {
		t.Fatal(err)
	}
	defer short.Close()
	for _, f := range []memory.Filter{
		{},
		{Namespaces: []string{"global"}},
		{Namespaces: []string{"project:p3", "global"}},
		{Namespaces: []string{"project:p7"}},
		{Namespaces: []string{"project:none"}},
	} {
		for _, limit := range []int{5, 20, 200} {
			for _, q := range []string{"orders cache minutes", "warm cache", "note 17"} {
				want, err := long.SearchKeyword(ctx, q, f, limit)
				if err != nil {
					t.Fatal(err)
				}
				got, err := short.SearchKeyword(ctx, q, f, limit)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(hitIDs(got), hitIDs(want)) {
					t.Errorf("%q in %v, limit %d: short-lived %v, long-lived %v", q, f.Namespaces, limit, hitIDs(got), hitIDs(want))
				}
			}
		}
	}
}
