package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/internal/benchreport"
	"github.com/recall-mcp/recall/keywords"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/postgres/pgtest"
)

var hybridWords = strings.Fields(`cache redis postgres sqlite index query latency deploy build test
	lint format commit branch merge review release config token secret user session
	request response handler router server client worker queue job retry timeout
	error panic log metric trace span context budget vector embedding keyword search
	decision preference file path directory module package import export version`)

// benchCorpus is how the benchmark's memories and queries draw their words
// (RECALL_BENCH_CORPUS):
//   - "uniform" (the default) draws them evenly from hybridWords' 60, so
//     each word is in about a fifth of the memories: every query's words
//     are too common to be searched past the keyword window.
//   - "zipf" draws them from zipfWords' 5,000 by Zipf's law (s = 1.1), as
//     the words of real text fall: a dozen words are in most memories, most
//     words in a few dozen, and most queries hold a word rare enough to be
//     searched past the window.
func benchCorpus() string {
	if c := os.Getenv("RECALL_BENCH_CORPUS"); c != "" {
		return c
	}
	return "uniform"
}

// zipfWords are 5,000 made-up words (consonant, vowel, consonant, vowel,
// consonant: the stemmer leaves them whole), none a stop word.
var zipfWords = func() []string {
	const consonants, vowels, last = "bfgklmnprtvz", "aeiou", "bfgklmnprtz"
	var out []string
	for i := 0; len(out) < 5000; i++ {
		// 7919 is prime to the 39,600 words there are: each comes once,
		// and words of neighbouring ranks differ in their first letters.
		j := i * 7919
		w := string([]byte{consonants[j%12], vowels[j/12%5], consonants[j/60%12], vowels[j/720%5], last[j/3600%11]})
		if len(keywords.Terms(w)) == 1 {
			out = append(out, w)
		}
	}
	return out
}()

// hybridText is words words of the benchmark's corpus, drawn with r.
func hybridText(r *rand.Rand, words int) string {
	parts := make([]string, words)
	if benchCorpus() == "zipf" {
		z := rand.NewZipf(r, 1.1, 1, uint64(len(zipfWords)-1))
		for i := range parts {
			parts[i] = zipfWords[z.Uint64()]
		}
		return strings.Join(parts, " ")
	}
	for i := range parts {
		parts[i] = hybridWords[r.IntN(len(hybridWords))]
	}
	return strings.Join(parts, " ")
}

// benchVectors tells whether the seeded memories have vectors
// (RECALL_BENCH_VECTORS=0 seeds words only, for a million memories).
func benchVectors() bool { return os.Getenv("RECALL_BENCH_VECTORS") != "0" }

