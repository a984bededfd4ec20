package viewer

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/internal/servicetest"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/sqlite"
	"github.com/recall-mcp/recall/validation"
)

// fixture is the viewer over a real database file and a fake Ollama, as
// recall ui wires it.
type fixture struct {
	mem  *memory.Service
	val  *validation.Service
	db   *sqlite.DB
	path string
	ol   string // the fake Ollama's URL
	fake *ollamatest.Server
	h    http.Handler
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	e := servicetest.New(t)
	return &fixture{mem: e.Mem, val: e.Val, db: e.DB, path: e.Path, ol: e.Ollama.URL(), fake: e.Ollama,
		h: New(Deps{Memory: e.Mem, Validation: e.Val, DB: e.DB, Journal: &capture.Reader{Store: e.DB, Memories: e.Mem}, Logger: e.Log})}
}

// journal is the capture service's journal feed over the fixture's database,
// as recall ui wires it.
func (f *fixture) journal() Journal { return &capture.Reader{Store: f.db, Memories: f.mem} }

// store saves a memory and returns its id.
func (f *fixture) store(t testing.TB, content string, typ memory.Type, ns string) string {
	t.Helper()
	res, err := f.mem.Remember(context.Background(), memory.StoreRequest{Content: content, Type: typ, Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	return res.ID
}

// do sends a request as the viewer's own page would (Host 127.0.0.1).
func (f *fixture) do(t testing.TB, method, target, body string, header map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, r)
	req.Host = "127.0.0.1:28000"
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, req)
	return w
}

// decode reads a JSON answer, failing the test on a status other than want.
func decode[T any](t testing.TB, w *httptest.ResponseRecorder, want int) T {
	t.Helper()
	var v T
	if w.Code != want {
		t.Fatalf("status %d, want %d; body %s", w.Code, want, w.Body)
	}
	if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
		t.Fatalf("decoding %s: %v", w.Body, err)
	}
	return v
}

// ids lists the ids of a page's memories.
func ids(p page) []string {
	out := make([]string, len(p.Memories))
	for i, m := range p.Memories {
		out[i] = m.ID
	}
	return out
}

// newLoopbackServer serves the viewer on 127.0.0.1 and returns its base URL.
func newLoopbackServer(t testing.TB, f *fixture) string {
	t.Helper()
	srv := httptest.NewServer(f.h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// otherProcess opens the fixture's database file a second time, with its own
// pool and services, as a hook or the CLI in another process would.
func (f *fixture) otherProcess(t testing.TB) *memory.Service {
	t.Helper()
	db, err := sqlite.Open(context.Background(), f.path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	client, err := embedding.New(embedding.Options{Host: f.ol})
	if err != nil {
		t.Fatal(err)
	}
	return memory.NewService(db, client, memory.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

var testMemorySeq int

// newTestMemory is a distinct memory ready for sqlite.InsertMemory.
func newTestMemory() *memory.Memory {
	testMemorySeq++
	now := time.Now().UTC()
	content := fmt.Sprintf("bulk note %d", testMemorySeq)
	return &memory.Memory{ID: memory.NewID(now), Content: content, ContentHash: memory.ContentHash(content), Type: memory.TypeSession,
		Namespace: memory.GlobalNamespace, Importance: 0.5, Confidence: 0.3, Metadata: map[string]any{}, CreatedAt: now, UpdatedAt: now, AccessedAt: now}
}
