package memory_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
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

// heldEmbedder holds its first document embedding until released, as a slow
// Ollama holds a store's.
type heldEmbedder struct {
	memory.Embedder
	once    sync.Once
	held    chan struct{} // closed once the first call waits
	release chan struct{}
}

func (h *heldEmbedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	first := false
	h.once.Do(func() { first = true })
	if first {
		close(h.held)
		<-h.release
	}
	return h.Embedder.EmbedDocuments(ctx, texts)
}

// A memory is pending from its insert until its store has its vector; the
// background fill running meanwhile (at a server's start, or woken by another
// store) leaves it to its store instead of embedding it a second time.
func TestTheFillLeavesAMemoryToTheStoreEmbeddingIt(t *testing.T) {
	db := openStore(t)
	srv := ollamatest.New(t)
	emb := &heldEmbedder{Embedder: newEmbedder(t, srv.URL(), ollamatest.DefaultEmbedModel), held: make(chan struct{}), release: make(chan struct{})}
	svc := memory.NewService(db, emb, memory.Options{})
	ctx := context.Background()
	const content = "Release notes are written before the tag"
	stored := make(chan *memory.StoreResult, 1)
	go func() {
		res, err := svc.Remember(ctx, memory.StoreRequest{Content: content})
		if err != nil {
			t.Error(err)
		}
		stored <- res
	}()
	<-emb.held
	if n, err := svc.FillPendingEmbeddings(ctx); err != nil || n != 0 {
		t.Errorf("the fill while the store embeds: %d filled, %v; want the memory left to its store", n, err)
	}
	close(emb.release)
	res := <-stored
	if res == nil || res.EmbeddingPending {
		t.Fatalf("store: %+v; want its vector", res)
	}
	if n := len(slices.DeleteFunc(srv.Inputs(), func(in string) bool { return in != content })); n != 1 {
		t.Errorf("the memory was embedded %d times, want once", n)
	}
}
