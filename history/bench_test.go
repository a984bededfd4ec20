package history

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Sizes of the benchmark corpora; the defaults keep `go test -bench .`
// short, README gives the commands with the sizes the targets name.
var (
	benchMB       = flag.Int("history.mb", 10, "megabytes of transcripts BenchmarkUpdate indexes")
	benchMessages = flag.Int("history.messages", 50000, "messages BenchmarkSearch searches")
	benchSessions = flag.Int("history.sessions", 1000, "sessions BenchmarkRescanUnchanged re-scans")
)

// vocabulary words are drawn Zipf-distributed, as words of real text are:
// the most frequent are the stop words, then words of the trade, then the
// long tail.
var vocabulary = func() []string {
	stop := strings.Fields(`the to of and a in is it you that for we on this be with as not are
		can i at if or but have will should do from what by so an was my me all how`)
	base := []string{"auth", "token", "cache", "redis", "deploy", "migration", "schema", "handler", "router",
		"middleware", "UserService", "TokenStore", "rate", "limiter", "bucket", "test", "failing", "error",
		"timeout", "retry", "config", "docker", "kubernetes", "probe", "index", "query", "sqlite", "vector",
		"embedding", "prompt", "session", "hook", "compaction", "summary", "refactor", "interface", "struct"}
	r := rand.New(rand.NewPCG(1, 2))
	words := append(stop, base...)
	for len(words) < 20000 {
		n := 3 + r.IntN(8)
		w := make([]byte, n)
		for i := range w {
			w[i] = byte('a' + r.IntN(26))
		}
		words = append(words, string(w))
	}
	return words
}()

type corpus struct {
	r    *rand.Rand
	zipf *rand.Zipf
}

func newCorpus(seed uint64) *corpus {
	r := rand.New(rand.NewPCG(seed, seed+1))
	return &corpus{r: r, zipf: rand.NewZipf(r, 1.1, 2, uint64(len(vocabulary)-1))}
}

func (c *corpus) sentence(words int) string {
	b := make([]byte, 0, words*8)
	for i := range words {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, vocabulary[c.zipf.Uint64()]...)
	}
	return string(b)
}

// record is one transcript line as Claude Code writes it: about a third
// prompts, a third assistant text with a tool call, a third tool results
// (which make most of a real transcript's bytes).
func (c *corpus) record(session, cwd string, i int, ts time.Time, toolBytes int) any {
	base := map[string]any{"uuid": fmt.Sprintf("%s-%d", session, i), "parentUuid": fmt.Sprintf("%s-%d", session, i-1),
		"sessionId": session, "cwd": cwd, "version": "2.0.14", "gitBranch": "main", "isSidechain": false,
		"timestamp": ts.Format(time.RFC3339Nano)}
	switch i % 3 {
	case 0:
		base["type"] = "user"
		base["message"] = map[string]any{"role": "user", "content": c.sentence(10 + c.r.IntN(30))}
	case 1:
		base["type"] = "assistant"
		base["message"] = map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "thinking", "thinking": c.sentence(30)},
			map[string]any{"type": "text", "text": c.sentence(20 + c.r.IntN(60))},
			map[string]any{"type": "tool_use", "id": "toolu", "name": "Bash", "input": map[string]any{"command": "go test ./" + vocabulary[c.zipf.Uint64()]}},
		}}
	default:
		base["type"] = "user"
		base["message"] = map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "toolu", "content": c.sentence(toolBytes / 8)},
		}}
	}
	return base
}

// writeCorpus writes sessions of perSession messages under root until
// totalBytes are written or messages messages, whichever comes first (0: no
// bound), and returns the bytes and messages written.
func writeCorpus(tb testing.TB, root string, totalBytes int64, messages, perSession, toolBytes int) (int64, int) {
	tb.Helper()
	c := newCorpus(7)
	var written int64
	n := 0
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for s := 0; (totalBytes == 0 || written < totalBytes) && (messages == 0 || n < messages); s++ {
		project := fmt.Sprintf("/home/dev/project%d", s%20)
		dir := filepath.Join(root, EscapeProject(project))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			tb.Fatal(err)
		}
		session := fmt.Sprintf("%08d-0000-4000-8000-000000000000", s)
		f, err := os.Create(filepath.Join(dir, session+".jsonl"))
		if err != nil {
			tb.Fatal(err)
		}
		w := bufio.NewWriter(f)
		enc := json.NewEncoder(w)
		for i := 0; i < perSession && (messages == 0 || n < messages); i++ {
			if err := enc.Encode(c.record(session, project, i, start.Add(time.Duration(n)*time.Minute), toolBytes)); err != nil {
				tb.Fatal(err)
			}
			n++
		}
		w.Flush()
		info, _ := f.Stat()
		written += info.Size()
		f.Close()
	}
	return written, n
}

func maxRSSMB() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Maxrss) / 1024 // kilobytes on Linux
}

