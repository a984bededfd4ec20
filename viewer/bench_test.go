package viewer

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recall-mcp/recall/internal/servicetest"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/sqlite"
)

// Benchmarks of the viewer's server side over 100k memories (with 3 edges
// each), seeded once into a file under os.TempDir() keyed by schema version and
// reused by later runs. Every memory has its vector (the fake Ollama's, of
// mxbai-embed-large's dimension), so a search is the whole hybrid search:
// the query embedded by the fake Ollama in this process (a real one adds its
// own time), the vector and keyword sides, and their fusion. Run:
//
//	go test -tags sqlite_fts5 -run '^$' -bench . -benchtime 200x ./viewer/

const benchMemories = 100_000

var benchWords = strings.Fields(`sqlite cache migration index query vector embedding token schema
deploy docker kubernetes config secret golden rule hook session project namespace import export
search ranking keyword stemmed fusion graph edge supersedes contradicts validate confidence
importance timeout retry backoff journal spool chunk python golang test benchmark viewer
browser server handler route json markdown render layout theme keyboard paging filter`)

func benchSentence(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = benchWords[r.IntN(len(benchWords))]
	}
	return strings.Join(w, " ")
}

func benchID(i int) string { return fmt.Sprintf("mem_%d_%08x", i, i) }

// benchFixture is the viewer over the seeded file, as recall ui wires it.
func benchFixture(b *testing.B) *fixture {
	b.Helper()
	ctx := context.Background()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("recall-viewer-bench-%d-vectors-schema%d.db", benchMemories, sqlite.SchemaVersion()))
	db := openSeeded(b, ctx, path)
	b.Cleanup(func() { db.Close() })
	e := servicetest.Over(b, db)
	return &fixture{mem: e.Mem, val: e.Val, db: db, path: path, ol: e.Ollama.URL(), fake: e.Ollama,
		h: New(Deps{Memory: e.Mem, Validation: e.Val, DB: db, Logger: e.Log})}
}

// openSeeded opens the seeded file, seeding it through storage's bulk import
// (one transaction) when it is missing or incomplete.
func openSeeded(b *testing.B, ctx context.Context, path string) *sqlite.DB {
	if db, err := sqlite.Open(ctx, path); err == nil {
		c, err := db.CountMemories(ctx, memory.Filter{IncludeSuperseded: true})
		if st, serr := db.Stats(ctx); err == nil && serr == nil && c == benchMemories && st.PendingEmbeddings == 0 {
			return db
		}
		db.Close()
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(path + suffix)
	}
	start := time.Now()
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 7))
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var rec memory.Records
	for i := 1; i <= benchMemories; i++ {
		content := benchSentence(r, 8+r.IntN(20)) + ". " + benchSentence(r, 6+r.IntN(12)) + "."
		at := t0.Add(time.Duration(i) * time.Minute)
		rec.Memories = append(rec.Memories, &memory.Memory{ID: benchID(i), Content: content,
			ContentHash: memory.ContentHash(content) + fmt.Sprint(i), Type: memory.Types[i%len(memory.Types)],
			Namespace: memory.GlobalNamespace, Importance: float64(r.IntN(10)) / 10, Confidence: 0.3,
			Metadata: map[string]any{}, CreatedAt: at, UpdatedAt: at, AccessedAt: at})
		for range 3 {
			j := 1 + r.IntN(benchMemories)
			if j != i {
				rec.Edges = append(rec.Edges, memory.Edge{SourceID: benchID(i), TargetID: benchID(j),
					Relation: memory.RelationRelatesTo, Weight: 1, CreatedAt: at})
			}
		}
	}
	servicetest.Seed(b, db, rec) // with every vector: a search is the whole hybrid search
	b.Logf("seeded %d memories in %v", benchMemories, time.Since(start).Round(time.Millisecond))
	return db
}