// BenchmarkHybridRecall is memory_recall_tool's search (10 results, hybrid,
// the fake Ollama answering the query's vector) on PostgreSQL, every memory
// with a 1024-d vector: warm in one process, with and without a namespace,
// and as the first search of a fresh process (open, one recall, close), as a
// hook or a CLI call runs it; then keyword-only, and one store's latency
// (the memory with its vector, committed). The seeded schema is kept
// (recall_bench_hybrid_<n>) for the next run. RECALL_BENCH_VECTORS=0 seeds
// words only and runs the keyword searches and stores;
// RECALL_BENCH_CORPUS=zipf draws the words by Zipf's law (benchCorpus).
//
//	RECALL_BENCH_MEMORIES=100000 go test -tags sqlite_fts5 ./storage/postgres/ -run '^$' -bench HybridRecall -benchtime 50x
//	RECALL_BENCH_MEMORIES=100000 RECALL_BENCH_CORPUS=zipf go test -tags sqlite_fts5 ./storage/postgres/ -run '^$' -bench HybridRecall -benchtime 50x
//	RECALL_BENCH_MEMORIES=1000000 RECALL_BENCH_VECTORS=0 go test -tags sqlite_fts5 ./storage/postgres/ -run '^$' -bench HybridRecall -benchtime 50x
func BenchmarkHybridRecall(b *testing.B) {
	n := benchMemories()
	u := cachedHybridSchema(b, n)
	vectors := benchVectors()
	srv := ollamatest.New(b)
	emb, err := embedding.New(embedding.Options{Host: srv.URL(), EmbedModel: ollamatest.DefaultEmbedModel})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	recall := func(svc *memory.Service, r *rand.Rand, ns string, want string) {
		res, err := svc.Recall(ctx, memory.RecallRequest{Query: hybridText(r, 3), Namespace: ns, NResults: 10})
		if err != nil || len(res.Memories) == 0 || res.SearchMode != want {
			b.Fatalf("recall: %+v, %v", res, err)
		}
	}
	b.Run(fmt.Sprintf("memories=%d/fresh-process", n), func(b *testing.B) {
		if !vectors {
			b.Skip("no vectors seeded")
		}
		r := rand.New(rand.NewPCG(4, 4))
		var lat benchreport.Latencies
		for b.Loop() {
			lat.Time(func() {
				db, err := Open(ctx, u)
				if err != nil {
					b.Fatal(err)
				}
				recall(memory.NewService(db, emb, memory.Options{}), r, "", memory.SearchHybrid)
				db.Close()
			})
		}
		lat.Report(b, 90)
	})
	db, err := Open(ctx, u)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	hybrid := memory.NewService(db, emb, memory.Options{})
	keyword := memory.NewService(db, nil, memory.Options{})
	for _, c := range []struct {
		name string
		svc  *memory.Service
		ns   string
		mode string
	}{{"hybrid", hybrid, "", memory.SearchHybrid}, {"hybrid/namespace=project:a", hybrid, "project:a", memory.SearchHybrid}, {"keyword", keyword, "", memory.SearchKeyword}} {
		b.Run(fmt.Sprintf("memories=%d/warm/%s", n, c.name), func(b *testing.B) {
			if !vectors && c.mode == memory.SearchHybrid {
				b.Skip("no vectors seeded")
			}
			r := rand.New(rand.NewPCG(3, 3))
			recall(c.svc, r, c.ns, c.mode) // the process's first search
			var lat benchreport.Latencies
			for b.Loop() {
				lat.Time(func() { recall(c.svc, r, c.ns, c.mode) })
			}
			lat.Report(b, 90)
			benchreport.ReportRSS(b)
		})
	}
	b.Run(fmt.Sprintf("memories=%d/store", n), func(b *testing.B) {
		r := rand.New(rand.NewPCG(5, uint64(time.Now().UnixNano())))
		var lat benchreport.Latencies
		for i := 0; b.Loop(); i++ {
			content := fmt.Sprintf("%s (stored %d at %d)", hybridText(r, 12), i, time.Now().UnixNano())
			var vec []float32
			if vectors {
				vec = ollamatest.Vector(content, ollamatest.DefaultDimension)
			}
			m := &memory.Memory{ID: memory.NewID(time.Now()), Content: content, Type: memory.TypeDecision,
				Namespace: "project:a", Importance: 0.5, Confidence: memory.DefaultConfidence}
			lat.Time(func() {
				if _, _, err := db.InsertMemory(ctx, m, vec); err != nil {
					b.Fatal(err)
				}
			})
			// The seeded count stays n for the next run.
			if _, err := db.pool.Exec(ctx, `DELETE FROM memories WHERE id = $1`, m.ID); err != nil {
				b.Fatal(err)
			}
		}
		lat.Report(b, 90)
	})
}

