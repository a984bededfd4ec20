package hook_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/hook"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/project"
	"github.com/recall-mcp/recall/storage/sqlite"
)

// promptHook is a hook's process on a database holding one memory about the
// orders cache, in a project's namespace: its database opened as a hook opens
// it, its handler, and the memory's id.
type promptHook struct {
	db      *sqlite.DB
	handler *hook.Handler
	root    string
	stored  string
}

func newPromptHook(t *testing.T) *promptHook {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	root := filepath.Join(dir, "shop-api")
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "recall.db")
	seed, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := memory.NewService(seed, nil, memory.Options{}).Remember(ctx, memory.StoreRequest{
		Content: "Orders are cached for five minutes in the orders service", Namespace: project.Candidates(root)[0], Type: memory.TypeDecision,
	})
	if err != nil {
		t.Fatal(err)
	}
	seed.Close()

	db, err := sqlite.OpenWith(ctx, path, sqlite.Options{SpoolWhenBusy: true, ShortLived: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &promptHook{db: db, root: root, stored: stored.ID, handler: &hook.Handler{
		Memory:   memory.NewService(db, nil, memory.Options{}),
		Projects: project.NewResolver(db, "", nil),
		Capture:  &capture.Recorder{Store: db},
		Floor:    memory.Floor{MinCoverage: 0.6},
	}}
}

// prompt runs the prompt hook and checks that it lists the stored memory.
func (p *promptHook) prompt(t *testing.T) {
	t.Helper()
	out, err := p.handler.Handle(context.Background(), hook.UserPromptSubmit, &hook.Input{SessionID: "s1", Cwd: p.root, Prompt: "How many minutes are orders cached in the orders service?"})
	if err != nil {
		t.Fatal(err)
	}
	if out == nil || !strings.Contains(out.HookSpecificOutput.AdditionalContext, p.stored) {
		t.Fatalf("the prompt hook answered %+v; want the index listing %s", out, p.stored)
	}
}

// prompts counts the prompts recorded in the journal.
func (p *promptHook) prompts(t *testing.T) int {
	t.Helper()
	var n int
	if err := p.db.SQL().QueryRowContext(context.Background(), `SELECT count(*) FROM journal WHERE kind = 'prompt' AND session_id = 's1'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A prompt hook's process searches and records the prompt on the one
// connection it opened: a second connection would read the whole schema
// again. The prompt is recorded all the same, and the memory it matches is
// listed.
func TestPromptHookSearchesAndRecordsOnOneConnection(t *testing.T) {
	p := newPromptHook(t)
	p.prompt(t)
	if n := p.prompts(t); n != 1 {
		t.Errorf("%d prompts recorded; want 1", n)
	}
	if n := p.db.SQL().Stats().OpenConnections; n != 1 {
		t.Errorf("the prompt hook opened %d connections; want 1", n)
	}
}

// slowSearch is a store whose search for a prompt's candidates waits until
// the prompt is recorded (at most two seconds).
type slowSearch struct {
	*sqlite.DB
	recorded func() bool
}

func (s slowSearch) SearchCovering(ctx context.Context, text string, share float64, f memory.Filter, limit int) ([]memory.Hit, error) {
	for deadline := time.Now().Add(2 * time.Second); !s.recorded() && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	return s.DB.SearchCovering(ctx, text, share, f, limit)
}

// A prompt whose search runs long has its record written while the search
// runs, not after it: the hook's time may run out before the search ends.
func TestPromptHookRecordsThePromptBesideASlowSearch(t *testing.T) {
	p := newPromptHook(t)
	p.handler.Memory = memory.NewService(slowSearch{p.db, func() bool { return p.prompts(t) == 1 }}, nil, memory.Options{})
	start := time.Now()
	p.prompt(t)
	if took := time.Since(start); took > time.Second {
		t.Fatalf("the search waited %s for the prompt's record: it was written only after the search", took.Round(time.Millisecond))
	}
	if n := p.prompts(t); n != 1 {
		t.Errorf("%d prompts recorded; want 1", n)
	}
}

// pastOf adds to p's journal, in another session, a prompt about the orders
// cache and the summary of that session, whose session memory is the one the
// prompt hook lists; it returns the prompt's entry id.
func (p *promptHook) pastOf(t *testing.T) int64 {
	t.Helper()
	ctx := context.Background()
	ns := project.Candidates(p.root)[0]
	id, err := p.db.AddEntry(ctx, &capture.Entry{Kind: capture.KindPrompt, Namespace: ns, SessionID: "s0",
		Title: "How long does the orders service cache orders, in minutes?", CreatedAt: time.Now().Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.db.AddEntry(ctx, &capture.Entry{Kind: capture.KindSummary, Namespace: ns, SessionID: "s0", MemoryID: p.stored,
		Title: "Session about the orders service cache and its minutes", CreatedAt: time.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	return id
}

// A server (Beside) lists the same past entries as a hook working alone:
// the other session's prompt, and not the summary whose session memory is
// listed already.
func TestPromptHookBesideListsThePastAsAlone(t *testing.T) {
	for _, beside := range []bool{false, true} {
		p := newPromptHook(t)
		prompt := p.pastOf(t)
		p.handler.Beside = beside
		out, err := p.handler.Handle(context.Background(), hook.UserPromptSubmit, &hook.Input{SessionID: "s1", Cwd: p.root, Prompt: "How many minutes are orders cached in the orders service?"})
		if err != nil || out == nil {
			t.Fatalf("beside %v: the prompt hook answered %+v, %v", beside, out, err)
		}
		text := out.HookSpecificOutput.AdditionalContext
		if !strings.Contains(text, p.stored) || !strings.Contains(text, capture.EntryID(prompt)) {
			t.Errorf("beside %v: the index lists\n%s\nwant the memory %s and the past prompt %s", beside, text, p.stored, capture.EntryID(prompt))
		}
		if strings.Contains(text, "session summary") {
			t.Errorf("beside %v: the index lists the summary whose session memory it lists already:\n%s", beside, text)
		}
		if n := p.prompts(t); n != 1 {
			t.Errorf("beside %v: %d prompts recorded; want 1", beside, n)
		}
	}
}

// entriesSearched is a store whose search of memories waits until the
// journal has been searched (at most two seconds).
type entriesSearched struct {
	*sqlite.DB
	searched chan struct{}
}

func (s entriesSearched) SearchEntries(ctx context.Context, text string, namespaces []string, limit int) ([]capture.EntryHit, error) {
	defer close(s.searched)
	return s.DB.SearchEntries(ctx, text, namespaces, limit)
}

func (s entriesSearched) SearchCovering(ctx context.Context, text string, share float64, f memory.Filter, limit int) ([]memory.Hit, error) {
	select {
	case <-s.searched:
	case <-time.After(2 * time.Second):
	}
	return s.DB.SearchCovering(ctx, text, share, f, limit)
}

// A server (Beside) searches past sessions while it searches the memories,
// on connections it has open.
func TestPromptHookBesideSearchesThePastWhileTheMemories(t *testing.T) {
	p := newPromptHook(t)
	p.pastOf(t)
	store := entriesSearched{p.db, make(chan struct{})}
	p.handler.Beside = true
	p.handler.Memory = memory.NewService(store, nil, memory.Options{})
	p.handler.Capture = &capture.Recorder{Store: store}
	start := time.Now()
	p.prompt(t)
	if took := time.Since(start); took > time.Second {
		t.Fatalf("the search of memories waited %s for the journal's: they ran one after the other", took.Round(time.Millisecond))
	}
}

// accessCount is how often the stored memory was listed.
func (p *promptHook) accessCount(t *testing.T) int {
	t.Helper()
	var n int
	if err := p.db.SQL().QueryRowContext(context.Background(), `SELECT access_count FROM memories WHERE id = ?`, p.stored).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A server that answers first has the prompt's index before the prompt's
// record and the access count are written, and writes them with the rest;
// Handle writes both before it answers.
func TestPromptHookFirstAnswersBeforeItsWrites(t *testing.T) {
	p := newPromptHook(t)
	p.handler.Beside = true
	in := &hook.Input{SessionID: "s1", Cwd: p.root, Prompt: "How many minutes are orders cached in the orders service?"}
	out, rest, err := p.handler.HandleFirst(context.Background(), hook.UserPromptSubmit, in)
	if err != nil || out == nil || !strings.Contains(out.HookSpecificOutput.AdditionalContext, p.stored) {
		t.Fatalf("HandleFirst = %+v, %v; want the index listing %s", out, err, p.stored)
	}
	if rest == nil {
		t.Fatal("no rest: the prompt's writes were made before the answer")
	}
	time.Sleep(50 * time.Millisecond) // a record written beside the search would be in by now
	if n, c := p.prompts(t), p.accessCount(t); n != 0 || c != 0 {
		t.Fatalf("before the rest: %d prompts recorded, access count %d; want 0 and 0", n, c)
	}
	if err := rest(); err != nil {
		t.Fatal(err)
	}
	if n, c := p.prompts(t), p.accessCount(t); n != 1 || c != 1 {
		t.Fatalf("after the rest: %d prompts recorded, access count %d; want 1 and 1", n, c)
	}
	p.prompt(t) // Handle
	if n, c := p.prompts(t), p.accessCount(t); n != 2 || c != 2 {
		t.Fatalf("Handle left %d prompts recorded, access count %d; want 2 and 2", n, c)
	}
}

// post-tool-use answers nothing: with HandleFirst all of its work is the rest.
func TestPostToolUseFirstWritesInItsRest(t *testing.T) {
	p := newPromptHook(t)
	in := &hook.Input{SessionID: "s1", Cwd: p.root, ToolName: "Bash", ToolUseID: "toolu_1"}
	out, rest, err := p.handler.HandleFirst(context.Background(), hook.PostToolUse, in)
	if err != nil || out != nil || rest == nil {
		t.Fatalf("HandleFirst = %+v, rest %v, %v; want no answer and a rest", out, rest != nil, err)
	}
	count := func() int {
		var n int
		if err := p.db.SQL().QueryRowContext(context.Background(), `SELECT count(*) FROM journal WHERE kind = 'observation'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 0 {
		t.Fatalf("%d tool calls recorded before the rest; want 0", n)
	}
	if err := rest(); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 1 {
		t.Fatalf("%d tool calls recorded after the rest; want 1", n)
	}
}

// A tool call written after its event (by a server after its answer, or by
// the next server after a crash) takes the turn of the transcript as it was
// when the event came, not the turn of a prompt that came since.
func TestPostToolUseTakesTheTurnOfItsTime(t *testing.T) {
	p := newPromptHook(t)
	transcript := filepath.Join(t.TempDir(), "transcript.jsonl")
	line := func(uuid, text string) string {
		return `{"type":"user","uuid":"` + uuid + `","message":{"role":"user","content":"` + text + `"}}` + "\n"
	}
	if err := os.WriteFile(transcript, []byte(line("turn-1", "cache the orders")), 0o600); err != nil {
		t.Fatal(err)
	}
	then := capture.TranscriptSize(transcript)
	f, err := os.OpenFile(transcript, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(line("turn-2", "now the invoices"))
	f.Close()
	in := &hook.Input{SessionID: "s1", Cwd: p.root, TranscriptPath: transcript, ToolName: "Bash", ToolUseID: "toolu_1", TranscriptOffset: &then}
	if _, err := p.handler.Handle(context.Background(), hook.PostToolUse, in); err != nil {
		t.Fatal(err)
	}
	var turn string
	if err := p.db.SQL().QueryRowContext(context.Background(), `SELECT turn_id FROM journal WHERE kind = 'observation'`).Scan(&turn); err != nil {
		t.Fatal(err)
	}
	if turn != "turn-1" {
		t.Fatalf("the tool call went to turn %q; want turn-1, the transcript's last prompt when it ran", turn)
	}
}
