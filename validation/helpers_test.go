package validation_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/jobs"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/sqlite"
	"github.com/recall-mcp/recall/validation"
)

// clock is a settable time shared by the services of a test.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock on (memories stored later get later times).
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// env is a Recall with a real SQLite file, an Ollama (the in-process fake, or
// the real one named by OLLAMA_HOST) and the curation service under test.
type env struct {
	t      *testing.T
	ctx    context.Context
	path   string
	db     *sqlite.DB
	fake   *ollamatest.Server // nil against a real Ollama
	client *embedding.Client
	mem    *memory.Service
	svc    *validation.Service
	jobs   *jobs.Runner // runs svc's relate jobs
	clock  *clock
}

var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

func newEnv(t *testing.T, opts validation.Options) *env {
	t.Helper()
	e := &env{t: t, ctx: context.Background(), clock: &clock{now: time.Date(2025, 3, 3, 9, 0, 0, 0, time.UTC)}}
	host := strings.TrimSpace(os.Getenv("OLLAMA_HOST"))
	if host == "" {
		e.fake = ollamatest.New(t)
		host = e.fake.URL()
	} else if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	var err error
	if e.client, err = embedding.New(embedding.Options{Host: host}); err != nil {
		t.Fatal(err)
	}
	e.path = filepath.Join(t.TempDir(), "recall.db")
	e.db = e.open()
	e.mem = memory.NewService(e.db, e.client, memory.Options{Logger: quietLog, Now: e.clock.Now})
	e.svc = e.newService(e.db, opts)
	return e
}

// open opens the database file again, as another process would.
func (e *env) open() *sqlite.DB {
	e.t.Helper()
	db, err := sqlite.Open(e.ctx, e.path)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { db.Close() })
	return db
}

// newService builds a curation service on db, plugged into the memory service.
func (e *env) newService(db *sqlite.DB, opts validation.Options) *validation.Service {
	if opts.Logger == nil {
		opts.Logger = quietLog
	}
	if opts.Now == nil {
		opts.Now = e.clock.Now
	}
	if opts.Jobs == nil {
		opts.Jobs = jobs.New(db, jobs.Options{Workers: opts.Workers, Logger: opts.Logger})
	}
	e.jobs = opts.Jobs
	svc := validation.New(db, e.mem, e.client, e.client, opts)
	e.mem.SetCurator(svc)
	return svc
}

// needFake skips a test that scripts the model's answers when running against
// a real Ollama.
func (e *env) needFake() {
	e.t.Helper()
	if e.fake == nil {
		e.t.Skip("scripts the chat model's judgments; skipped against a real Ollama (OLLAMA_HOST is set)")
	}
}

// remember stores a memory and returns it as stored; the clock moves on a
// minute so memories have distinct times in the order stored.
func (e *env) remember(content string, typ memory.Type, ns string) *memory.Memory {
	e.t.Helper()
	res, err := e.mem.Remember(e.ctx, memory.StoreRequest{Content: content, Type: typ, Namespace: ns})
	if err != nil {
		e.t.Fatalf("storing %q: %v", content, err)
	}
	if res.EmbeddingPending {
		e.t.Fatalf("storing %q: no vector: %s", content, res.Warning)
	}
	e.clock.Advance(time.Minute)
	return e.get(res.ID)
}

func (e *env) get(id string) *memory.Memory {
	e.t.Helper()
	m, err := e.db.GetMemory(e.ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return m
}

// setConfidence puts a memory at a confidence directly, as a starting point.
func (e *env) setConfidence(id string, c float64) {
	e.t.Helper()
	if _, err := e.db.UpdateMemory(e.ctx, id, func(m *memory.Memory) error { m.Confidence = c; return nil }); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) outcome(id string, success bool, msg string) *validation.OutcomeResult {
	e.t.Helper()
	res, err := e.svc.Outcome(e.ctx, validation.OutcomeRequest{MemoryID: id, Success: success, ErrorMsg: msg, SessionID: "s1"})
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}

// edges lists the edges of a relation touching id.
func (e *env) edges(id string, rel memory.Relation) []memory.Edge {
	e.t.Helper()
	es, err := e.db.Edges(e.ctx, memory.EdgeQuery{MemoryIDs: []string{id}, Relations: []memory.Relation{rel}})
	if err != nil {
		e.t.Fatal(err)
	}
	return es
}

// pendingJobs counts the curation jobs left in the database.
func (e *env) pendingJobs() int {
	e.t.Helper()
	st, err := e.db.Stats(e.ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	return st.PendingJobs
}

// judgeBy scripts the chat model: answer gets the user prompt and returns the
// reply text.
func (e *env) judgeBy(answer func(prompt string) string) {
	e.fake.SetChat(func(req api.ChatRequest) (string, error) {
		return answer(req.Messages[len(req.Messages)-1].Content), nil
	})
}

// contradictsWhen replies "contradicts" to prompts holding all the words of
// one of the pairs, and "does not" to the rest.
func contradictsWhen(pairs ...[2]string) func(string) string {
	return func(prompt string) string {
		for _, p := range pairs {
			if strings.Contains(prompt, p[0]) && strings.Contains(prompt, p[1]) {
				return `{"contradicts": true, "confidence": 0.9, "reason": "they name opposite choices"}`
			}
		}
		return `{"contradicts": false, "confidence": 0.8, "reason": "compatible"}`
	}
}

// workerGoroutines counts goroutines running the curation pool.
// workersLeftAfter counts worker goroutines until they are back to want, for
// at most a second: a worker has called wg.Done in its deferred call, which is
// what Close waits for, a moment before its goroutine is gone.
func workersLeftAfter(want int) int {
	n := workerGoroutines()
	for deadline := time.Now().Add(time.Second); n != want && time.Now().Before(deadline); n = workerGoroutines() {
		time.Sleep(10 * time.Millisecond)
	}
	return n
}

func workerGoroutines() int {
	buf := make([]byte, 1<<20)
	n := runtime.Stack(buf, true)
	return strings.Count(string(buf[:n]), "validation.(*Service).worker")
}

func ptr[T any](v T) *T { return &v }
