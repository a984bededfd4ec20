package capture_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/jobs"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/sqlite"
)

type summaryFixture struct {
	db     *sqlite.DB
	ollama *ollamatest.Server
	mem    *memory.Service
	sum    *capture.Summarizer
	rec    *capture.Recorder
	jobs   *jobs.Runner // runs sum's jobs, as recall serve does
}

func newSummaryFixture(t *testing.T, maxCalls int) *summaryFixture {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "recall.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ol := ollamatest.New(t)
	client, err := embedding.New(embedding.Options{Host: ol.URL(), Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	mem := memory.NewService(db, client, memory.Options{Logger: log})
	f := &summaryFixture{db: db, ollama: ol, mem: mem, rec: &capture.Recorder{Store: db},
		sum:  &capture.Summarizer{Store: db, Judge: client, Memories: mem, MaxCalls: maxCalls, Logger: log},
		jobs: jobs.New(db, jobs.Options{Workers: 1, Logger: log})}
	f.jobs.Handle(capture.SummaryJobKind, f.sum.Run)
	return f
}

// drain runs the jobs that are due, as recall serve does until it stops.
func (f *summaryFixture) drain(t *testing.T) {
	t.Helper()
	f.jobs.Start(context.Background())
	if err := f.jobs.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// summaryJob is the state of session s1's summary job in the queue.
type summaryJob struct {
	pending, failed int
	attempts        int
	lastError       string
}

func (f *summaryFixture) job(t *testing.T) summaryJob {
	t.Helper()
	var j summaryJob
	err := f.db.SQL().QueryRow(`SELECT count(*) FILTER (WHERE failed_at = ''), count(*) FILTER (WHERE failed_at != ''),
		coalesce(max(attempts), 0), coalesce(max(last_error), '') FROM jobs WHERE kind = 'summary' AND subject = 's1'`).
		Scan(&j.pending, &j.failed, &j.attempts, &j.lastError)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// makeDue makes waiting jobs due at once, as time passing would.
func (f *summaryFixture) makeDue(t *testing.T) {
	t.Helper()
	if _, err := f.db.SQL().Exec(`UPDATE jobs SET run_after = ''`); err != nil {
		t.Fatal(err)
	}
}

// sessionMemories lists the session memories of project:shop.
func (f *summaryFixture) sessionMemories(t *testing.T) []*memory.Memory {
	t.Helper()
	res, err := f.mem.List(context.Background(), memory.ListRequest{Namespace: "project:shop", Type: memory.TypeSession})
	if err != nil {
		t.Fatal(err)
	}
	return res.Memories
}

var anchor = capture.Anchor{Namespace: "project:shop", SessionID: "s1", TurnID: "turn-1", TranscriptPath: "/t/s1.jsonl"}

func (f *summaryFixture) work(t *testing.T, prompt string) {
	t.Helper()
	ctx := context.Background()
	if _, err := f.rec.Prompt(ctx, anchor, prompt); err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(map[string]string{"command": "go test ./orders"})
	if _, err := f.rec.Observation(ctx, anchor, capture.Tool{Name: "Bash", Input: in, Response: json.RawMessage(`{"stdout":"ok orders"}`)}); err != nil {
		t.Fatal(err)
	}
	if err := f.db.QueueSummary(ctx, "s1", "stop", "turn-1"); err != nil {
		t.Fatal(err)
	}
}

func reply(title string, bullets ...string) string {
	b, _ := json.Marshal(map[string]any{"title": title, "bullets": bullets})
	return string(b)
}

func TestSummaryBecomesJournalEntryAndSessionMemory(t *testing.T) {
	ctx := context.Background()
	f := newSummaryFixture(t, 5)
	f.work(t, "Cache the order list in Redis")
	f.ollama.QueueReplies(reply("Cached the order list in Redis", "Added a Redis cache to orders", "go test ./orders passes"))
	f.drain(t)

	sums, err := recentSummaries(ctx, f.db, "project:shop", 5)
	if err != nil || len(sums) != 1 {
		t.Fatalf("summaries: %v %v", sums, err)
	}
	s := sums[0]
	if s.Title != "Cached the order list in Redis" || !strings.Contains(s.Body, "- Added a Redis cache") || s.TurnID != "turn-1" || s.MemoryID == "" {
		t.Fatalf("summary entry %+v", s)
	}
	// The model's summary replaced the extractive one in the same memory.
	ms := f.sessionMemories(t)
	if len(ms) != 1 || ms[0].ID != s.MemoryID {
		t.Fatalf("session memories %+v, want the one summary %s", ms, s.MemoryID)
	}
	m := ms[0]
	if m.Importance != capture.SummaryImportance || m.Metadata["session_id"] != "s1" || m.Metadata["journal_through"] == nil ||
		m.Metadata["summary"] != capture.SummaryModel || !strings.HasPrefix(m.Content, "Session summary: Cached the order list") ||
		m.Source != memory.SourceCapture {
		t.Fatalf("session memory %+v", m)
	}
	prompt := f.ollama.ChatRequests()[0].Messages[1].Content
	if !strings.Contains(prompt, "USER ASKED: Cache the order list in Redis") || !strings.Contains(prompt, "TOOL Bash: go test ./orders") {
		t.Fatalf("summary prompt:\n%s", prompt)
	}
	if j := f.job(t); j.pending != 0 || j.failed != 0 {
		t.Fatalf("the job was not removed after its summary: %+v", j)
	}

	// The next summary covers only what came after.
	f.work(t, "Now the billing export")
	f.ollama.QueueReplies(reply("Billing export", "Looked at billing"))
	f.drain(t)
	prompt = f.ollama.ChatRequests()[1].Messages[1].Content
	if strings.Contains(prompt, "Redis") || !strings.Contains(prompt, "billing export") {
		t.Fatalf("second summary prompt repeats the first:\n%s", prompt)
	}
	if n := len(f.sessionMemories(t)); n != 2 {
		t.Fatalf("%d session memories after two summaries, want 2", n)
	}
}

// Without a chat model a session still gets a summary, made from its journal.
func TestExtractiveSummaryWithoutChatModel(t *testing.T) {
	ctx := context.Background()
	f := newSummaryFixture(t, 5)
	f.sum.Judge = nil
	if _, err := f.rec.Prompt(ctx, anchor, "Fix the flaky checkout test"); err != nil {
		t.Fatal(err)
	}
	bash := func(cmd, resp string) {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		if _, err := f.rec.Observation(ctx, anchor, capture.Tool{Name: "Bash", Input: in, Response: json.RawMessage(resp)}); err != nil {
			t.Fatal(err)
		}
	}
	bash("go test ./checkout", `{"stdout":"--- FAIL: TestCheckout (0.01s)\n    checkout_test.go:41: total = 9, want 10\nFAIL","stderr":""}`)
	in, _ := json.Marshal(map[string]string{"file_path": "/src/shop/checkout/total.go", "old_string": "a", "new_string": "b"})
	if _, err := f.rec.Observation(ctx, anchor, capture.Tool{Name: "Edit", Input: in, Response: json.RawMessage(`{"filePath":"/src/shop/checkout/total.go"}`)}); err != nil {
		t.Fatal(err)
	}
	bash("go test ./checkout", `{"stdout":"ok  shop/checkout 0.02s\n0 failures","stderr":""}`)
	if err := f.db.QueueSummary(ctx, "s1", "stop", ""); err != nil {
		t.Fatal(err)
	}
	f.drain(t)

	ms := f.sessionMemories(t)
	if len(ms) != 1 {
		t.Fatalf("%d session memories, want the extractive summary", len(ms))
	}
	m := ms[0]
	for _, want := range []string{
		"Session summary: Fix the flaky checkout test",
		"Asked: Fix the flaky checkout test",
		"`go test ./checkout` → failed: --- FAIL: TestCheckout (0.01s)",
		"`go test ./checkout` → ok",
		"Changed: checkout/total.go",
		"Errors: Bash: --- FAIL: TestCheckout",
		"- 1 prompt, 3 tool calls (extractive summary, no chat model)",
	} {
		if !strings.Contains(m.Content, want) {
			t.Errorf("extractive summary lacks %q:\n%s", want, m.Content)
		}
	}
	if m.Metadata["summary"] != capture.SummaryExtractive || len(f.ollama.ChatRequests()) != 0 {
		t.Errorf("metadata.summary = %v after %d chat calls, want extractive and none", m.Metadata["summary"], len(f.ollama.ChatRequests()))
	}
	if sums, _ := recentSummaries(ctx, f.db, "project:shop", 5); len(sums) != 1 || sums[0].MemoryID != m.ID {
		t.Errorf("journal summaries %+v, want one pointing at %s", sums, m.ID)
	}
	if j := f.job(t); j.pending != 0 || j.failed != 0 {
		t.Errorf("job left after an extractive summary with no chat model: %+v", j)
	}
}

func TestSummaryCallsPerSessionAreCapped(t *testing.T) {
	f := newSummaryFixture(t, 1)
	f.work(t, "first piece of work")
	f.ollama.QueueReplies(reply("First", "one"))
	f.drain(t)
	f.work(t, "second piece of work")
	f.drain(t)
	if n := len(f.ollama.ChatRequests()); n != 1 {
		t.Fatalf("%d chat calls with a cap of 1", n)
	}
	if j := f.job(t); j.pending != 0 {
		t.Fatalf("job over the cap still queued: %+v", j)
	}
	ms := f.sessionMemories(t)
	if len(ms) != 2 {
		t.Fatalf("%d session memories, want the model's and, over the cap, an extractive one", len(ms))
	}
}

// Ollama away or slow never drops a summary job, however many attempts it
// took: the extractive summary stands meanwhile and the model's replaces it
// when the model answers, in a later run (a restart) too.
func TestSummaryWaitsWhileOllamaIsDownAndIsNeverDropped(t *testing.T) {
	ctx := context.Background()
	f := newSummaryFixture(t, 5)
	f.work(t, "work while the model is away")
	f.ollama.SetFailure("/api/chat", http.StatusServiceUnavailable, "server overloaded")
	f.drain(t)
	if es, _ := f.db.SessionEntries(ctx, "s1", 0, 10); len(es) != 2 {
		t.Fatalf("observations lost: %d", len(es))
	}
	j := f.job(t)
	if j.pending != 1 || j.failed != 0 || !strings.Contains(j.lastError, "server overloaded") {
		t.Fatalf("the summary does not wait for a retry: %+v", j)
	}
	ms := f.sessionMemories(t)
	if len(ms) != 1 || ms[0].Metadata["summary"] != capture.SummaryExtractive {
		t.Fatalf("session memories while Ollama is down: %+v, want the extractive summary", ms)
	}
	draftID := ms[0].ID

	// Many attempts later it is still kept.
	if _, err := f.db.SQL().Exec(`UPDATE jobs SET attempts = 40`); err != nil {
		t.Fatal(err)
	}
	f.makeDue(t)
	f.drain(t)
	if j := f.job(t); j.pending != 1 || j.attempts != 41 {
		t.Fatalf("after 41 attempts: %+v, want the job kept", j)
	}

	// The model is back; a new process (a restart) runs the job.
	f.ollama.SetFailure("/api/chat", 0, "")
	f.ollama.QueueReplies(reply("Work done while the model was away", "It waited"))
	f.makeDue(t)
	next := jobs.New(f.db, jobs.Options{Workers: 1})
	next.Handle(capture.SummaryJobKind, f.sum.Run)
	next.Start(ctx)
	if err := next.Close(ctx); err != nil {
		t.Fatal(err)
	}
	ms = f.sessionMemories(t)
	if len(ms) != 1 || ms[0].ID != draftID || ms[0].Metadata["summary"] != capture.SummaryModel ||
		!strings.Contains(ms[0].Content, "Work done while the model was away") {
		t.Fatalf("session memories once the model answers: %+v, want %s replaced by the model's summary", ms, draftID)
	}
	if j := f.job(t); j.pending != 0 || j.failed != 0 {
		t.Fatalf("job left once summarised: %+v", j)
	}
}

// A reply that does not parse, or says nothing, is not asked for again (at
// temperature 0 it would be the same): the job fails for good, on record, and
// the extractive summary stays the session's summary.
func TestSummaryReplyThatCannotBeUsedFailsForGoodOnRecord(t *testing.T) {
	for name, bad := range map[string]string{
		"not JSON": "this is not JSON",
		"empty":    `{"title": "", "bullets": [""]}`, // what a model of random weights answers
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			f := newSummaryFixture(t, 5)
			f.work(t, "some work")
			f.ollama.QueueReplies(bad)
			f.drain(t)
			if p, _ := f.db.SummaryProgress(ctx, "s1"); p.ModelCalls != 1 {
				t.Errorf("failed call counted %d times, want 1", p.ModelCalls)
			}
			j := f.job(t)
			if j.pending != 0 || j.failed != 1 || j.lastError == "" {
				t.Fatalf("job %+v, want it failed for good with its cause", j)
			}
			st, _ := f.db.Stats(ctx)
			if st.FailedJobs != 1 || !strings.Contains(st.LastJobFailure, "summary job for s1 failed for good") {
				t.Errorf("stats: %d failed, last %q", st.FailedJobs, st.LastJobFailure)
			}
			sums, _ := recentSummaries(ctx, f.db, "project:shop", 5)
			ms := f.sessionMemories(t)
			if len(sums) != 1 || len(ms) != 1 || sums[0].MemoryID != ms[0].ID || ms[0].Metadata["summary"] != capture.SummaryExtractive {
				t.Fatalf("summaries %+v, memories %+v: want the extractive one kept", sums, ms)
			}
			// A later Stop of the session queues a new job beside the record.
			f.work(t, "more work")
			if j := f.job(t); j.pending != 1 || j.failed != 1 {
				t.Fatalf("after a new Stop: %+v", j)
			}
		})
	}
}

func TestSummaryInterruptedAtShutdownIsHandedBack(t *testing.T) {
	ctx := context.Background()
	f := newSummaryFixture(t, 5)
	f.work(t, "work summarised while the server stops")
	f.ollama.SetDelay(time.Minute) // the chat model never answers in time
	f.jobs.Start(ctx)
	// The worker claims the job (its first attempt) and waits on the model.
	for deadline := time.Now().Add(10 * time.Second); f.job(t).attempts == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the worker did not claim the summary job within 10 s")
		}
	}
	closeCtx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if err := f.jobs.Close(closeCtx); err == nil {
		t.Fatal("Close with a job in flight past its deadline should say the job was interrupted")
	}
	if j := f.job(t); j.pending != 1 || j.failed != 0 {
		t.Fatalf("interrupted job not handed back: %+v", j)
	}
}

