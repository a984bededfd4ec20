package sqlite

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/recall-mcp/recall/internal/benchreport"
	"github.com/recall-mcp/recall/memory"
)

// topicSpace makes vectors shaped like text embeddings rather than random ones:
// every memory is about one of a number of topics, so its vector is the topic's
// centroid plus noise, and all centroids share a common direction (unrelated
// texts still have a cosine around 0.3). Memories of one topic have cosines of
// about 0.6 to 0.9 with each other.
type topicSpace struct {
	dim       int
	centroids [][]float32
}

func newTopicSpace(r *rand.Rand, topics, dim int) *topicSpace {
	common := unitVector(r, dim)
	ts := &topicSpace{dim: dim}
	for range topics {
		c := unitVector(r, dim)
		for i := range c {
			c[i] += 0.65 * common[i]
		}
		ts.centroids = append(ts.centroids, normalized(c))
	}
	return ts
}

// near is a vector at a random noise level around a random topic's centroid.
func (ts *topicSpace) near(r *rand.Rand, noise float64) []float32 {
	c := ts.centroids[r.IntN(len(ts.centroids))]
	n := unitVector(r, ts.dim)
	v := make([]float32, ts.dim)
	for i := range v {
		v[i] = c[i] + float32(noise)*n[i]
	}
	return normalized(v)
}

// memoryVector is a stored memory's vector: noise 0.35 to 0.8.
func (ts *topicSpace) memoryVector(r *rand.Rand) []float32 { return ts.near(r, 0.35+0.45*r.Float64()) }

// queryVector is a question about some topic: noise 0.5.
func (ts *topicSpace) queryVector(r *rand.Rand) []float32 { return ts.near(r, 0.5) }

func normalized(v []float32) []float32 {
	var n float64
	for _, f := range v {
		n += float64(f) * float64(f)
	}
	n = math.Sqrt(n)
	for i := range v {
		v[i] = float32(float64(v[i]) / n)
	}
	return v
}

