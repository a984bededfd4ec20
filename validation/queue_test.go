package validation_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

// similarNotes are memories alike enough (cosine >= 0.7 with the fake
// embedder) for each to be judged against the others.
func similarNotes(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("database tests use pytest fixtures with a fresh schema per run, variant %d", i)
	}
	return out
}

// A chat model whose replies never parse costs at most three chat calls per
// stored memory, each a failed judgment recorded once, and never stalls the
// queue: every job is done in one pass.
func TestBadReplyModelCostsAtMostThreeChatCallsPerMemory(t *testing.T) {
	var logs bytes.Buffer
	e := newEnv(t, validation.Options{Enabled: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	e.needFake()
	e.fake.SetChat(ollamatest.Ramble)
	const n = 8
	for _, c := range similarNotes(n) {
		e.remember(c, memory.TypePattern, "global")
	}
	before := e.fake.Counts()
	e.jobs.Start(e.ctx)
	if err := e.jobs.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if left := e.pendingJobs(); left != 0 {
		t.Errorf("%d of %d jobs left after one pass: a bad reply must not be retried", left, n)
	}
	c := e.fake.Counts()
	chat, embed := c.ChatCalls-before.ChatCalls, c.EmbedCalls-before.EmbedCalls
	if chat == 0 || chat > 3*n {
		t.Errorf("%d chat calls for %d memories, want 1 to %d", chat, n, 3*n)
	}
	if embed != 0 {
		t.Errorf("%d embed calls by curation; the memories' stored vectors must be used", embed)
	}
	st, err := e.db.Stats(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.ModelHealth) != 1 || st.ModelHealth[0].Role != "chat" || st.ModelHealth[0].Failures != chat ||
		st.ModelHealth[0].LastError != "the chat model's replies do not parse: check RECALL_OLLAMA_CHAT_MODEL" {
		t.Errorf("model health = %+v, want the chat model failing %d times because its replies do not parse", st.ModelHealth, chat)
	}
	if got := strings.Count(logs.String(), "model calls failing"); got != 1 {
		t.Errorf("the failure was logged %d times, want once:\n%s", got, logs.String())
	}
}

// With Ollama down, a job is never dropped: it waits, backing off, and stays
// in the database for the next start; when Ollama answers again it is done,
// and the vector it computed for the pending memory is stored.
func TestJobsBackOffWhileOllamaIsDownAndAreNeverDropped(t *testing.T) {
	e := newEnv(t, validation.Options{Enabled: true})
	e.needFake()
	e.judgeBy(relatesWhen("variant"))
	notes := similarNotes(2)
	first := e.remember(notes[0], memory.TypePattern, "global")

	e.fake.SetFailure("/api/embed", http.StatusServiceUnavailable, "server busy")
	res, err := e.mem.Remember(e.ctx, memory.StoreRequest{Content: notes[1], Type: memory.TypePattern})
	if err != nil || !res.EmbeddingPending {
		t.Fatalf("store with embed failing: %+v, %v", res, err)
	}
	// Many attempts already: the job is still kept, and waits at most an hour.
	if _, err := e.db.SQL().Exec(`UPDATE jobs SET attempts = 40`); err != nil {
		t.Fatal(err)
	}
	e.jobs.Start(e.ctx)
	if err := e.jobs.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The first memory's job is done (no other vector to compare with); the
	// pending one's job cannot embed it and stays.
	if left := e.pendingJobs(); left != 1 {
		t.Fatalf("%d jobs left with Ollama failing, want the pending memory's job kept", left)
	}
	var runAfter string
	var maxAttempts int
	if err := e.db.SQL().QueryRow(`SELECT max(run_after), max(attempts) FROM jobs`).Scan(&runAfter, &maxAttempts); err != nil {
		t.Fatal(err)
	}
	due, _ := time.Parse("2006-01-02T15:04:05.000000000Z", runAfter)
	if wait := time.Until(due); wait < 50*time.Minute || wait > time.Hour+time.Minute {
		t.Errorf("after %d attempts the job waits %v, want the cap of about an hour", maxAttempts, wait)
	}
	st, _ := e.db.Stats(e.ctx)
	if st.RetryingJobs != 1 || !strings.Contains(st.LastJobError, "server busy") || st.OldestJobAt.IsZero() {
		t.Errorf("stats: %d retrying, last error %q, oldest %v", st.RetryingJobs, st.LastJobError, st.OldestJobAt)
	}

	// Ollama is back and the jobs are due: the next start does them.
	e.fake.SetFailure("/api/embed", 0, "")
	if _, err := e.db.SQL().Exec(`UPDATE jobs SET run_after = ''`); err != nil {
		t.Fatal(err)
	}
	e.newService(e.db, validation.Options{Enabled: true})
	e.jobs.Start(e.ctx)
	if err := e.jobs.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if left := e.pendingJobs(); left != 0 {
		t.Errorf("%d jobs left once Ollama answers", left)
	}
	if m := e.get(res.ID); m.EmbeddingPending {
		t.Error("the vector curation computed was thrown away: the memory is still pending")
	}
	if len(e.edges(first.ID, memory.RelationRelatesTo)) != 1 {
		t.Error("the resumed job linked nothing")
	}
}
