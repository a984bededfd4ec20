package memory_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/internal/benchreport"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/sqlite"
)

// Run with: go test -tags sqlite_fts5 ./memory/ -run '^$' -bench . -benchmem
// RECALL_BENCH_LARGE=1 adds 100k memories to BenchmarkRecall (slow to seed).

// benchWords is the vocabulary of generated memories and queries.
var benchWords = strings.Fields(`
	api cache build deploy docker test lint format commit branch merge review
	database index query schema migration table column backup restore replica
	server client request response timeout retry backoff queue worker job
	config flag env secret token auth session cookie header proxy route
	error panic log metric trace alert dashboard latency throughput memory
	golang python typescript rust java shell makefile yaml json toml sqlite
	vector embedding model prompt context budget token golden rule pattern
	decision preference file path directory module package import export
	release version tag changelog pipeline stage cluster node pod service
	frontend backend style layout component render state store event hook`)

func benchText(r *rand.Rand, words int) string {
	parts := make([]string, words)
	for i := range parts {
		parts[i] = benchWords[r.IntN(len(benchWords))]
	}
	return strings.Join(parts, " ")
}

// seedBench stores n generated memories with vectors straight into a new
// database (the fake Ollama's vectors, computed in process) and returns it.
func seedBench(b *testing.B, n int) *sqlite.DB {
	b.Helper()
	ctx := context.Background()
	db := openStore(b)
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
	return db
}

func BenchmarkRemember(b *testing.B) {
	e := newEnv(b)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 7))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		content := fmt.Sprintf("%s (bench %d)", benchText(r, 12), i)
		res, err := e.svc.Remember(ctx, memory.StoreRequest{Content: content, Namespace: "project:bench"})
		if err != nil || res.EmbeddingPending {
			b.Fatalf("%+v, %v", res, err)
		}
	}
}

func BenchmarkRecall(b *testing.B) {
	sizes := []int{1_000, 10_000}
	if os.Getenv("RECALL_BENCH_LARGE") != "" {
		sizes = append(sizes, 100_000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("memories=%d", n), func(b *testing.B) {
			db := seedBench(b, n)
			srv := ollamatest.New(b)
			modes := []struct {
				name string
				emb  memory.Embedder
				want string
			}{
				{"hybrid", newEmbedder(b, srv.URL(), ollamatest.DefaultEmbedModel), memory.SearchHybrid},
				{"keyword", nil, memory.SearchKeyword},
			}
			for _, mode := range modes {
				svc := memory.NewService(db, mode.emb, memory.Options{})
				b.Run(mode.name, func(b *testing.B) {
					ctx := context.Background()
					r := rand.New(rand.NewPCG(3, 3))
					var lat benchreport.Latencies
					for b.Loop() {
						lat.Time(func() {
							res, err := svc.Recall(ctx, memory.RecallRequest{Query: benchText(r, 3)})
							if err != nil || res.SearchMode != mode.want || len(res.Memories) == 0 {
								b.Fatalf("%s: %+v, %v", mode.name, res, err)
							}
						})
					}
					// The median, not the mean: at 100k the first searches of a
					// process use the exact vector scan while the sign index loads.
					lat.Report(b, 90)
					benchreport.ReportRSS(b)
				})
			}
		})
	}
}
