package memory_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/memory"
)

// storeNotes stores n memories with vectors and returns their ids.
func storeNotes(t *testing.T, e *env, n int, words int) []string {
	t.Helper()
	var ids []string
	for i := range n {
		content := fmt.Sprintf("note %d about deploying containers", i)
		for w := 0; len(strings.Fields(content)) < words; w++ {
			content += fmt.Sprintf(" detail%d", w)
		}
		res := e.remember(t, memory.StoreRequest{Content: content})
		if res.EmbeddingPending {
			t.Fatalf("note %d stored without a vector: %s", i, res.Warning)
		}
		ids = append(ids, res.ID)
	}
	return ids
}

// A reindex that fails midway throws no vector away: the old ones stay in use,
// search stays hybrid, and the next run continues where the first stopped.
func TestReindexKeepsOldVectorsAndResumes(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	const n = 200 // several requests
	storeNotes(t, e, n, 8)
	inputsBefore := len(e.ollama.Inputs())

	// Ollama dies once some memories are done.
	_, err := e.svc.Reindex(ctx, func(p memory.ReindexProgress) {
		if p.Done >= 10 {
			e.ollama.SetFailure("/api/embed", http.StatusInternalServerError, "llama runner process has terminated")
		}
	})
	if err == nil || !strings.Contains(err.Error(), "old vectors stay in use") {
		t.Fatalf("reindex with Ollama failing midway: %v", err)
	}
	st, _ := e.db.Stats(ctx)
	if st.PendingEmbeddings != 0 || st.EmbeddingModel != ollamatest.DefaultEmbedModel {
		t.Fatalf("after a failed reindex: %d pending, space %q; want the old vectors kept", st.PendingEmbeddings, st.EmbeddingModel)
	}
	e.ollama.SetFailure("/api/embed", 0, "")
	res, err := e.svc.Recall(ctx, memory.RecallRequest{Query: "deploying containers"})
	if err != nil || res.SearchMode != memory.SearchHybrid || res.Degraded {
		t.Fatalf("search after a failed reindex: mode %q, degraded %v, %v", res.SearchMode, res.Degraded, err)
	}

	firstRun := len(e.ollama.Inputs()) - inputsBefore
	p, err := e.svc.Reindex(ctx, nil)
	if err != nil || p.Done != n || p.Resumed < 10 {
		t.Fatalf("second reindex: %+v, %v; want all %d done, at least 10 resumed", p, err, n)
	}
	secondRun := len(e.ollama.Inputs()) - inputsBefore - firstRun
	if secondRun > n-p.Resumed+2 { // the rest, a dimension probe and the query above
		t.Errorf("the second run embedded %d texts; %d were left", secondRun, n-p.Resumed)
	}
	if st, _ := e.db.Stats(ctx); st.PendingEmbeddings != 0 {
		t.Errorf("%d pending after the reindex", st.PendingEmbeddings)
	}
}

// Requests are sized by text length and halved on a timeout, so long texts on
// a slow machine all get embedded instead of every batch timing out.
func TestReindexAdaptsBatchesToASlowModel(t *testing.T) {
	db := openStore(t)
	srv := ollamatest.New(t)
	fast, err := embedding.New(embedding.Options{Host: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{db: db, ollama: srv, svc: memory.NewService(db, fast, memory.Options{})}
	const n = 12
	storeNotes(t, e, n, 300)

	// A CPU-bound model: 1 ms a token, and a 1 s timeout per request. One text
	// (300 tokens) takes 300 ms; the first request (four of them, 1.2 s) never
	// finishes, two take 600 ms. The margins are wide enough that a loaded
	// machine's own delays do not time out a single text.
	srv.SetTokenDelay(time.Millisecond)
	slow, err := embedding.New(embedding.Options{Host: srv.URL(), Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	svc := memory.NewService(db, slow, memory.Options{})
	p, err := svc.Reindex(context.Background(), nil)
	if err != nil || p.Done != n || p.Skipped != 0 {
		t.Fatalf("reindex with a slow model: %+v, %v; want all %d embedded", p, err, n)
	}
}

// A single text that takes longer than the whole timeout is left pending and
// counted; the others are embedded.
func TestReindexSkipsATextThatTimesOutAlone(t *testing.T) {
	e := newEnv(t)
	storeNotes(t, e, 3, 8)
	e.remember(t, memory.StoreRequest{Content: strings.Repeat("long words ", 200)})
	// 3 ms a token and a 600 ms timeout: the long text (400 tokens) takes
	// 1.2 s alone, a short one 24 ms, far inside the timeout even when the
	// machine is busy.
	e.ollama.SetTokenDelay(3 * time.Millisecond)
	slow, err := embedding.New(embedding.Options{Host: e.ollama.URL(), Timeout: 600 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	svc := memory.NewService(e.db, slow, memory.Options{})
	p, err := svc.Reindex(context.Background(), nil)
	if err != nil || p.Skipped != 1 || p.Done != 3 {
		t.Fatalf("reindex: %+v, %v; want 3 done and 1 skipped", p, err)
	}
	if st, _ := e.db.Stats(context.Background()); st.PendingEmbeddings != 1 {
		t.Errorf("%d pending, want the one that timed out", st.PendingEmbeddings)
	}
}
