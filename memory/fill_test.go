package memory_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/memory"
)

// waitUntil polls cond; the deadline keeps a broken build from hanging the
// suite and measures nothing.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A hung Ollama holds a store no longer than StoreEmbedTimeout: the memory is
// stored pending, and the warning says why.
func TestStoreWaitsNoLongerThanItsBudget(t *testing.T) {
	db := openStore(t)
	srv := ollamatest.New(t)
	svc := memory.NewService(db, newEmbedder(t, srv.URL(), ollamatest.DefaultEmbedModel), memory.Options{StoreEmbedTimeout: 50 * time.Millisecond})
	srv.SetDelay(10 * time.Second)
	res, err := svc.Remember(context.Background(), memory.StoreRequest{Content: "Release notes are written before the tag"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.EmbeddingPending || !strings.Contains(res.Warning, "RECALL_STORE_EMBED_TIMEOUT") {
		t.Errorf("store against a hung Ollama: pending %v, warning %q; want pending and the setting named", res.EmbeddingPending, res.Warning)
	}
}

// A running service fills a memory stored while Ollama failed once Ollama
// answers again, without a restart.
func TestBackgroundFillEmbedsWhatAStoreMissed(t *testing.T) {
	db := openStore(t)
	srv := ollamatest.New(t)
	svc := memory.NewService(db, newEmbedder(t, srv.URL(), ollamatest.DefaultEmbedModel),
		memory.Options{FillRetry: 10 * time.Millisecond, FillPoll: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { svc.FillInBackground(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	srv.SetFailure("/api/embed", http.StatusInternalServerError, "llama runner process has terminated")
	res, err := svc.Remember(ctx, memory.StoreRequest{Content: "Feature branches are rebased, never merged"})
	if err != nil || !res.EmbeddingPending {
		t.Fatalf("store with embed failing: %+v, %v", res, err)
	}
	pending := func() int {
		st, err := db.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return st.PendingEmbeddings
	}
	srv.SetFailure("/api/embed", 0, "")
	waitUntil(t, "the pending memory to be filled", func() bool { return pending() == 0 })

	found, err := svc.Recall(ctx, memory.RecallRequest{Query: "rebased feature branches"})
	if err != nil || found.SearchMode != memory.SearchHybrid || len(found.Memories) == 0 || found.Memories[0].ID != res.ID {
		t.Errorf("after the fill: %+v, %v", found, err)
	}
}

// With every memory pending, recall says plainly that it searched keywords
// only, and how many memories wait for a vector.
func TestRecallSaysKeywordOnlyWhileEveryMemoryIsPending(t *testing.T) {
	db := openStore(t)
	srv := ollamatest.New(t)
	svc := memory.NewService(db, newEmbedder(t, srv.URL(), ollamatest.DefaultEmbedModel), memory.Options{})
	srv.SetFailure("/api/embed", http.StatusInternalServerError, "llama runner process has terminated")
	for _, c := range []string{"Caching uses Redis with a 5 minute TTL", "Caching of HTTP responses is off in dev"} {
		if _, err := svc.Remember(context.Background(), memory.StoreRequest{Content: c}); err != nil {
			t.Fatal(err)
		}
	}
	srv.SetFailure("/api/embed", 0, "") // Ollama is back, but nothing is embedded yet
	res, err := svc.Recall(context.Background(), memory.RecallRequest{Query: "caching"})
	if err != nil {
		t.Fatal(err)
	}
	if res.SearchMode != memory.SearchKeyword || !res.Degraded || res.PendingEmbeddings != 2 || !strings.Contains(res.Reason, "2 wait for one") {
		t.Errorf("recall with every memory pending: mode %q, degraded %v, pending %d, reason %q; want keyword, degraded, 2 pending",
			res.SearchMode, res.Degraded, res.PendingEmbeddings, res.Reason)
	}
	if len(res.Memories) != 2 {
		t.Errorf("keywords should still find both: %v", ids(res.Memories))
	}
}