// BenchmarkUpdate indexes -history.mb megabytes of transcripts from scratch
// (keywords; embedding is a separate, background step).
func BenchmarkUpdate(b *testing.B) {
	root := filepath.Join(b.TempDir(), "projects")
	size, msgs := writeCorpus(b, root, int64(*benchMB)<<20, 0, 200, 4000)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		ix, err := OpenForIndexing(context.Background(), filepath.Join(b.TempDir(), "history.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		st, err := ix.Update(context.Background(), UpdateOptions{Root: root})
		if err != nil || st.Messages == 0 {
			b.Fatal(st, err)
		}
		b.StopTimer()
		ix.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(size)/1e6*float64(b.N)/b.Elapsed().Seconds(), "MB/s")
	b.ReportMetric(float64(msgs), "messages")
	b.ReportMetric(maxRSSMB(), "maxrss-MB")
}

// benchIndex returns an index of n generated messages, built once and kept
// in the temporary directory across runs (building 500k messages takes
// minutes); delete recall-history-bench-* there to rebuild.
func benchIndex(b *testing.B, n int) *Index {
	b.Helper()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("recall-history-bench-%d-v%d-c2", n, schemaVersion))
	path := filepath.Join(dir, "history.db")
	if _, err := os.Stat(filepath.Join(dir, "complete")); err != nil {
		os.RemoveAll(dir)
		root := filepath.Join(dir, "projects")
		writeCorpus(b, root, 0, n, 500, 600)
		ix, err := Open(context.Background(), path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ix.Update(context.Background(), UpdateOptions{Root: root}); err != nil {
			b.Fatal(err)
		}
		ix.Close()
		os.RemoveAll(root) // the index is all the benchmark needs
		if err := os.WriteFile(filepath.Join(dir, "complete"), nil, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	ix, err := Open(context.Background(), path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	return ix
}

// benchQueries are searches as agents make them: one to four words, some
// common (the corpus's words are Zipf-distributed), a third of them in one
// project, a fifth with a date bound.
func benchQueries() []Query {
	c := newCorpus(99)
	var queries []Query
	for i := range 50 {
		q := Query{Text: c.sentence(1 + i%4), Context: 3, Threshold: 0.2, MaxResults: 10, IncludeSubagents: true}
		if i%3 == 0 {
			q.Projects = []string{"/home/dev/project3"}
		}
		if i%5 == 0 {
			q.After = time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
		}
		queries = append(queries, q)
	}
	return append(queries, Query{Text: "UserService token", Context: 3, MaxResults: 10}, Query{Text: "deploy", Context: 3, MaxResults: 10})
}

// BenchmarkSearch searches an index of -history.messages messages and
// reports the median and 95th percentile latency of a mix of queries.
func BenchmarkSearch(b *testing.B) {
	ix := benchIndex(b, *benchMessages)
	queries := benchQueries()
	var took []time.Duration
	slowest := map[string]time.Duration{}
	b.ResetTimer()
	for i := range b.N {
		q := queries[i%len(queries)]
		start := time.Now()
		if _, err := ix.Search(context.Background(), q); err != nil {
			b.Fatal(err)
		}
		d := time.Since(start)
		took = append(took, d)
		slowest[q.Text] = max(slowest[q.Text], d)
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "p95-ms")
	for text, d := range slowest {
		if d > 50*time.Millisecond {
			b.Logf("%v for %q", d.Round(time.Millisecond), text)
		}
	}
}

// BenchmarkRescanUnchanged re-scans -history.sessions unchanged sessions.
func BenchmarkRescanUnchanged(b *testing.B) {
	root := filepath.Join(b.TempDir(), "projects")
	writeCorpus(b, root, 0, *benchSessions*10, 10, 300)
	ix, err := Open(context.Background(), filepath.Join(b.TempDir(), "history.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Update(context.Background(), UpdateOptions{Root: root}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		st, err := ix.Update(context.Background(), UpdateOptions{Root: root})
		if err != nil || st.Read != 0 || st.Files != *benchSessions {
			b.Fatal(st, err)
		}
	}
}

var benchVectors = flag.Int("history.vectors", 5000, "embedded messages BenchmarkSearchHybrid searches")

// randomEmbedder gives unit vectors of mxbai-embed-large's dimension; only
// their cost matters here, not their meaning.
type randomEmbedder struct{ r *rand.Rand }

func (e randomEmbedder) Model() string { return "random-1024" }

func (e randomEmbedder) EmbedDocuments(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = e.vector()
	}
	return out, nil
}

func (e randomEmbedder) vector() []float32 {
	v := make([]float32, 1024)
	var norm float64
	for i := range v {
		v[i] = float32(e.r.NormFloat64())
		norm += float64(v[i] * v[i])
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(norm))
	}
	return v
}

// BenchmarkSearchHybrid searches -history.vectors embedded messages by
// keywords and meaning at once.
func BenchmarkSearchHybrid(b *testing.B) {
	root := filepath.Join(b.TempDir(), "projects")
	writeCorpus(b, root, 0, *benchVectors, 500, 600)
	ix, err := Open(context.Background(), filepath.Join(b.TempDir(), "history.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Update(context.Background(), UpdateOptions{Root: root}); err != nil {
		b.Fatal(err)
	}
	emb := randomEmbedder{rand.New(rand.NewPCG(3, 4))}
	if _, err := ix.Embed(context.Background(), emb, 256, 0); err != nil {
		b.Fatal(err)
	}
	c := newCorpus(5)
	var took []time.Duration
	b.ResetTimer()
	for i := range b.N {
		q := Query{Text: c.sentence(1 + i%3), Vector: emb.vector(), Context: 3, Threshold: 0.2, MaxResults: 10, IncludeSubagents: true}
		start := time.Now()
		if _, err := ix.Search(context.Background(), q); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
}
