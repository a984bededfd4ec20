package sqlite

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/recall-mcp/recall/keywords"
	"github.com/recall-mcp/recall/memory"
)

// SearchCovering gives exactly the memories a keyword search ranks that hold
// at least the share of the query's words, in the keyword search's order.
func TestSearchCoveringRanksTheMemoriesHoldingTheShare(t *testing.T) {
	db := openTest(t)
	words := []string{"orders", "cached", "minutes", "service", "redis"}
	for i := range 600 {
		var held []string
		for j, w := range words {
			if (i>>j)&1 == 1 {
				held = append(held, w)
			}
		}
		ns := []string{"project:shop", "global", "project:other"}[i%3]
		mustInsert(t, db, newMemory(fmt.Sprintf("note %d about %v", i, held), ns, memory.TypeDecision), nil)
	}
	query := "How many minutes are orders cached in the redis service?"
	checkCovering(t, db, query)
	if n := db.matchCounts.Load(); n != 0 {
		t.Errorf("with %d memories at most, SearchCovering counted the matches %d times first; want none (it ranks them all)", rankWindow, n)
	}
	// Past rankWindow seqs, the matches are counted first (more than
	// rankWindow of them go to SearchKeyword): the same hits.
	if _, err := db.SQL().Exec(`INSERT INTO memories (seq, id, content, content_hash, memory_type, namespace, importance,
			confidence, created_at, updated_at, accessed_at) VALUES (?, 'mem_last', 'an unrelated note', 'h', 'session', 'global', 0.5, 0.3, '', '', '')`,
		rankWindow+1); err != nil {
		t.Fatal(err)
	}
	checkCovering(t, db, query)
	if db.matchCounts.Load() == 0 {
		t.Error("past rankWindow seqs, SearchCovering ranked the matches without counting them")
	}
}

// checkCovering compares SearchCovering with the keyword search's hits that hold the
// share, for several shares, limits and filters.
func checkCovering(t *testing.T, db *DB, query string) {
	t.Helper()
	ctx := context.Background()
	for _, f := range []memory.Filter{{}, {Namespaces: []string{"project:shop", "global"}}} {
		all, err := db.SearchKeyword(ctx, query, f, 1000)
		if err != nil {
			t.Fatal(err)
		}
		ids := hitIDs(all)
		coverage, err := db.KeywordCoverage(ctx, query, ids)
		if err != nil {
			t.Fatal(err)
		}
		for _, share := range []float64{0.4, 0.6, 0.8} {
			var want []string
			for _, id := range ids {
				if coverage[id] >= share {
					want = append(want, id)
				}
			}
			for _, limit := range []int{5, 20, 1000} {
				got, err := db.SearchCovering(ctx, query, share, f, limit)
				if err != nil {
					t.Fatal(err)
				}
				if w := want[:min(limit, len(want))]; !slices.Equal(hitIDs(got), w) {
					t.Errorf("share %.1f, limit %d, namespaces %v: %d hits %v, want %d %v", share, limit, f.Namespaces, len(got), hitIDs(got), len(w), w)
				}
			}
		}
	}
}

func TestCoveringMatchPicksEveryKOfTheWords(t *testing.T) {
	terms := keywords.Terms("orders cached minutes redis")
	got := coveringMatch(terms, 3)
	want := `("orders" AND "cached" AND "minutes") OR ("orders" AND "cached" AND "redis") OR ("orders" AND "minutes" AND "redis") OR ("cached" AND "minutes" AND "redis")`
	if got != want {
		t.Errorf("coveringMatch = %s\nwant %s", got, want)
	}
	for _, c := range []struct {
		n     int
		share float64
		k     int
	}{{5, 0.6, 3}, {3, 0.6, 2}, {4, 0.5, 2}, {1, 0.6, 1}, {10, 0.6, 6}, {3, 1, 3}} {
		if k := wordsToCover(c.n, c.share); k != c.k {
			t.Errorf("wordsToCover(%d, %.1f) = %d, want %d", c.n, c.share, k, c.k)
		}
	}
	if b := binomial(9, 6); b != 84 {
		t.Errorf("binomial(9, 6) = %d, want 84", b)
	}
}
