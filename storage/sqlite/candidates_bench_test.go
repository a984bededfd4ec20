package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

// BenchmarkSignCandidates reports, for several numbers of candidates kept by
// the sign-weighted step, the share of the exact 10 and 40 nearest neighbours
// that the whole search (Hamming distance, sign-weighted step, codes, floats;
// sized by planSearch otherwise) finds (recall@10, recall@40) over
// topic-shaped vectors, with no filter, a namespace of a tenth of the memories
// and that namespace with three types, to choose how many candidates a search
// keeps. Run:
//
//	go test -tags sqlite_fts5 -run '^$' -bench SignCandidates/100k -benchtime 1x ./storage/
func BenchmarkSignCandidates(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			db := seededDB(b, fmt.Sprintf("recall-bench-topics-%d-schema%d.db", n, SchemaVersion()), n, seedTopics)
			defer db.Close()
			ctx := context.Background()
			r := rand.New(rand.NewPCG(3, 3))
			ts := newTopicSpace(rand.New(rand.NewPCG(uint64(n), 1)), max(n/50, 20), benchDim)
			queries := make([][]float32, 20)
			for i := range queries {
				queries[i] = ts.queryVector(r)
			}
			if _, err := db.SearchVector(ctx, queries[0], memory.Filter{}, 10); err != nil {
				b.Fatal(err)
			}
			db.loader.wait()
			for _, f := range []memory.Filter{{}, {Namespaces: []string{"project:api"}}, filteredTopics()} {
				for _, count := range []int{100, 200, 400, 800, 1600} {
					name := fmt.Sprintf("namespaces=%d/types=%d/projected=%d", len(f.Namespaces), len(f.Types), count)
					b.Run(name, func(b *testing.B) {
						var r10, r40 float64
						for b.Loop() {
							r10, r40 = 0, 0
							for _, q := range queries {
								a, c := candidateRecall(b, db, q, f, count)
								r10 += a
								r40 += c
							}
						}
						b.ReportMetric(r10/float64(len(queries)), "recall@10")
						b.ReportMetric(r40/float64(len(queries)), "recall@40")
					})
				}
			}
		})
	}
}

// candidateRecall runs the steps of a search for 40 results keeping projected
// candidates after the sign-weighted step and returns the share of the exact
// 10 and 40 nearest it finds.
func candidateRecall(b *testing.B, db *DB, q []float32, f memory.Filter, projected int) (float64, float64) {
	ctx := context.Background()
	plan := planSearch(40, filtered(f), 0)
	db.signs.mu.Lock()
	seqs := db.signs.candidates(q, f, memory.Principal{}, plan.hamming, projected)
	db.signs.mu.Unlock()
	seqs, err := db.rankByCodes(ctx, q, seqs, plan.exact)
	if err != nil {
		b.Fatal(err)
	}
	list, _ := json.Marshal(seqs)
	rows, err := db.SQL().QueryContext(ctx, `SELECT v.rowid FROM memory_vectors v
		WHERE v.rowid IN (SELECT value FROM json_each(?))
		ORDER BY vec_distance_cosine(v.embedding, ?) LIMIT 40`, string(list), encodeVector(q))
	if err != nil {
		b.Fatal(err)
	}
	var got []int64
	for rows.Next() {
		var s int64
		rows.Scan(&s)
		got = append(got, s)
	}
	rows.Close()
	share := func(k int) float64 {
		want, err := exactNeighbours(ctx, db, q, f, k)
		if err != nil {
			b.Fatal(err)
		}
		found := 0
		for _, w := range want {
			if slices.Contains(got[:min(k, len(got))], w) {
				found++
			}
		}
		return float64(found) / float64(len(want))
	}
	return share(10), share(40)
}

// BenchmarkSignLoad times reading every vector's signs into a fresh copy, what
// a new process does before its searches can use them.
//
//	go test -tags sqlite_fts5 -run '^$' -bench SignLoad/100k -benchtime 5x ./storage/
func BenchmarkSignLoad(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			db := seededDB(b, fmt.Sprintf("recall-bench-topics-%d-schema%d.db", n, SchemaVersion()), n, seedTopics)
			defer db.Close()
			for b.Loop() {
				if err := newSignIndex().load(context.Background(), db.db, n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFirstSearchTopics is a short-lived process (the prompt hook, a CLI
// search) over topic-shaped vectors: each iteration opens the file, runs one
// vector search and closes it, with and without a namespace. Before timing,
// one process loads every sign, which writes the snapshot the others read.
//
//	go test -tags sqlite_fts5 -run '^$' -bench FirstSearchTopics/100k -benchtime 10x ./storage/
func BenchmarkFirstSearchTopics(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			seeded := seededDB(b, fmt.Sprintf("recall-bench-topics-%d-schema%d.db", n, SchemaVersion()), n, seedTopics)
			ctx := context.Background()
			ts := newTopicSpace(rand.New(rand.NewPCG(uint64(n), 1)), max(n/50, 20), benchDim)
			r := rand.New(rand.NewPCG(5, 5))
			if _, err := seeded.SearchVector(ctx, ts.queryVector(r), memory.Filter{}, 10); err != nil {
				b.Fatal(err)
			}
			seeded.loader.wait()
			path := seeded.Path()
			seeded.Close()
			for _, f := range []memory.Filter{{}, {Namespaces: []string{"project:api"}}} {
				b.Run(fmt.Sprintf("namespaces=%d", len(f.Namespaces)), func(b *testing.B) {
					for b.Loop() {
						db, err := Open(ctx, path)
						if err != nil {
							b.Fatal(err)
						}
						hits, err := db.SearchVector(ctx, ts.queryVector(r), f, 40)
						if err != nil || len(hits) != 40 {
							b.Fatalf("SearchVector = %d hits, %v", len(hits), err)
						}
						if err := db.Close(); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
