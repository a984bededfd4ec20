package memory_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// openStore opens a fresh database file in the test's temporary directory.
func openStore(t testing.TB) *storage.DB {
	t.Helper()
	db, err := storage.Open(context.Background(), filepath.Join(t.TempDir(), "recall.db"))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// newEmbedder talks to the Ollama at base with the given embedding model.
func newEmbedder(t testing.TB, base, model string) memory.Embedder {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	return &ollamaEmbedder{client: api.NewClient(u, &http.Client{Timeout: 10 * time.Second}), model: model, base: base}
}

type ollamaEmbedder struct {
	client *api.Client
	model  string
	base   string
}

func (e *ollamaEmbedder) Model() string { return e.model }

func (e *ollamaEmbedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	resp, err := e.client.Embed(ctx, &api.EmbedRequest{Model: e.model, Input: texts})
	if err != nil {
		var se api.StatusError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("ollama: %w", err)
		}
		return nil, fmt.Errorf("Ollama is not running at %s: %w", e.base, memory.ErrUnavailable)
	}
	return resp.Embeddings, nil
}

func (e *ollamaEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	vecs, err := e.EmbedDocuments(ctx, []string{"Represent this sentence for searching relevant passages: " + text})
	if err != nil {
		return nil, err
	}
	return vecs[0], nil
}

// env is a service over a fresh database and a fake Ollama.
type env struct {
	db     *storage.DB
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
