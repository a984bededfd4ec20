package hook

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/memory"
)

func TestReadInputPostToolUse(t *testing.T) {
	in, err := ReadInput(strings.NewReader(`{"session_id":"s1","cwd":"/src/app","hook_event_name":"PostToolUse","tool_name":"NotebookEdit","tool_input":{"notebook_path":"/src/app/a.ipynb","new_source":"x"},"tool_response":{"ok":true}}`))
	if err != nil {
		t.Fatal(err)
	}
	if in.SessionID != "s1" || in.ToolName != "NotebookEdit" || in.ToolInput.NotebookPath != "/src/app/a.ipynb" {
		t.Fatalf("decoded %+v", in)
	}
}

func TestReadInputRefusesMalformedJSON(t *testing.T) {
	for _, body := range []string{"", "not json", `{"session_id":`, `["array"]`} {
		if _, err := ReadInput(strings.NewReader(body)); err == nil {
			t.Errorf("ReadInput(%q) accepted malformed input", body)
		}
	}
}

func TestParseEvent(t *testing.T) {
	for in, want := range map[string]string{"session-start": SessionStart, "UserPromptSubmit": UserPromptSubmit, "post-tool-use": PostToolUse, "SessionEnd": SessionEnd, "PreCompact": PreCompact, "stop": Stop} {
		got, err := ParseEvent(in)
		if err != nil || got != want {
			t.Errorf("ParseEvent(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err := ParseEvent("notification")
	if err == nil || !strings.Contains(err.Error(), "session-start") {
		t.Fatalf("unknown event error %v should list the accepted events", err)
	}
}

func TestFormatIndexListsIDsTypesAndPreviews(t *testing.T) {
	long := strings.Repeat("word ", 100)
	ms := []memory.ScoredMemory{
		{Memory: &memory.Memory{ID: "mem_1_aa", Type: memory.TypeDecision, Content: "Use Postgres\nfor orders"}},
		{Memory: &memory.Memory{ID: "mem_2_bb", Type: memory.TypePreference, Content: long}},
	}
	got, shown := formatIndex(ms, nil)
	if len(shown) != 2 || shown[0] != "mem_1_aa" || shown[1] != "mem_2_bb" {
		t.Fatalf("listed ids = %v, want both", shown)
	}
	if !strings.HasPrefix(got, "## Relevant memories (recall)\n") {
		t.Fatalf("index lacks its heading:\n%s", got)
	}
	if !strings.Contains(got, "- [mem_1_aa] decision · Use Postgres for orders\n") {
		t.Fatalf("first entry missing or not on one line:\n%s", got)
	}
	if !strings.Contains(got, "- [mem_2_bb] preference · ") || strings.Count(got, "word") != previewChars/5 {
		t.Fatalf("second entry should be cut to %d characters:\n%s", previewChars, got)
	}
	if text, ids := formatIndex(nil, nil); text != "" || ids != nil {
		t.Fatal("no memories should give no index")
	}
}

func TestFormatIndexStaysUnderTokenLimit(t *testing.T) {
	var ms []memory.ScoredMemory
	for i := 0; i < 50; i++ {
		ms = append(ms, memory.ScoredMemory{Memory: &memory.Memory{ID: "mem_1_" + strings.Repeat("a", i%5+1), Type: memory.TypePattern, Content: strings.Repeat("x", 400)}})
	}
	got, _ := formatIndex(ms, nil)
	if estimateTokens(len(got)) > promptTokenLimit+40 || strings.Count(got, "\n- [") > promptResults {
		t.Fatalf("index of %d bytes and %d entries exceeds its limits", len(got), strings.Count(got, "- ["))
	}
}

// stuckEmbedder never answers until its context ends, like a hung Ollama.
type stuckEmbedder struct{ calls int }

func (s *stuckEmbedder) Model() string { return "stuck" }
func (s *stuckEmbedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	s.calls++
	<-ctx.Done()
	return nil, ctx.Err()
}
func (s *stuckEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	s.calls++
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestGuardEmbedderGivesUpAfterOneTimeout(t *testing.T) {
	inner := &stuckEmbedder{}
	g := GuardEmbedder(inner, 10*time.Millisecond)
	_, err := g.EmbedQuery(context.Background(), "how are orders cached")
	if !errors.Is(err, memory.ErrUnavailable) {
		t.Fatalf("timed-out embedding = %v, want ErrUnavailable so recall degrades", err)
	}
	if _, err := g.EmbedQuery(context.Background(), "another query"); !errors.Is(err, memory.ErrUnavailable) {
		t.Fatalf("second call = %v, want the remembered failure", err)
	}
	if inner.calls != 1 {
		t.Fatalf("inner embedder called %d times, want 1 (no retry after a failure)", inner.calls)
	}
}

func TestRunSurvivesAPanickingHandler(t *testing.T) {
	var out, logs strings.Builder
	open := func(ctx context.Context, ev string, in *Input) (*Handler, func(), error) { panic("broken wiring") }
	Run(context.Background(), SessionEnd, strings.NewReader(`{"session_id":"s1","cwd":"/tmp"}`), &out, time.Second,
		slog.New(slog.NewTextHandler(&logs, nil)), open, Socket{}, nil)
	if out.Len() != 0 || !strings.Contains(logs.String(), "broken wiring") {
		t.Fatalf("a panic should be logged and answered with nothing; stdout %q, log %q", out.String(), logs.String())
	}
}

func TestRunGivesUpAtTheDeadline(t *testing.T) {
	var out, logs strings.Builder
	release := make(chan struct{})
	defer close(release)
	open := func(ctx context.Context, ev string, in *Input) (*Handler, func(), error) {
		<-release // a database lock that never comes free
		return nil, nil, errors.New("unreachable")
	}
	var lost []string
	Run(context.Background(), SessionStart, strings.NewReader(`{"session_id":"s1","cwd":"/tmp"}`), &out, 20*time.Millisecond,
		slog.New(slog.NewTextHandler(&logs, nil)), open, Socket{}, func(event, cause string) { lost = append(lost, event+": "+cause) })
	if out.Len() != 0 || !strings.Contains(logs.String(), "no answer within 20ms") {
		t.Fatalf("a stuck hook should give up and say why; stdout %q, log %q", out.String(), logs.String())
	}
	// Its write was never made: recorded where a person will see it.
	if len(lost) != 1 || !strings.HasPrefix(lost[0], SessionStart+": the hook's time (20ms) ran out") {
		t.Fatalf("lost writes recorded: %q, want the session start's", lost)
	}
}

func TestRunRecordsTheWritesOfAnEventWhoseDatabaseDidNotOpen(t *testing.T) {
	var out, logs strings.Builder
	open := func(ctx context.Context, ev string, in *Input) (*Handler, func(), error) {
		return nil, nil, errors.New("PostgreSQL at db:5432 is not answering")
	}
	var lost []string
	Run(context.Background(), PostToolUse, strings.NewReader(`{"session_id":"s1","cwd":"/tmp","tool_name":"Bash"}`), &out, time.Second,
		slog.New(slog.NewTextHandler(&logs, nil)), open, Socket{}, func(event, cause string) { lost = append(lost, event+": "+cause) })
	if len(lost) != 1 || lost[0] != PostToolUse+": the database did not open: PostgreSQL at db:5432 is not answering" {
		t.Fatalf("lost writes recorded: %q", lost)
	}
}

func TestRunGivesUpOnStdinThatNeverEnds(t *testing.T) {
	var out, logs strings.Builder
	r, w := io.Pipe() // a writer that never writes nor closes
	defer w.Close()
	open := func(ctx context.Context, ev string, in *Input) (*Handler, func(), error) {
		return nil, nil, errors.New("must not be reached")
	}
	lost := func(event, cause string) { t.Errorf("input that never came is no lost write: %s %s", event, cause) }
	Run(context.Background(), UserPromptSubmit, r, &out, 20*time.Millisecond, slog.New(slog.NewTextHandler(&logs, nil)), open, Socket{}, lost)
	if out.Len() != 0 || !strings.Contains(logs.String(), "no answer within") {
		t.Fatalf("stdout %q, log %q", out.String(), logs.String())
	}
}