// An Edit's response is the patch as a JSON object: the title names the file
// and leaves the JSON out; the body keeps it.
func TestObservationTitleLeavesOutJSONResponses(t *testing.T) {
	f := newSummaryFixture(t, 5)
	in, _ := json.Marshal(map[string]string{"file_path": "/src/shop/orders.go", "old_string": "ttl := 0", "new_string": "ttl := 5"})
	resp := json.RawMessage(`{"filePath":"/src/shop/orders.go","oldString":"ttl := 0","newString":"ttl := 5","structuredPatch":[]}`)
	e, err := f.rec.Observation(context.Background(), anchor, capture.Tool{Name: "Edit", Input: in, Response: resp})
	if err != nil {
		t.Fatal(err)
	}
	if e.Title != "Edit: /src/shop/orders.go" {
		t.Errorf("title = %q, want the tool and its file alone", e.Title)
	}
	if !strings.Contains(e.Body, `"structuredPatch"`) {
		t.Errorf("body lost the response: %q", e.Body)
	}
}

// recentSummaries reads the newest summaries of a namespace straight from
// the database (the store has no such query: session start lists sessions).
func recentSummaries(ctx context.Context, db *sqlite.DB, namespace string, limit int) ([]*capture.Entry, error) {
	rows, err := db.SQL().QueryContext(ctx, `SELECT id FROM journal WHERE namespace = ? AND kind = 'summary'
		ORDER BY created_at DESC, id DESC LIMIT ?`, namespace, limit)
	if err != nil {
		return nil, err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	return db.Entries(ctx, ids)
}
