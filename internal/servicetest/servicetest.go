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
	"github.com/recall-mcp/recall/storage"
	"github.com/recall-mcp/recall/validation"
)

// Env is one test's services.
type Env struct {
	Path   string // the database file
	DB     *storage.DB
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
	db, err := storage.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := Over(t, db)
	e.Path = path
	return e
}

// Over wires the services over a database the caller opened (and closes).
func Over(t testing.TB, db *storage.DB) *Env {
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
