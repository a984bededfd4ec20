package memory_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/sqlite"
)

// openStore opens a fresh database file in the test's temporary directory.
func openStore(t testing.TB) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "recall.db"))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// newEmbedder talks to the Ollama at base with the given embedding model.
func newEmbedder(t testing.TB, base, model string) memory.Embedder {
	t.Helper()
	c, err := embedding.New(embedding.Options{Host: base, EmbedModel: model})
	if err != nil {
		t.Fatalf("embedding client: %v", err)
	}
	return c
}

// env is a service over a fresh database and a fake Ollama.
type env struct {
	db     *sqlite.DB
	ollama *ollamatest.Server
	svc    *memory.Service
}

// newEnv builds a service over a new database with the fake Ollama's default
// embedding model.
func newEnv(t testing.TB, opts ...ollamatest.Option) *env {
	t.Helper()
	db := openStore(t)
	srv := ollamatest.New(t, opts...)
	svc := memory.NewService(db, newEmbedder(t, srv.URL(), ollamatest.DefaultEmbedModel), memory.Options{})
	return &env{db: db, ollama: srv, svc: svc}
}

// remember stores content and fails the test on error.
func (e *env) remember(t testing.TB, req memory.StoreRequest) *memory.StoreResult {
	t.Helper()
	res, err := e.svc.Remember(context.Background(), req)
	if err != nil {
		t.Fatalf("remember %q: %v", req.Content, err)
	}
	return res
}

// ids lists the ids of scored memories in order.
func ids(ms []memory.ScoredMemory) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func ptr[T any](v T) *T { return &v }

// wantInvalid checks that err wraps ErrInvalid and names field.
func wantInvalid(t testing.TB, err error, field string) {
	t.Helper()
	if !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("want an invalid-input error naming %s, got %v", field, err)
	}
	var ie *memory.InvalidError
	if errors.As(err, &ie) && ie.Field != field {
		t.Fatalf("error names field %q, want %q: %v", ie.Field, field, err)
	}
	if !errors.As(err, &ie) {
		t.Fatalf("want a *memory.InvalidError naming %s, got %T %v", field, err, err)
	}
}
