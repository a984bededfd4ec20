package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/recall-mcp/recall/internal/benchreport"
	"github.com/recall-mcp/recall/memory"
)

// Benchmarks search over 1k, 10k and 100k memories with 1024-dimension vectors.
// Each size is seeded once into a file under os.TempDir() and reused by later
// runs; 100k is seeded only when -bench selects it. Run:
//
//	go test -tags sqlite_fts5 -run '^$' -bench . -benchtime 200x ./storage/

const benchDim = 1024

var benchSizes = []int{1_000, 10_000, 100_000}

// benchNamespaces are spread evenly over the seeded memories.
var benchNamespaces = []string{"global", "project:api", "project:web", "project:cli", "project:infra",
	"project:docs", "project:ml", "project:mobile", "project:data", "project:ops"}

// benchDB opens the seeded database of n memories, seeding it on first use.
func benchDB(b *testing.B, n int) *DB {
	// The schema version is in the name: benches of other builds keep their own files.
	return seededDB(b, fmt.Sprintf("recall-bench-%d-schema%d.db", n, SchemaVersion()), n, seedBench)
}

// seededDB opens the file of n memories under os.TempDir(), seeding it on first use.
func seededDB(b *testing.B, name string, n int, seed func(ctx context.Context, db *DB, n int) error) *DB {
	b.Helper()
	ctx := context.Background()
	path := filepath.Join(os.TempDir(), name)
	if db, err := Open(ctx, path); err == nil {
		if c, err := db.CountMemories(ctx, memory.Filter{IncludeSuperseded: true}); err == nil && c == n {
			return db
		}
		db.Close()
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(path + suffix)
	}
	start := time.Now()
	db, err := Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	if err := seed(ctx, db, n); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded %d memories in %v", n, time.Since(start).Round(time.Millisecond))
	return db
}

// seedBench writes n memories with random unit vectors in one transaction.
func seedBench(ctx context.Context, db *DB, n int) error {
	r := rand.New(rand.NewPCG(uint64(n), 42))
	return seedVectors(ctx, db, n, r, func() []float32 { return unitVector(r, benchDim) })
}

