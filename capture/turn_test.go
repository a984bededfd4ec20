package capture_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/storage/sqlite"
)

func transcriptLine(t *testing.T, typ, uuid string, content any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"type": typ, "uuid": uuid, "message": map[string]any{"role": typ, "content": content}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

func appendLines(t *testing.T, path string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.Join(lines, "")); err != nil {
		t.Fatal(err)
	}
}

// newRecorder opens a store in a directory of the test's, closed when the test
// ends, and a recorder over it; path is a transcript not written yet.
func newRecorder(t *testing.T) (db *sqlite.DB, rec *capture.Recorder, path string) {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "recall.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, &capture.Recorder{Store: db}, filepath.Join(t.TempDir(), "session.jsonl")
}

// The turn of a tool call comes from the journal and the few bytes around
// the last prompt's anchor, never from a scan of the transcript's end: it is
// found when more than the old 256 KB tail came after the prompt, and after
// the first tool call of a turn nothing is read at all.
func TestTurnIsFoundFromTheJournalsLastAnchor(t *testing.T) {
	ctx := context.Background()
	db, rec, path := newRecorder(t)
	anchor := func(turn string) capture.Anchor {
		return capture.Anchor{Namespace: "project:shop", SessionID: "s1", TurnID: turn, TranscriptPath: path,
			TranscriptOffset: capture.TranscriptSize(path)}
	}
	output := func(n int) string { // an assistant's long answer
		var b strings.Builder
		for i := 0; b.Len() < n; i++ {
			b.WriteString(transcriptLine(t, "assistant", fmt.Sprintf("a-%d", i), []any{map[string]any{"type": "text", "text": strings.Repeat("reading orders ", 60)}}))
		}
		return b.String()
	}
	toolCall := func() {
		t.Helper()
		e, err := rec.ObservationEntry(anchor(rec.Turn(ctx, "s1", path)), capture.Tool{Name: "Bash", Input: json.RawMessage(`{"command":"go test"}`), Response: json.RawMessage(`"ok"`)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.AddEntry(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	prompt := func(text string) {
		t.Helper()
		if _, err := rec.Prompt(ctx, anchor(""), text); err != nil {
			t.Fatal(err)
		}
	}

	// Claude Code 2.1: the prompt's line is written after the hook, then
	// 1 MB of answers before the first tool call.
	appendLines(t, path, transcriptLine(t, "user", "turn-0", "an older prompt"), output(2<<20))
	prompt("cache the order list")
	appendLines(t, path, transcriptLine(t, "user", "turn-1", "cache the order list"), output(1<<20))
	if tail := capture.LastUserTurn(path); tail != "" {
		t.Fatalf("the transcript's last 256 KB hold turn %q: the case below would not show anything", tail)
	}
	if got := rec.Turn(ctx, "s1", path); got != "turn-1" {
		t.Fatalf("first tool call of the turn: turn %q, want turn-1", got)
	}
	toolCall()

	// The next tool call reads nothing: its transcript may say anything.
	garbage := strings.Repeat("x", int(capture.TranscriptSize(path)))
	if err := os.WriteFile(path, []byte(garbage), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := rec.Turn(ctx, "s1", path); got != "turn-1" {
		t.Fatalf("second tool call of the turn: turn %q, want turn-1 from the journal", got)
	}

	// Claude Code before 2.1 wrote the prompt before the hook ran.
	appendLines(t, path, "\n", transcriptLine(t, "user", "turn-2", "now the billing export"))
	prompt("now the billing export")
	appendLines(t, path, output(4<<10))
	if got := rec.Turn(ctx, "s1", path); got != "turn-2" {
		t.Fatalf("a prompt written before its hook: turn %q, want turn-2", got)
	}

	// A session the journal has nothing of: the transcript's end, as before.
	other := filepath.Join(t.TempDir(), "other.jsonl")
	appendLines(t, other, transcriptLine(t, "user", "turn-x", "hello"), output(8<<10))
	if got := rec.Turn(ctx, "s2", other); got != "turn-x" {
		t.Fatalf("a session without entries: turn %q, want turn-x", got)
	}
}

// A drain writing several captures in one transaction passes the ones not
// yet committed: the newest of the session among them comes before the
// store's (which has not seen them), as of the transcript's size then.
func TestTurnAfterEntriesNotYetCommitted(t *testing.T) {
	ctx := context.Background()
	db, rec, path := newRecorder(t)
	appendLines(t, path, transcriptLine(t, "user", "turn-1", "make the cache last five minutes"))
	size := capture.TranscriptSize(path)
	appendLines(t, path, transcriptLine(t, "user", "turn-2", "now the customers cache"))

	// In the store: a tool call of turn-1's. Pending: the prompt of turn-2.
	if _, err := db.AddEntry(ctx, &capture.Entry{Kind: capture.KindObservation, Namespace: "project:shop", SessionID: "s1", TurnID: "turn-1",
		TranscriptPath: path, TranscriptOffset: size, ToolName: "Bash", Title: "Bash: go test", Body: "go test"}); err != nil {
		t.Fatal(err)
	}
	if got := rec.TurnAfter(ctx, nil, "s1", path, size); got != "turn-1" {
		t.Fatalf("TurnAfter with nothing pending = %q, want the stored tool call's turn-1", got)
	}
	pending := []*capture.Entry{
		{Kind: capture.KindObservation, SessionID: "s1", TurnID: "turn-7", TranscriptPath: path},
		{Kind: capture.KindObservation, SessionID: "other", TurnID: "turn-9", TranscriptPath: path},
	}
	if got := rec.TurnAfter(ctx, pending, "s1", path, size); got != "turn-7" {
		t.Fatalf("TurnAfter = %q, want turn-7, the session's newest pending tool call's", got)
	}
}

// A tool call written after the session went on (kept in the spool past an
// interrupted turn, or replayed by the next server) takes the turn it ran in,
// even when the journal's last capture is a later prompt or tool call: that
// capture came after the event's size, and says nothing of its turn.
func TestTurnAsOfIgnoresCapturesAfterTheEvent(t *testing.T) {
	ctx := context.Background()
	for _, promptFirst := range []bool{false, true} { // Claude Code 2.1 writes the prompt's line after its hook; before 2.1, before it
		db, rec, path := newRecorder(t)
		appendLines(t, path, transcriptLine(t, "user", "turn-1", "make the cache last five minutes"),
			transcriptLine(t, "assistant", "a-1", []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{}}}))
		size := capture.TranscriptSize(path) // the tool call's hook ran here
		appendLines(t, path, transcriptLine(t, "assistant", "a-2", []any{map[string]any{"type": "text", "text": "The cache lasts five minutes."}}))
		next := transcriptLine(t, "user", "turn-2", "now the customers cache")
		if promptFirst {
			appendLines(t, path, next)
		}
		prompt := &capture.Entry{Kind: capture.KindPrompt, Namespace: "project:shop", SessionID: "s1", TranscriptPath: path,
			TranscriptOffset: capture.TranscriptSize(path), Title: "now the customers cache"}
		if _, err := db.AddEntry(ctx, prompt); err != nil {
			t.Fatal(err)
		}
		if !promptFirst {
			appendLines(t, path, next)
		}
		if got := rec.TurnAsOf(ctx, "s1", path, size); got != "turn-1" {
			t.Errorf("prompt line first %v, after a later prompt: turn %q, want turn-1", promptFirst, got)
		}
		later := &capture.Entry{Kind: capture.KindObservation, Namespace: "project:shop", SessionID: "s1", TurnID: "turn-2", TranscriptPath: path,
			TranscriptOffset: capture.TranscriptSize(path), ToolName: "Bash", Title: "Bash: go test", Body: "go test"}
		if got := rec.TurnAfter(ctx, []*capture.Entry{later}, "s1", path, size); got != "turn-1" {
			t.Errorf("prompt line first %v, after a later tool call: turn %q, want turn-1", promptFirst, got)
		}
		db.Close()
	}
}

// A tool call of a turn whose prompt is the journal's last capture, applied
// once the next prompt is in the transcript (Claude Code before 2.1 writes a
// prompt's line before its hook runs): the turn is the prompt's before the
// tool call's size, not the first one after the anchor.
func TestTurnAsOfLooksForThePromptBeforeTheEvent(t *testing.T) {
	ctx := context.Background()
	db, rec, path := newRecorder(t)
	appendLines(t, path, transcriptLine(t, "user", "turn-1", "make the cache last five minutes"))
	if _, err := db.AddEntry(ctx, &capture.Entry{Kind: capture.KindPrompt, Namespace: "project:shop", SessionID: "s1", TranscriptPath: path,
		TranscriptOffset: capture.TranscriptSize(path), Title: "make the cache last five minutes"}); err != nil {
		t.Fatal(err)
	}
	appendLines(t, path, transcriptLine(t, "assistant", "a-1", []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{}}}))
	size := capture.TranscriptSize(path) // the tool call's hook ran here
	appendLines(t, path, transcriptLine(t, "user", "turn-2", "now the customers cache"))
	if got := rec.TurnAsOf(ctx, "s1", path, size); got != "turn-1" {
		t.Errorf("a tool call applied once the next prompt is written: turn %q, want turn-1", got)
	}
	if got := rec.TurnAsOf(ctx, "s1", path, -1); got != "turn-2" {
		t.Errorf("a hook of now: turn %q, want turn-2", got)
	}
}
