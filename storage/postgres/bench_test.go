package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/postgres/pgtest"
	"github.com/recall-mcp/recall/storage/sqlite"
)

// benchMemories is how many memories the search benchmarks hold
// (RECALL_BENCH_MEMORIES, 10000 by default); benchDim their dimension.
func benchMemories() int {
	if n, err := strconv.Atoi(os.Getenv("RECALL_BENCH_MEMORIES")); err == nil && n > 0 {
		return n
	}
	return 10000
}

const benchDim = 1024

// seedBench fills a fresh schema with n memories of 1024-d random vectors in
// ten namespaces, words drawn from a small vocabulary so that keyword
// searches match hundreds, then builds the HNSW index (as a bulk load would).
func seedBench(b *testing.B, n int) *DB {
	b.Helper()
	ctx := context.Background()
	db, err := Open(ctx, pgtest.Schema(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if _, err := db.ClaimEmbeddingSpace(ctx, memory.EmbeddingSpace{Model: "bench", Dimension: benchDim}); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	for _, q := range []string{
		`DROP INDEX memories_embedding`,
		fmt.Sprintf(`INSERT INTO memories (id, content, content_hash, memory_type, namespace, importance,
			confidence, created_at, updated_at, accessed_at, embedding_pending, search_words, embedding)
		SELECT 'mem_' || i || '_0', c, md5(c), 'decision', 'project:p' || (i %% 10), 0.5, 0.3, now(), now(), now(), false,
			to_tsvector('recall_stemmed', c),
			(SELECT array_agg(random() - 0.5) FROM generate_series(1, %d) WHERE i IS NOT NULL)::vector
		FROM (SELECT i, 'note ' || i || ' about topic' || (i %% 997) || ' and word' || (i %% 31) || ' with cache' || (i %% 7) AS c
			FROM generate_series(1, %d) i) s`, benchDim, n),
		`SET maintenance_work_mem = '256MB'`,
		`CREATE INDEX memories_embedding ON memories USING hnsw (embedding vector_cosine_ops)`,
		`VACUUM ANALYZE memories`,
	} {
		if _, err := db.pool.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("seeded %d memories of dimension %d in %v", n, benchDim, time.Since(start).Round(time.Second))
	return db
}

func randomVector(r *rand.Rand) []float32 {
	v := make([]float32, benchDim)
	for i := range v {
		v[i] = float32(r.Float64() - 0.5)
	}
	return v
}

// BenchmarkSearch times the store's two searches at benchMemories().
//
//	RECALL_BENCH_MEMORIES=100000 go test -tags sqlite_fts5 ./storage/postgres/ -run '^$' -bench Search -count 3
func BenchmarkSearch(b *testing.B) {
	pgtest.URL(b)
	db := seedBench(b, benchMemories())
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	b.Run("keyword", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := db.SearchKeyword(ctx, fmt.Sprintf("topic%d word%d", i%997, i%31), memory.Filter{}, 10); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("vector", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.SearchVector(ctx, randomVector(r), memory.Filter{}, 10); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("vector-in-a-namespace", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.SearchVector(ctx, randomVector(r), memory.Filter{Namespaces: []string{"project:p3"}}, 10); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkStore times acknowledged stores (a memory with its 1024-d vector,
// committed) from 16 writers across 4 open stores, as four servers would:
// on PostgreSQL, and on one SQLite file in the same run (synchronous=FULL,
// as Recall opens it). On PostgreSQL all-indexed-s is the time from the
// first store until the last vector is in the HNSW index.
//
//	go test -tags sqlite_fts5 ./storage/postgres/ -run '^$' -bench Store -benchtime 2000x -count 3
func BenchmarkStore(b *testing.B) {
	type inserter interface {
		InsertMemory(ctx context.Context, m *memory.Memory, vec []float32) (*memory.Memory, bool, error)
		ClaimEmbeddingSpace(ctx context.Context, space memory.EmbeddingSpace) (memory.EmbeddingSpace, error)
		Close() error
	}
	ctx := context.Background()
	run := func(b *testing.B, open func() inserter) {
		var dbs []inserter
		for range 4 {
			db := open()
			defer db.Close()
			dbs = append(dbs, db)
		}
		if _, err := dbs[0].ClaimEmbeddingSpace(ctx, memory.EmbeddingSpace{Model: "bench", Dimension: benchDim}); err != nil {
			b.Fatal(err)
		}
		var next atomic.Int64
		var wg sync.WaitGroup
		b.ResetTimer()
		start := time.Now()
		for w := range 16 {
			db := dbs[w%4]
			r := rand.New(rand.NewPCG(uint64(w), 7))
			wg.Go(func() {
				for {
					i := next.Add(1)
					if i > int64(b.N) {
						return
					}
					content := fmt.Sprintf("stored memory %d of writer %d", i, w)
					m := &memory.Memory{ID: memory.NewID(time.Now()) + strconv.FormatInt(i, 16), Content: content,
						Type: memory.TypeDecision, Namespace: "global", Importance: 0.5, Confidence: 0.3}
					if _, _, err := db.InsertMemory(ctx, m, randomVector(r)); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "stores/s")
		// On PostgreSQL the vectors reach the HNSW index behind the
		// acknowledgements (index.go): how long until the last one is in.
		if pg, ok := dbs[0].(*DB); ok {
			for {
				left, err := pg.CountStagedVectors(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if left == 0 {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			b.ReportMetric(time.Since(start).Seconds(), "all-indexed-s")
		}
	}
	b.Run("postgres", func(b *testing.B) {
		u := pgtest.Schema(b)
		run(b, func() inserter {
			db, err := Open(ctx, u)
			if err != nil {
				b.Fatal(err)
			}

			return db
		})
	})
	b.Run("sqlite", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "recall.db")
		run(b, func() inserter {
			db, err := sqlite.Open(ctx, path)
			if err != nil {
				b.Fatal(err)
			}
			return db
		})
	})
}