// exactNeighbours ranks every stored vector with sqlite-vec's exact cosine scan:
// the answer SearchVector must come close to. f may name one namespace and any
// number of types.
func exactNeighbours(ctx context.Context, db *DB, vec []float32, f memory.Filter, k int) ([]int64, error) {
	types := f.Types
	if len(types) == 0 {
		types = []memory.Type{""}
	}
	type hit struct {
		seq      int64
		distance float64
	}
	var all []hit
	for _, typ := range types {
		query := `SELECT rowid, distance FROM memory_vectors WHERE embedding MATCH ? AND k = ?`
		args := []any{encodeVector(vec), k}
		if len(f.Namespaces) > 0 {
			query += ` AND namespace = ?`
			args = append(args, f.Namespaces[0])
		}
		if typ != "" {
			query += ` AND memory_type = ?`
			args = append(args, string(typ))
		}
		rows, err := db.SQL().QueryContext(ctx, query+` ORDER BY distance`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var h hit
			if err := rows.Scan(&h.seq, &h.distance); err != nil {
				rows.Close()
				return nil, err
			}
			all = append(all, h)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(all, func(a, b hit) int { return cmp.Compare(a.distance, b.distance) })
	var seqs []int64
	for _, h := range all[:min(k, len(all))] {
		seqs = append(seqs, h.seq)
	}
	return seqs, nil
}

// recallAt is the share of the exact k nearest that SearchVector returned, over
// the given queries.
func recallAt(ctx context.Context, db *DB, queries [][]float32, namespace string, k int) (float64, error) {
	f := memory.Filter{}
	if namespace != "" {
		f.Namespaces = []string{namespace}
	}
	return recallWith(ctx, db, queries, f, k)
}

// recallWith is recallAt with a filter of at most one namespace and one type.
func recallWith(ctx context.Context, db *DB, queries [][]float32, f memory.Filter, k int) (float64, error) {
	found, total := 0, 0
	for _, q := range queries {
		want, err := exactNeighbours(ctx, db, q, f, k)
		if err != nil {
			return 0, err
		}
		hits, err := db.SearchVector(ctx, q, f, k)
		if err != nil {
			return 0, err
		}
		var got []int64
		for _, h := range hits {
			var seq int64
			if err := db.SQL().QueryRowContext(ctx, `SELECT seq FROM memories WHERE id = ?`, h.ID).Scan(&seq); err != nil {
				return 0, err
			}
			got = append(got, seq)
		}
		for _, w := range want {
			if slices.Contains(got, w) {
				found++
			}
		}
		total += len(want)
	}
	if total == 0 {
		return 0, fmt.Errorf("no neighbours to compare")
	}
	return float64(found) / float64(total), nil
}

func TestSearchVectorRecallOnTopics(t *testing.T) {
	searchBySigns(t)
	ctx := context.Background()
	db := openTest(t)
	const n, dim = 2000, 1024
	r := rand.New(rand.NewPCG(7, 7))
	ts := newTopicSpace(r, 100, dim)
	namespaces := []string{"global", "project:api", "project:web", "project:cli"}
	for i := range n {
		m := newMemory(fmt.Sprintf("memory number %d", i), namespaces[i%len(namespaces)], memory.TypeDecision)
		mustInsert(t, db, m, ts.memoryVector(r))
	}
	queries := make([][]float32, 30)
	for i := range queries {
		queries[i] = ts.queryVector(r)
	}
	for _, ns := range []string{"", "project:web"} {
		// A recall of 10 fuses 40 vector hits; past the 20 of a topic they are
		// near ties, which sign bits order less well.
		for k, want := range map[int]float64{10: 0.99, 40: 0.85} {
			got, err := recallAt(ctx, db, queries, ns, k)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("namespace %q: recall@%d = %.3f", ns, k, got)
			if got < want {
				t.Errorf("namespace %q: recall@%d = %.3f, want at least %.2f", ns, k, got, want)
			}
		}
	}
}

// BenchmarkSearchVectorTopics measures search over topic-shaped vectors and
// reports recall@10 against sqlite-vec's exact scan (1 means every exact
// neighbour was found).
func BenchmarkSearchVectorTopics(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			db := seededDB(b, fmt.Sprintf("recall-bench-topics-%d-schema%d.db", n, SchemaVersion()), n, seedTopics)
			defer db.Close()
			ctx := context.Background()
			r := rand.New(rand.NewPCG(3, 3))
			ts := newTopicSpace(rand.New(rand.NewPCG(uint64(n), 1)), max(n/50, 20), benchDim)
			queries := make([][]float32, 16)
			for i := range queries {
				queries[i] = ts.queryVector(r)
			}
			for _, ns := range []string{"", "project:api", "namespace+types"} {
				name := "all"
				f := memory.Filter{}
				switch ns {
				case "":
				case "namespace+types":
					name, f = ns, filteredTopics()
				default:
					name, f.Namespaces = "namespace", []string{ns}
				}
				b.Run(name, func(b *testing.B) {
					warmVectorSearch(b, db, queries[0])
					i := 0
					for b.Loop() {
						if _, err := db.SearchVector(ctx, queries[i%len(queries)], f, 10); err != nil {
							b.Fatal(err)
						}
						i++
					}
					b.StopTimer()
					benchreport.ReportRSS(b)
					got, err := recallWith(ctx, db, queries, f, 10)
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(got, "recall@10")
				})
			}
		})
	}
}

// seedTopics seeds n memories about n/50 topics (at least 20).
func seedTopics(ctx context.Context, db *DB, n int) error {
	ts := newTopicSpace(rand.New(rand.NewPCG(uint64(n), 1)), max(n/50, 20), benchDim)
	r := rand.New(rand.NewPCG(uint64(n), 2))
	return seedVectors(ctx, db, n, r, func() []float32 { return ts.memoryVector(r) })
}

