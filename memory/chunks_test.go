package memory_test

import (
	"context"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

// A memory longer than the model's context is scored by its best part: words
// far past the first 512 tokens (which Ollama reads alone) still reach it by
// vector.
func TestLongMemoryIsEmbeddedInParts(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	long := "Deployment notes for the billing service. " + strings.Repeat("filler words about nothing much ", 300) +
		"Finally: autoscaling clusters shrink at night to save money."
	res := e.remember(t, memory.StoreRequest{Content: long})
	if res.EmbeddingPending {
		t.Fatal("stored without vectors")
	}
	if _, err := e.svc.FillPendingEmbeddings(ctx); err != nil {
		t.Fatal(err)
	}
	query := e.ollama.Vector("autoscaling clusters at night")
	whole, err := e.db.SearchVector(ctx, query, memory.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := e.db.SearchChunks(ctx, query, memory.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 1 || parts[0].ID != res.ID {
		t.Fatalf("part hits %+v, want the long memory", parts)
	}
	for _, h := range whole {
		if h.ID == res.ID && h.Score >= parts[0].Score {
			t.Errorf("the first part scores %.3f, its best part %.3f: the tail should match better", h.Score, parts[0].Score)
		}
	}
}

func TestLaterPartsCoverTheTextAndFit(t *testing.T) {
	e := newEnv(t)
	text := strings.Repeat("word ", 2000) // 10,000 bytes
	res := e.remember(t, memory.StoreRequest{Content: text})
	if _, err := e.svc.FillPendingEmbeddings(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The fake counts a token per word and refuses nothing; every part it was
	// sent must fit its 512-token context.
	for _, in := range e.ollama.Inputs() {
		if n := len(strings.Fields(in)); n > 512 && in != strings.TrimSpace(text) {
			t.Errorf("a part of %d words was sent", n)
		}
	}
	hits, err := e.db.SearchChunks(context.Background(), e.ollama.Vector("word"), memory.Filter{IDs: []string{res.ID}}, 1)
	if err != nil || len(hits) != 1 {
		t.Fatalf("the parts of a 10,000-byte memory: %+v, %v", hits, err)
	}
}
