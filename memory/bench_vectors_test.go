package memory_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/internal/benchreport"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/sqlite"
)

// BenchmarkHybridRecall is memory_recall_tool's search (10 results, hybrid,
// the fake Ollama answering) over a file whose every memory has a vector of
// dimension 1024: warm in one process, with and without a namespace, and as
// the first search of a fresh process (open, one recall, close), as a hook or
// a CLI call runs it. The seeded file is kept in the temporary directory.
//
//	RECALL_BENCH_LARGE=1 go test -tags sqlite_fts5 ./memory/ -run '^$' -bench HybridRecall/memories=100000 -benchtime 50x
func BenchmarkHybridRecall(b *testing.B) {
	sizes := []int{10_000}
	if os.Getenv("RECALL_BENCH_LARGE") != "" {
		sizes = append(sizes, 100_000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("memories=%d", n), func(b *testing.B) {
			path := cachedBenchFile(b, n)
			srv := ollamatest.New(b)
			emb := newEmbedder(b, srv.URL(), ollamatest.DefaultEmbedModel)
			ctx := context.Background()
			recall := func(svc *memory.Service, r *rand.Rand, ns string) {
				res, err := svc.Recall(ctx, memory.RecallRequest{Query: benchText(r, 3), Namespace: ns, NResults: 10})
				if err != nil || res.SearchMode != memory.SearchHybrid || len(res.Memories) == 0 {
					b.Fatalf("recall: %+v, %v", res, err)
				}
			}
			b.Run("fresh-process", func(b *testing.B) {
				r := rand.New(rand.NewPCG(4, 4))
				var lat benchreport.Timer
				for b.Loop() {
					lat.Time(func() {
						db, err := sqlite.OpenWith(ctx, path, sqlite.Options{ShortLived: true})
						if err != nil {
							b.Fatal(err)
						}
						recall(memory.NewService(db, emb, memory.Options{}), r, "")
						db.Close()
					})
				}
				lat.Report(b, 90)
			})
			db, err := sqlite.Open(ctx, path)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			svc := memory.NewService(db, emb, memory.Options{})
			for _, ns := range []string{"", "project:a"} {
				b.Run("warm/namespace="+ns, func(b *testing.B) {
					r := rand.New(rand.NewPCG(3, 3))
					recall(svc, r, ns)          // the process's first search
					time.Sleep(2 * time.Second) // a sign copy loading in the background
					var lat benchreport.Timer
					for b.Loop() {
						lat.Time(func() { recall(svc, r, ns) })
					}
					lat.Report(b, 90)
					benchreport.ReportRSS(b)
				})
			}
		})
	}
}

// cachedBenchFile returns the path of a file of n memories with the fake
// Ollama's vectors, seeding it on first use (minutes at 100k).
func cachedBenchFile(b *testing.B, n int) string {
	b.Helper()
	ctx := context.Background()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("recall-bench-hybrid-%d-schema%d.db", n, sqlite.SchemaVersion()))
	if db, err := sqlite.Open(ctx, path); err == nil {
		c, err := db.CountMemories(ctx, memory.Filter{IncludeSuperseded: true})
		db.Close()
		if err == nil && c == n {
			return path
		}
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(path + suffix)
	}
	db, err := sqlite.OpenWith(ctx, path, sqlite.Options{SyncNormal: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	dim := ollamatest.DefaultDimension
	if err := db.ResetEmbeddings(ctx, memory.EmbeddingSpace{Model: ollamatest.DefaultEmbedModel, Dimension: dim}); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, uint64(n)))
	now := time.Now()
	for i := range n {
		content := fmt.Sprintf("%s (note %d)", benchText(r, 8+r.IntN(12)), i)
		at := now.Add(time.Duration(i) * time.Millisecond)
		m := &memory.Memory{
			ID: memory.NewID(at), Content: content, ContentHash: memory.ContentHash(content),
			Type: memory.Types[i%5], Namespace: []string{"global", "project:a", "project:b"}[i%3],
			Importance: 0.5, Confidence: memory.DefaultConfidence, Metadata: map[string]any{},
			CreatedAt: at, UpdatedAt: at, AccessedAt: at,
		}
		if _, _, err := db.InsertMemory(ctx, m, ollamatest.Vector(content, dim)); err != nil {
			b.Fatal(err)
		}
	}
	return path
}
