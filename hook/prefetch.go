package hook

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/recall-mcp/recall/memory"
)

// PromptQuery is what the prompt hook searches for with in's prompt: the
// prompt trimmed and cut to memory.MaxQueryBytes; ok is false for a prompt
// too short to be given memories.
func PromptQuery(in *Input) (query string, ok bool) {
	prompt := strings.TrimSpace(in.Prompt)
	if utf8.RuneCountInString(prompt) < minPromptChars {
		return "", false
	}
	if len(prompt) > memory.MaxQueryBytes {
		prompt = memory.Cut(prompt, memory.MaxQueryBytes)
	}
	return prompt, true
}

// PrefetchQuery asks inner for the vector of query now and returns an
// embedder that answers EmbedQuery(query) with it, and passes every other
// call to inner. A prompt hook asks before it opens the database, so that
// Ollama embeds while the database opens instead of while the hook waits
// for the vector after its keyword search. The request ends with ctx, or
// when the one who asked for the vector stops waiting for it (the keyword
// search found nothing): a vector nobody waits for says nothing about
// Ollama.
func PrefetchQuery(ctx context.Context, inner memory.Embedder, query string) memory.Embedder {
	ctx, cancel := context.WithCancel(ctx)
	p := &prefetched{Embedder: inner, query: query, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.vec, p.err = inner.EmbedQuery(ctx, query)
	}()
	return p
}

type prefetched struct {
	memory.Embedder
	query  string
	cancel context.CancelFunc
	done   chan struct{}
	vec    []float32
	err    error
}

func (p *prefetched) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	if text != p.query {
		return p.Embedder.EmbedQuery(ctx, text)
	}
	select {
	case <-p.done:
		return p.vec, p.err
	case <-ctx.Done():
		p.cancel()
		return nil, ctx.Err()
	}
}
