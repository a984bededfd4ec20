package hook

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// askedEmbedder records the queries it is asked for and answers each when
// release is closed, or fails with its context's error.
type askedEmbedder struct {
	asked   chan string
	release chan struct{}
	ended   chan error // the context error of a query that never got its answer
}

func newAskedEmbedder() *askedEmbedder {
	return &askedEmbedder{asked: make(chan string, 10), release: make(chan struct{}), ended: make(chan error, 10)}
}

func (e *askedEmbedder) Model() string { return "test" }
func (e *askedEmbedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	return nil, errors.New("not for documents")
}
func (e *askedEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	e.asked <- text
	select {
	case <-e.release:
		return []float32{float32(len(text))}, nil
	case <-ctx.Done():
		e.ended <- ctx.Err()
		return nil, ctx.Err()
	}
}

func TestPrefetchQueryAsksBeforeTheSearchDoes(t *testing.T) {
	inner := newAskedEmbedder()
	e := PrefetchQuery(context.Background(), inner, "orders cache")
	// Asked at once, before anyone wants the vector.
	select {
	case got := <-inner.asked:
		if got != "orders cache" {
			t.Fatalf("asked for %q", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Ollama not asked before the vector is wanted")
	}
	close(inner.release)
	vec, err := e.EmbedQuery(context.Background(), "orders cache")
	if err != nil || len(vec) != 1 || vec[0] != float32(len("orders cache")) {
		t.Fatalf("EmbedQuery = %v, %v", vec, err)
	}
	select {
	case q := <-inner.asked:
		t.Fatalf("asked Ollama again for %q; the prefetched vector should answer", q)
	default:
	}
	// Any other text goes to Ollama.
	if vec, err := e.EmbedQuery(context.Background(), "another text"); err != nil || vec[0] != float32(len("another text")) {
		t.Fatalf("EmbedQuery(other) = %v, %v", vec, err)
	}
}

func TestPrefetchQueryStopsWhenNobodyWaits(t *testing.T) {
	inner := newAskedEmbedder()
	e := PrefetchQuery(context.Background(), inner, "orders cache")
	<-inner.asked
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the keyword search found nothing: the vector is not wanted
	if _, err := e.EmbedQuery(ctx, "orders cache"); !errors.Is(err, context.Canceled) {
		t.Fatalf("EmbedQuery with its context over = %v", err)
	}
	select {
	case err := <-inner.ended:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the request to Ollama ended with %v, want it cancelled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the request to Ollama goes on although nobody waits for its vector")
	}
}

func TestPromptQueryIsWhatThePromptHookSearches(t *testing.T) {
	if _, ok := PromptQuery(&Input{Prompt: "  go on  "}); ok {
		t.Error("a short prompt gets a query")
	}
	if q, ok := PromptQuery(&Input{Prompt: "  How long are orders cached?\n"}); !ok || q != "How long are orders cached?" {
		t.Errorf("PromptQuery = %q, %v", q, ok)
	}
	long := strings.Repeat("word ", memory.MaxQueryBytes)
	if q, ok := PromptQuery(&Input{Prompt: long}); !ok || len(q) > memory.MaxQueryBytes {
		t.Errorf("a long prompt's query has %d bytes, want at most %d", len(q), memory.MaxQueryBytes)
	}
}