// seedVectors writes n memories with the vectors next returns in one transaction.
func seedVectors(ctx context.Context, db *DB, n int, r *rand.Rand, next func() []float32) error {
	if err := db.ResetEmbeddings(ctx, memory.EmbeddingSpace{Model: "bench", Dimension: benchDim}); err != nil {
		return err
	}
	tx, err := db.SQL().BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	insMem, err := tx.PrepareContext(ctx, `INSERT INTO memories (seq, id, content, content_hash, memory_type,
		namespace, importance, confidence, metadata, created_at, updated_at, accessed_at, embedding_pending)
		VALUES (?, ?, ?, ?, ?, ?, ?, 0.3, '{}', ?, ?, ?, 0)`)
	if err != nil {
		return err
	}
	insVec, err := tx.PrepareContext(ctx, `INSERT INTO memory_vectors (rowid, embedding, namespace, memory_type, importance)
		VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 1; i <= n; i++ {
		content := fmt.Sprintf("%s. %s.", randomSentence(r, 8+r.IntN(20)), randomSentence(r, 6+r.IntN(12)))
		at := formatTime(t0.Add(time.Duration(i) * time.Minute))
		ns := benchNamespaces[i%len(benchNamespaces)]
		typ := string(memory.Types[i%len(memory.Types)])
		imp := float64(r.IntN(10)) / 10
		id := "mem_" + strconv.Itoa(i) + "_bench"
		if _, err := insMem.ExecContext(ctx, i, id, content, memory.ContentHash(content)+strconv.Itoa(i), typ, ns, imp, at, at, at); err != nil {
			return err
		}
		vec := next()
		if _, err := insVec.ExecContext(ctx, i, encodeVector(vec), ns, typ, imp); err != nil {
			return err
		}
		if err := putSigns(ctx, tx, int64(i), vec); err != nil {
			return err
		}
		if err := putCode(ctx, tx, int64(i), vec); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func BenchmarkSearchKeyword(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			db := benchDB(b, n)
			defer db.Close()
			r := rand.New(rand.NewPCG(1, 1))
			queries := make([]string, 64)
			for i := range queries {
				queries[i] = randomSentence(r, 3)
			}
			for _, f := range []struct {
				name string
				f    memory.Filter
			}{{"all", memory.Filter{}}, {"namespace", memory.Filter{Namespaces: []string{"project:api"}}}} {
				b.Run(f.name, func(b *testing.B) {
					ctx := context.Background()
					i := 0
					for b.Loop() {
						if _, err := db.SearchKeyword(ctx, queries[i%len(queries)], f.f, 10); err != nil {
							b.Fatal(err)
						}
						i++
					}
					benchreport.ReportRSS(b)
				})
			}
		})
	}
}

func BenchmarkSearchVector(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			db := benchDB(b, n)
			defer db.Close()
			r := rand.New(rand.NewPCG(2, 2))
			queries := make([][]float32, 16)
			for i := range queries {
				queries[i] = unitVector(r, benchDim)
			}
			for _, f := range []struct {
				name string
				f    memory.Filter
			}{{"all", memory.Filter{}}, {"namespace", memory.Filter{Namespaces: []string{"project:api"}}}} {
				b.Run(f.name, func(b *testing.B) {
					ctx := context.Background()
					warmVectorSearch(b, db, queries[0])
					i := 0
					for b.Loop() {
						hits, err := db.SearchVector(ctx, queries[i%len(queries)], f.f, 10)
						if err != nil || len(hits) != 10 {
							b.Fatalf("SearchVector = %d hits, %v", len(hits), err)
						}
						i++
					}
					benchreport.ReportRSS(b)
				})
			}
		})
	}
}

// warmVectorSearch runs one search outside the timing and waits for the
// background load of the signs it starts: later searches read only what changed.
// It reports how long that first search took.
func warmVectorSearch(b *testing.B, db *DB, query []float32) {
	b.Helper()
	start := time.Now()
	if _, err := db.SearchVector(context.Background(), query, memory.Filter{}, 10); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000, "first-search-ms")
	db.loader.wait()
}

func sizeName(n int) string {
	if n >= 1000 {
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}

// BenchmarkInsertMemory stores one memory with its vector (computed beforehand:
// the embedding is not timed) into the seeded databases; the memories it adds
// are deleted afterwards so the seeded file stays reusable.
func BenchmarkInsertMemory(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			db := benchDB(b, n)
			defer db.Close()
			ctx := context.Background()
			r := rand.New(rand.NewPCG(8, 8))
			var lat benchreport.Latencies
			var ids []string
			for i := 0; b.Loop(); i++ {
				m := newMemory(fmt.Sprintf("%s (insert bench %d)", randomSentence(r, 16), i), benchNamespaces[i%len(benchNamespaces)], memory.TypeDecision)
				vec := unitVector(r, benchDim)
				lat.Time(func() {
					if _, _, err := db.InsertMemory(ctx, m, vec); err != nil {
						b.Fatal(err)
					}
				})
				ids = append(ids, m.ID)
			}
			b.StopTimer()
			lat.Report(b, 90)
			for _, id := range ids {
				if err := db.DeleteMemory(ctx, id, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkKeywordCoverage is the keyword half of judging a match: the share
// of a 4-word query each of 20 candidates holds.
func BenchmarkKeywordCoverage(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			db := benchDB(b, n)
			defer db.Close()
			ctx := context.Background()
			r := rand.New(rand.NewPCG(6, 6))
			ids := make([]string, 20)
			for i := range ids {
				ids[i] = "mem_" + strconv.Itoa(1+r.IntN(n)) + "_bench"
			}
			var lat benchreport.Latencies
			for b.Loop() {
				lat.Time(func() {
					if _, err := db.KeywordCoverage(ctx, randomSentence(r, 4), ids); err != nil {
						b.Fatal(err)
					}
				})
			}
			lat.Report(b, 90)
		})
	}
}