// cachedHybridSchema returns a URL whose schema holds n memories with the
// fake Ollama's vectors, seeding it on first use: rows copied in bulk, then
// the HNSW index built over them (minutes at 100k).
func cachedHybridSchema(b *testing.B, n int) string {
	b.Helper()
	base := pgtest.URL(b)
	ctx := context.Background()
	name := fmt.Sprintf("recall_bench_hybrid_%d", n)
	if !benchVectors() {
		name = fmt.Sprintf("recall_bench_words_%d", n)
	}
	if c := benchCorpus(); c != "uniform" {
		name += "_" + c
	}
	pu, err := url.Parse(base)
	if err != nil {
		b.Fatal(err)
	}
	q := pu.Query()
	q.Set("search_path", name+",public")
	pu.RawQuery = q.Encode()
	u := pu.String()

	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	var have int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_indexes WHERE schemaname = $1 AND indexname IN ('memories_embedding', 'memories_search_words')`, name).Scan(&have); err == nil && (have == 2 || have == 1 && !benchVectors()) {
		var count int
		if conn.QueryRow(ctx, `SELECT count(*) FROM `+name+`.memories`).Scan(&count) == nil && count == n {
			return u
		}
	}
	if _, err := conn.Exec(ctx, `DROP SCHEMA IF EXISTS `+name+` CASCADE; CREATE SCHEMA `+name); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	db, err := Open(ctx, u)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	dim := ollamatest.DefaultDimension
	if _, err := db.ClaimEmbeddingSpace(ctx, memory.EmbeddingSpace{Model: ollamatest.DefaultEmbedModel, Dimension: dim}); err != nil {
		b.Fatal(err)
	}
	// Indexes are built after the rows are in, as a bulk load does.
	if _, err := db.pool.Exec(ctx, `DROP INDEX memories_embedding; DROP INDEX memories_search_words`); err != nil {
		b.Fatal(err)
	}
	if _, err := db.pool.Exec(ctx, `CREATE UNLOGGED TABLE bench_seed (id text, content text, hash text, typ text, ns text,
		at timestamptz, words text, embedding vector(`+fmt.Sprint(dim)+`))`); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, uint64(n)))
	now := time.Now()
	rows := make([][]any, 0, n)
	for i := range n {
		content := fmt.Sprintf("%s (note %d)", hybridText(r, 8+r.IntN(12)), i)
		at := now.Add(time.Duration(i) * time.Millisecond)
		var vec any
		if benchVectors() {
			vec = vector(ollamatest.Vector(content, dim))
		}
		rows = append(rows, []any{memory.NewID(at), content, memory.ContentHash(content), string(memory.Types[i%5]),
			[]string{"global", "project:a", "project:b"}[i%3], at, memoryWords(content), vec})
	}
	if _, err := db.pool.CopyFrom(ctx, pgx.Identifier{"bench_seed"}, []string{"id", "content", "hash", "typ", "ns", "at", "words", "embedding"},
		pgx.CopyFromRows(rows)); err != nil {
		b.Fatal(err)
	}
	for _, stmt := range []string{
		`INSERT INTO memories (id, content, content_hash, memory_type, namespace, importance, confidence,
			created_at, updated_at, accessed_at, embedding_pending, search_words, embedding)
		SELECT id, content, hash, typ, ns, 0.5, ` + fmt.Sprint(memory.DefaultConfidence) + `, at, at, at, false,
			to_tsvector('` + stemmed + `', words), embedding FROM bench_seed`,
		`DROP TABLE bench_seed`,
		`CREATE INDEX memories_search_words ON memories USING gin (search_words)`,
	} {
		if _, err := db.pool.Exec(ctx, stmt); err != nil {
			b.Fatal(err)
		}
	}
	if benchVectors() {
		// One statement string: the setting holds for the index's connection.
		if _, err := db.pool.Exec(ctx, `SET maintenance_work_mem = '1GB'; CREATE INDEX memories_embedding ON memories USING hnsw (embedding vector_cosine_ops)`); err != nil {
			b.Fatal(err)
		}
	}
	for _, stmt := range []string{
		`VACUUM ANALYZE memories`,
	} {
		if _, err := db.pool.Exec(ctx, stmt); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("seeded %d memories of dimension %d in %v", n, dim, time.Since(start).Round(time.Second))
	return u
}
