// Package servicetest wires Recall's services for tests as recall serve wires
// them: a real database file, a fake Ollama speaking its HTTP API, the memory
// and validation services over both, and a log that says nothing.
package servicetest

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/sqlite"
	"github.com/recall-mcp/recall/validation"
)

// Env is one test's services.
type Env struct {
	Path   string // the database file
	DB     *sqlite.DB
	Ollama *ollamatest.Server
	Client *embedding.Client
	Mem    *memory.Service
	Val    *validation.Service
	Log    *slog.Logger
}

// New opens a fresh database in the test's temporary folder and wires the
// services over it; everything is closed when the test ends.
func New(t testing.TB) *Env {
	t.Helper()
	path := filepath.Join(t.TempDir(), "recall.db")
	db, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := Over(t, db)
	e.Path = path
	return e
}

// Over wires the services over a database the caller opened (and closes).
func Over(t testing.TB, db *sqlite.DB) *Env {
	t.Helper()
	ol := ollamatest.New(t)
	client, err := embedding.New(embedding.Options{Host: ol.URL()})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	mem := memory.NewService(db, client, memory.Options{Logger: log})
	return &Env{DB: db, Ollama: ol, Client: client, Mem: mem, Log: log,
		Val: validation.New(db, mem, client, client, validation.Options{Logger: log})}
}

// Seed writes records into db in one import, then gives every memory the
// fake Ollama's vector for its text, staged and swapped in as a reindex does
// (one transaction per 2000): fast enough for benchmarks of 100k memories.
func Seed(tb testing.TB, db *sqlite.DB, rec memory.Records) {
	tb.Helper()
	ctx := context.Background()
	if _, err := db.Import(ctx, rec); err != nil {
		tb.Fatal(err)
	}
	space := memory.EmbeddingSpace{Model: ollamatest.DefaultEmbedModel, Dimension: ollamatest.DefaultDimension}
	if _, err := db.BeginReindex(ctx, space); err != nil {
		tb.Fatal(err)
	}
	for start := 0; start < len(rec.Memories); start += 2000 {
		batch := map[string][]float32{}
		for _, m := range rec.Memories[start:min(start+2000, len(rec.Memories))] {
			batch[m.ID] = ollamatest.Vector(m.Content, space.Dimension)
		}
		if err := db.StageVectors(ctx, batch); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := db.FinishReindex(ctx); err != nil {
		tb.Fatal(err)
	}
}
