package hook

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// GuardEmbedder wraps the embedder hooks use so that Ollama can never hold a
// hook past its deadline: every call gets at most timeout; after the first
// failure the process stops asking (recall then runs on keywords alone); and the
// vector of the last query is reused, since a hook searches the same prompt in
// the project and the global namespace.
func GuardEmbedder(inner memory.Embedder, timeout time.Duration) memory.Embedder {
	if inner == nil {
		return nil
	}
	return &guardedEmbedder{inner: inner, timeout: timeout}
}

type guardedEmbedder struct {
	inner   memory.Embedder
	timeout time.Duration

	mu        sync.Mutex
	failed    error
	lastQuery string
	lastVec   []float32
}

func (g *guardedEmbedder) Model() string { return g.inner.Model() }

func (g *guardedEmbedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	if err := g.failure(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	vecs, err := g.inner.EmbedDocuments(ctx, texts)
	return vecs, g.record(ctx, err)
}

func (g *guardedEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	g.mu.Lock()
	if g.lastVec != nil && g.lastQuery == text {
		vec := g.lastVec
		g.mu.Unlock()
		return vec, nil
	}
	g.mu.Unlock()
	if err := g.failure(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	vec, err := g.inner.EmbedQuery(ctx, text)
	if err = g.record(ctx, err); err != nil {
		return nil, err
	}
	g.mu.Lock()
	g.lastQuery, g.lastVec = text, vec
	g.mu.Unlock()
	return vec, nil
}

func (g *guardedEmbedder) failure() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.failed
}

// record remembers a failure; one past the deadline is reported as the model
// service being unavailable, so that recall degrades to keywords.
func (g *guardedEmbedder) record(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		err = fmt.Errorf("%w: no embedding within %s: %v", memory.ErrUnavailable, g.timeout, err)
	}
	g.mu.Lock()
	g.failed = err
	g.mu.Unlock()
	return err
}