// benchGet times one GET through the whole handler (security checks included).
func benchGet(b *testing.B, f *fixture, target func(i int) string) {
	b.Helper()
	i := 0
	for b.Loop() {
		w := f.do(b, http.MethodGet, target(i), "", nil)
		if w.Code != http.StatusOK {
			b.Fatalf("GET %s: %d %s", target(i), w.Code, w.Body)
		}
		if i == 0 && !strings.Contains(w.Body.String(), `"id":"mem_`) {
			b.Fatalf("GET %s found nothing: %s", target(i), w.Body)
		}
		i++
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/req")
}

// BenchmarkListFirstPage is the first page the Memories page asks for.
func BenchmarkListFirstPage(b *testing.B) {
	f := benchFixture(b)
	benchGet(b, f, func(int) string { return "/api/memories?limit=50" })
}

// BenchmarkSearch is one search-as-you-type request: two or three words.
func BenchmarkSearch(b *testing.B) {
	f := benchFixture(b)
	r := rand.New(rand.NewPCG(1, 1))
	queries := make([]string, 64)
	for i := range queries {
		queries[i] = strings.ReplaceAll(benchSentence(r, 2+r.IntN(2)), " ", "+")
	}
	benchGet(b, f, func(i int) string { return "/api/memories?limit=50&q=" + queries[i%len(queries)] })
}

// BenchmarkGraphDepth3 is a neighbourhood at the deepest the page allows.
func BenchmarkGraphDepth3(b *testing.B) {
	f := benchFixture(b)
	r := rand.New(rand.NewPCG(2, 2))
	benchGet(b, f, func(int) string { return "/api/memories/" + benchID(1+r.IntN(benchMemories)) + "/graph?depth=3" })
}

// BenchmarkFirstRender loads the page in headless Chromium and reads, from the
// page's own performance timeline, when the first list page was on screen
// (ms-to-list, from the start of the navigation) and when the document was
// parsed (ms-to-dom). Each iteration is a fresh load of a URL the tab has not
// shown (what a person opening the viewer waits for: the browser is running,
// its cache holds what earlier visits kept); BenchmarkFirstRenderReload
// reloads the same URL instead. The browser runs on the same machine as the
// server, and its start is not counted.
func BenchmarkFirstRender(b *testing.B) {
	benchFirstRender(b, func(srv string, i int) chromedp.Action[chromedp.Void] {
		return chromedp.Navigate(fmt.Sprintf("%s/?load=%d", srv, i))
	})
}

func BenchmarkFirstRenderReload(b *testing.B) {
	benchFirstRender(b, func(string, int) chromedp.Action[chromedp.Void] { return chromedp.Reload() })
}

func benchFirstRender(b *testing.B, load func(srv string, i int) chromedp.Action[chromedp.Void]) {
	ctx := newBrowser(b)
	f := benchFixture(b)
	srv := httptest.NewServer(f.h)
	b.Cleanup(srv.Close)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		b.Fatal(err)
	}
	var toList, toDOM float64
	i := 0
	for b.Loop() {
		i++
		err := within(ctx, 30*time.Second,
			load(srv.URL, i),
			chromedp.WaitVisible(chromedp.CSS(`#memories li`)),
		)
		if err != nil {
			st, _ := run(ctx, chromedp.Evaluate[string](`location.href + " | " + document.body.innerText.slice(0, 300)`))
			b.Fatalf("%v; page: %s", err, st)
		}
		list, err := run(ctx, chromedp.Poll[float64](`performance.getEntriesByName("list-rendered")[0]?.startTime`))
		if err != nil {
			b.Fatal(err)
		}
		dom, err := run(ctx, chromedp.Evaluate[float64](`performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd`))
		if err != nil {
			b.Fatal(err)
		}
		toList += list
		toDOM += dom
	}
	b.ReportMetric(toList/float64(b.N), "ms-to-list")
	b.ReportMetric(toDOM/float64(b.N), "ms-to-dom")
}
