package sqlite

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

// BenchmarkFirstSearch is a short-lived process such as the prompt hook: each
// iteration opens the seeded database afresh, runs one vector search and closes
// it. Run:
//
//	go test -tags sqlite_fts5 -run '^$' -bench FirstSearch -benchtime 5x ./storage/
func BenchmarkFirstSearch(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			seeded := benchDB(b, n) // seeds outside the timing
			path := seeded.Path()
			seeded.Close()
			ctx := context.Background()
			query := unitVector(rand.New(rand.NewPCG(4, 4)), benchDim)
			for b.Loop() {
				db, err := Open(ctx, path)
				if err != nil {
					b.Fatal(err)
				}
				hits, err := db.SearchVector(ctx, query, memory.Filter{}, 10)
				if err != nil || len(hits) != 10 {
					b.Fatalf("SearchVector = %d hits, %v", len(hits), err)
				}
				if err := db.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
