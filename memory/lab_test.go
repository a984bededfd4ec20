package memory_test

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/memory"
)

// labEmbedder is a client for the real Ollama of OLLAMA_HOST with the model of
// RECALL_TEST_EMBED_MODEL (default mxbai-embed-large); the test is skipped
// without one.
func labEmbedder(t *testing.T) *embedding.Client {
	t.Helper()
	host := strings.TrimSpace(os.Getenv("OLLAMA_HOST"))
	if host == "" {
		t.Skip("runs against a real Ollama: set OLLAMA_HOST (and RECALL_TEST_EMBED_MODEL=mxbai-embed-large-24l)")
	}
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	c, err := embedding.New(embedding.Options{Host: host, EmbedModel: os.Getenv("RECALL_TEST_EMBED_MODEL")})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := c.Check(context.Background()); err != nil || !st.EmbedCapable() {
		t.Skipf("needs embedding model %s at %s: %v", c.Model(), host, err)
	}
	return c
}

// Long memories with the real model's depth on a CPU: reindex with default
// settings finishes and leaves nothing pending (batches adapt to the model).
func TestLabReindexOfLongMemoriesFinishes(t *testing.T) {
	client := labEmbedder(t)
	db := openStore(t)
	keywordsOnly := memory.NewService(db, nil, memory.Options{Logger: quietLogger()})
	r := rand.New(rand.NewPCG(3, 5))
	const n = 20
	for range n {
		if _, err := keywordsOnly.Remember(context.Background(), memory.StoreRequest{Content: benchText(r, 450)}); err != nil {
			t.Fatal(err)
		}
	}
	svc := memory.NewService(db, client, memory.Options{Logger: quietLogger()})
	start := time.Now()
	p, err := svc.Reindex(context.Background(), nil)
	if err != nil || p.Done != n || p.Skipped != 0 {
		t.Fatalf("reindex of %d long memories with %s: %+v, %v", n, client.Model(), p, err)
	}
	t.Logf("%d long memories with %s in %s", n, client.Model(), time.Since(start).Round(time.Millisecond))
}

// A memory stored while Ollama was unreachable is filled by a running
// service once Ollama answers.
func TestLabBackgroundFillEmbedsWhatAStoreMissed(t *testing.T) {
	client := labEmbedder(t)
	db := openStore(t)
	down, err := embedding.New(embedding.Options{Host: "http://127.0.0.1:1", EmbedModel: client.Model()})
	if err != nil {
		t.Fatal(err)
	}
	offline := memory.NewService(db, down, memory.Options{Logger: quietLogger()})
	res, err := offline.Remember(context.Background(), memory.StoreRequest{Content: "Benchmarks run on a quiet machine"})
	if err != nil || !res.EmbeddingPending {
		t.Fatalf("store with Ollama unreachable: %+v, %v", res, err)
	}
	svc := memory.NewService(db, client, memory.Options{Logger: quietLogger()})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { svc.FillInBackground(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	waitUntil(t, "the fill", func() bool {
		n, err := db.CountPendingEmbeddings(ctx)
		return err == nil && n == 0
	})
}

func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