// A process's copy of the vector signs follows writes made through another
// connection to the same file: new vectors are found, deleted memories are not
// returned, a namespace change moves a memory between filters.
func TestSearchVectorSeesOtherWriters(t *testing.T) {
	searchBySigns(t)
	ctx := context.Background()
	reader := openTest(t)
	writer, err := Open(ctx, reader.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	r := rand.New(rand.NewPCG(9, 9))
	for i := range 50 {
		mustInsert(t, writer, newMemory(fmt.Sprintf("old %d", i), "global", memory.TypeDecision), unitVector(r, 64))
	}
	q := unitVector(r, 64)
	if _, err := reader.SearchVector(ctx, q, memory.Filter{}, 5); err != nil {
		t.Fatal(err)
	}
	fresh := mustInsert(t, writer, newMemory("fresh", "global", memory.TypeDecision), q)
	hits, err := reader.SearchVector(ctx, q, memory.Filter{}, 5)
	if err != nil || len(hits) == 0 || hits[0].ID != fresh.ID {
		t.Fatalf("after insert by another connection: hits %v, %v; want %s first", hitIDs(hits), err, fresh.ID)
	}
	if _, err := writer.UpdateMemory(ctx, fresh.ID, func(m *memory.Memory) error { m.Namespace = "project:x"; return nil }); err != nil {
		t.Fatal(err)
	}
	hits, err = reader.SearchVector(ctx, q, memory.Filter{Namespaces: []string{"project:x"}}, 5)
	if err != nil || len(hits) != 1 || hits[0].ID != fresh.ID {
		t.Fatalf("after namespace change: hits %v, %v; want only %s", hitIDs(hits), err, fresh.ID)
	}
	if err := writer.DeleteMemory(ctx, fresh.ID, false); err != nil {
		t.Fatal(err)
	}
	hits, err = reader.SearchVector(ctx, q, memory.Filter{}, 5)
	if err != nil || len(hits) != 5 || slices.Contains(hitIDs(hits), fresh.ID) {
		t.Fatalf("after delete: hits %v, %v; want 5 without %s", hitIDs(hits), err, fresh.ID)
	}
}

// TestSearchVectorRecallWithFiltersAt30k checks the sign prefilter where it can
// fail: 30k topic-shaped vectors, and a namespace and type filter that leaves
// 3000 of them, more than the 1600 candidates the sign steps keep for k = 10.
func TestSearchVectorRecallWithFiltersAt30k(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 30k vectors")
	}
	searchBySigns(t)
	ctx := context.Background()
	db := openTest(t)
	const n = 30_000
	if err := seedTopics(ctx, db, n); err != nil {
		t.Fatal(err)
	}
	f := filteredTopics()
	inFilter, err := db.CountMemories(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	if keep := planSearch(10, true, 0).projected; inFilter <= keep {
		t.Fatalf("the filter keeps %d vectors, not more than the %d the sign steps keep: the test could not fail", inFilter, keep)
	}
	ts := newTopicSpace(rand.New(rand.NewPCG(n, 1)), n/50, benchDim)
	r := rand.New(rand.NewPCG(3, 3))
	queries := make([][]float32, 40)
	for i := range queries {
		queries[i] = ts.queryVector(r)
	}
	for _, filter := range []memory.Filter{{}, f} {
		got, err := recallWith(ctx, db, queries, filter, 10)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("filter %v %v: recall@10 = %.3f", filter.Namespaces, filter.Types, got)
		if got < 0.99 {
			t.Errorf("filter %v %v: recall@10 = %.3f, want at least 0.99", filter.Namespaces, filter.Types, got)
		}
	}
}

// filteredTopics is a namespace and three types: 3000 of 30k seeded memories,
// 10000 of 100k (seedVectors gives memory i namespace i%10 and type i%6, so
// namespace 3 holds only these odd types: the type filter is applied by both
// searches but keeps the whole namespace, the most vectors a filter can leave).
func filteredTopics() memory.Filter {
	return memory.Filter{Namespaces: []string{benchNamespaces[3]}, Types: []memory.Type{memory.Types[1], memory.Types[3], memory.Types[5]}}
}
