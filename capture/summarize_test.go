package capture_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

type summaryFixture struct {
	db     *storage.DB
	ollama *ollamatest.Server
	mem    *memory.Service
	sum    *capture.Summarizer
	rec    *capture.Recorder
}

func newSummaryFixture(t *testing.T, maxCalls int) *summaryFixture {
	t.Helper()
	db, err := storage.Open(context.Background(), filepath.Join(t.TempDir(), "recall.db"))
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
	return &summaryFixture{db: db, ollama: ol, mem: mem, rec: &capture.Recorder{Store: db},
		sum: &capture.Summarizer{Store: db, Judge: client, Memories: mem, MaxCalls: maxCalls, Logger: log}}
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

	if worked, err := f.sum.RunOnce(ctx); !worked || err != nil {
		t.Fatalf("RunOnce: %v %v", worked, err)
	}
	sums, err := f.db.RecentSummaries(ctx, "project:shop", 5)
	if err != nil || len(sums) != 1 {
		t.Fatalf("summaries: %v %v", sums, err)
	}
	s := sums[0]
	if s.Title != "Cached the order list in Redis" || !strings.Contains(s.Body, "- Added a Redis cache") || s.TurnID != "turn-1" || s.MemoryID == "" {
		t.Fatalf("summary entry %+v", s)
	}
	m, err := f.mem.Get(ctx, s.MemoryID)
	if err != nil {
		t.Fatal(err)
	}
	if m.Type != memory.TypeSession || m.Importance != capture.SummaryImportance || m.Namespace != "project:shop" ||
		m.Metadata["session_id"] != "s1" || m.Metadata["journal_through"] == nil {
		t.Fatalf("session memory %+v", m)
	}
	prompt := f.ollama.ChatRequests()[0].Messages[1].Content
	if !strings.Contains(prompt, "USER ASKED: Cache the order list in Redis") || !strings.Contains(prompt, "TOOL Bash: go test ./orders") {
		t.Fatalf("summary prompt:\n%s", prompt)
	}
	if worked, _ := f.sum.RunOnce(ctx); worked {
		t.Fatal("the job was not removed after its summary")
	}

	// The next summary covers only what came after.
	f.work(t, "Now the billing export")
	f.ollama.QueueReplies(reply("Billing export", "Looked at billing"))
	if _, err := f.sum.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	prompt = f.ollama.ChatRequests()[1].Messages[1].Content
	if strings.Contains(prompt, "Redis") || !strings.Contains(prompt, "billing export") {
		t.Fatalf("second summary prompt repeats the first:\n%s", prompt)
	}
}

func TestSummaryCallsPerSessionAreCapped(t *testing.T) {
	ctx := context.Background()
	f := newSummaryFixture(t, 1)
	f.work(t, "first piece of work")
	f.ollama.QueueReplies(reply("First", "one"))
	if _, err := f.sum.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	f.work(t, "second piece of work")
	if worked, err := f.sum.RunOnce(ctx); !worked || err != nil {
		t.Fatalf("RunOnce: %v %v", worked, err)
	}
	if n := len(f.ollama.ChatRequests()); n != 1 {
		t.Fatalf("%d chat calls with a cap of 1", n)
	}
	if job, _ := f.db.ClaimSummary(ctx, time.Minute); job != nil {
		t.Fatalf("job over the cap still queued: %+v", job)
	}
}

func TestSummaryWaitsWhileOllamaIsDown(t *testing.T) {
	ctx := context.Background()
	f := newSummaryFixture(t, 5)
	f.work(t, "work while the model is away")
	f.ollama.Close()
	if worked, err := f.sum.RunOnce(ctx); !worked || err == nil {
		t.Fatalf("RunOnce with Ollama down: %v %v", worked, err)
	}
	if es, _ := f.db.SessionEntries(ctx, "s1", 0, 10); len(es) != 2 {
		t.Fatalf("observations lost: %d", len(es))
	}
	job, err := f.db.ClaimSummary(ctx, time.Minute)
	if err != nil || job == nil || job.Attempts != 2 {
		t.Fatalf("the summary does not wait for a retry: %+v %v", job, err)
	}
}

func TestSummaryReplyThatDoesNotParseIsAFailedCall(t *testing.T) {
	ctx := context.Background()
	f := newSummaryFixture(t, 5)
	f.work(t, "some work")
	f.ollama.QueueReplies("this is not JSON")
	if _, err := f.sum.RunOnce(ctx); err == nil {
		t.Fatal("a reply that does not parse should fail the attempt")
	}
	if _, calls, _ := f.db.SummaryProgress(ctx, "s1"); calls != 1 {
		t.Fatalf("failed call counted %d times, want 1", calls)
	}
	// The same prompt at temperature 0 gets the same reply: it is not retried.
	if job, _ := f.db.ClaimSummary(ctx, time.Minute); job != nil {
		t.Fatalf("a summary whose reply did not parse is queued again: %+v", job)
	}
}

func TestEmptySummaryIsNotRetried(t *testing.T) {
	ctx := context.Background()
	f := newSummaryFixture(t, 5)
	f.work(t, "some work")
	f.ollama.QueueReplies(`{"title": "", "bullets": [""]}`) // what a model of random weights answers
	if _, err := f.sum.RunOnce(ctx); err == nil {
		t.Fatal("an empty summary should fail the attempt")
	}
	if job, _ := f.db.ClaimSummary(ctx, time.Minute); job != nil {
		t.Fatalf("an empty summary is queued again: %+v", job)
	}
	if sums, _ := f.db.RecentSummaries(ctx, "project:shop", 5); len(sums) != 0 {
		t.Fatalf("an empty summary was stored: %+v", sums[0])
	}
}

func TestSummaryInterruptedAtShutdownIsHandedBack(t *testing.T) {
	ctx := context.Background()
	f := newSummaryFixture(t, 5)
	f.work(t, "work summarised while the server stops")
	f.ollama.SetDelay(time.Minute) // the chat model never answers in time
	f.sum.Start(ctx)
	time.Sleep(500 * time.Millisecond) // the worker claims at once and waits on the model
	closeCtx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if err := f.sum.Close(closeCtx); err == nil {
		t.Fatal("Close with a job in flight past its deadline should say the job was interrupted")
	}
	job, err := f.db.ClaimSummary(ctx, time.Minute)
	if err != nil || job == nil || job.SessionID != "s1" {
		t.Fatalf("interrupted job not handed back: %+v %v", job, err)
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
