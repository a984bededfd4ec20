package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/sqlite"
)

// A replayed session: a Claude Code transcript written as Claude Code writes
// it (prompts, tool calls and their results, a subagent's sidechain, a
// compaction), whose hooks are run through the built binary as they would
// fire. The order is Claude Code 2.1's, as seen from a real session's hooks:
// UserPromptSubmit runs before the prompt is written (with the prompt_id its
// line carries as promptId), PostToolUse after the tool call's line and
// before its result's.
type replay struct {
	t          *testing.T
	c          *cliEnv
	session    string
	cwd        string
	transcript string
	parent     string // uuid of the last line, for parentUuid
	n          int
	// lines is the uuid of the line of each prompt (by its text) and of
	// each tool call (by its tool_use id).
	lines map[string]string
}

func newReplay(t *testing.T, c *cliEnv, session, cwd string) *replay {
	dir := filepath.Join(c.dir, ".claude", "projects", strings.ReplaceAll(cwd, string(filepath.Separator), "-"))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return &replay{t: t, c: c, session: session, cwd: cwd, transcript: filepath.Join(dir, session+".jsonl"), lines: map[string]string{}}
}

// line appends one transcript line and returns its uuid.
func (r *replay) line(typ string, extra map[string]any, content any) string {
	r.t.Helper()
	r.n++
	uuid := r.session[:8] + "-line-" + string(rune('a'+r.n%26)) + strings.Repeat("x", r.n/26)
	l := map[string]any{"type": typ, "uuid": uuid, "parentUuid": r.parent, "sessionId": r.session, "cwd": r.cwd,
		"isSidechain": false, "version": "2.1.39", "timestamp": time.Now().UTC().Format(time.RFC3339Nano),
		"message": map[string]any{"role": typ, "content": content}}
	for k, v := range extra {
		l[k] = v
	}
	b, err := json.Marshal(l)
	if err != nil {
		r.t.Fatal(err)
	}
	appendTranscript(r.t, r.transcript, string(b)+"\n")
	r.parent = uuid
	return uuid
}

func (r *replay) input(event string, extra map[string]any) string {
	r.t.Helper()
	in := map[string]any{"session_id": r.session, "transcript_path": r.transcript, "cwd": r.cwd,
		"hook_event_name": event, "permission_mode": "default"}
	for k, v := range extra {
		in[k] = v
	}
	b, err := json.Marshal(in)
	if err != nil {
		r.t.Fatal(err)
	}
	return string(b)
}

func (r *replay) start(source string) *hookAnswer {
	a, _ := r.c.hook("session-start", r.input("SessionStart", map[string]any{"source": source}))
	return a
}

func (r *replay) prompt(text string) *hookAnswer {
	id := fmt.Sprintf("%s-prompt-%d", r.session[:8], r.n)
	a, _ := r.c.hook("user-prompt-submit", r.input("UserPromptSubmit", map[string]any{"prompt": text, "prompt_id": id}))
	r.lines[text] = r.line("user", map[string]any{"promptId": id}, text)
	return a
}

// tool writes the assistant's tool call and its result to the transcript and
// runs PostToolUse for it.
func (r *replay) tool(id, name string, input, response map[string]any, resultText string) {
	r.t.Helper()
	r.lines[id] = r.line("assistant", nil, []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}})
	r.c.hook("post-tool-use", r.input("PostToolUse", map[string]any{"tool_name": name, "tool_use_id": id,
		"tool_input": input, "tool_response": response}))
	r.line("user", map[string]any{"toolUseResult": response},
		[]any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": resultText}})
}

func (r *replay) event(hook, event string, extra map[string]any) {
	r.c.hook(hook, r.input(event, extra))
}

// checkoutSession replays a session that fixes a failing test: a failing run,
// an edit, a subagent's search, a compaction, a passing run, a second prompt.
func checkoutSession(t *testing.T, c *cliEnv, session, cwd string) *replay {
	r := newReplay(t, c, session, cwd)
	r.start("startup")
	checkoutReplay(r)
	return r
}

// checkoutReplay is checkoutSession's work, in a session started already.
func checkoutReplay(r *replay) {
	cwd := r.cwd
	r.prompt("Fix the flaky checkout total test: the invoice total is off by one cent")
	r.tool("toolu_01Fail", "Bash", map[string]any{"command": "go test ./checkout/...", "description": "Run the checkout tests"},
		map[string]any{"stdout": "--- FAIL: TestCheckoutTotal (0.01s)\n    total_test.go:41: total = 1999, want 2000\nFAIL\nFAIL\tshop/checkout\t0.02s", "stderr": "", "interrupted": false},
		"--- FAIL: TestCheckoutTotal")
	// A subagent searches; its own lines are a sidechain of the transcript.
	r.tool("toolu_02Task", "Task", map[string]any{"description": "Find rounding code", "prompt": "Find where invoice totals are rounded", "subagent_type": "general-purpose"},
		map[string]any{"content": []any{map[string]any{"type": "text", "text": "Rounding happens in checkout/total.go roundCents()"}}, "totalDurationMs": 5210},
		"Rounding happens in checkout/total.go roundCents()")
	r.line("assistant", map[string]any{"isSidechain": true, "agentId": "a1b2"}, []any{map[string]any{"type": "text", "text": "searching for roundCents"}})
	r.tool("toolu_03Edit", "Edit", map[string]any{"file_path": filepath.Join(cwd, "checkout", "total.go"), "old_string": "math.Floor(x)", "new_string": "math.Round(x)"},
		map[string]any{"filePath": filepath.Join(cwd, "checkout", "total.go"), "structuredPatch": []any{}}, "The file has been updated.")
	r.event("pre-compact", "PreCompact", map[string]any{"trigger": "auto", "custom_instructions": ""})
	r.line("user", map[string]any{"isCompactSummary": true}, "This session is being continued from a previous conversation. Summary: fixing the checkout total rounding.")
	r.tool("toolu_04Pass", "Bash", map[string]any{"command": "go test ./checkout/...", "description": "Run the checkout tests again"},
		map[string]any{"stdout": "ok  \tshop/checkout\t0.02s", "stderr": "", "interrupted": false}, "ok")
	r.prompt("Now note the rounding rule for invoice totals in the README")
	r.tool("toolu_05Write", "Edit", map[string]any{"file_path": filepath.Join(cwd, "README.md"), "old_string": "## Totals", "new_string": "## Totals\nRound half up to the cent."},
		map[string]any{"filePath": filepath.Join(cwd, "README.md")}, "The file has been updated.")
	r.event("stop", "Stop", map[string]any{"stop_hook_active": false})
	r.event("session-end", "SessionEnd", map[string]any{"reason": "prompt_input_exit"})
}

// withDB opens the test's database, as another process would, for fn.
func (c *cliEnv) withDB(fn func(db *sqlite.DB) error) {
	c.t.Helper()
	db, err := sqlite.Open(context.Background(), c.dbPath)
	if err != nil {
		c.t.Fatal(err)
	}
	defer db.Close()
	if err := fn(db); err != nil {
		c.t.Fatal(err)
	}
}

// sessionMemories reads the session memories of a namespace.
func (c *cliEnv) sessionMemories(namespace string) []*memory.Memory {
	c.t.Helper()
	var ms []*memory.Memory
	c.withDB(func(db *sqlite.DB) (err error) {
		ms, err = db.ListMemories(context.Background(), memory.ListQuery{Filter: memory.Filter{Namespaces: []string{namespace}, Types: []memory.Type{memory.TypeSession}}, Limit: 10})
		return err
	})
	return ms
}

// summaryJobs counts the summary jobs pending and failed for good.
func (c *cliEnv) summaryJobs() (pending, failed int) {
	c.t.Helper()
	c.withDB(func(db *sqlite.DB) error {
		return db.SQL().QueryRow(`SELECT count(*) FILTER (WHERE failed_at = ''), count(*) FILTER (WHERE failed_at != '')
			FROM jobs WHERE kind = ?`, capture.SummaryJobKind).Scan(&pending, &failed)
	})
	return pending, failed
}

// summaryAttempts is how many times the pending summary job was tried.
func (c *cliEnv) summaryAttempts() int {
	c.t.Helper()
	var n int
	c.withDB(func(db *sqlite.DB) error {
		return db.SQL().QueryRow(`SELECT coalesce(max(attempts), 0) FROM jobs WHERE kind = ? AND failed_at = ''`, capture.SummaryJobKind).Scan(&n)
	})
	return n
}

// letTimePass makes jobs waiting for a retry due now, as time passing would.
func (c *cliEnv) letTimePass() {
	c.t.Helper()
	c.withDB(func(db *sqlite.DB) error {
		_, err := db.SQL().Exec(`UPDATE jobs SET run_after = ''`)
		return err
	})
}

// With Ollama absent, a captured session still pays off: recall serve makes
// its extractive summary, the summary job waits (across restarts) instead of
// being dropped, and the next session starts with an index of the last
// session and gets it back on a related prompt, but not on an unrelated one.
// When Ollama answers, the model's summary replaces the extractive one.
func TestReplayedSessionPaysOffWithOllamaDownThenUp(t *testing.T) {
	c := newCLIEnv(t)
	c.vars["RECALL_OLLAMA_HOST"] = "http://127.0.0.1:9" // nothing listens: Ollama is down
	_, cwd := newProject(t, c, "shop-api")
	const first, second = "0a9e51d2-first-session", "5b7c3e10-second-session"
	checkoutSession(t, c, first, cwd)

	c.serveUntil("an extractive summary", func() bool { return len(c.sessionMemories("project:shop-api")) > 0 })
	ms := c.sessionMemories("project:shop-api")
	if len(ms) != 1 || ms[0].Metadata["summary"] != capture.SummaryExtractive || ms[0].Metadata["session_id"] != first {
		t.Fatalf("session memories with Ollama down: %+v", ms)
	}
	summary := ms[0]
	for _, want := range []string{"Fix the flaky checkout total test", "`go test ./checkout/...` → failed: --- FAIL: TestCheckoutTotal",
		"`go test ./checkout/...` → ok", "checkout/total.go", "api/README.md", "Now note the rounding rule"} {
		if !strings.Contains(summary.Content, want) {
			t.Errorf("extractive summary lacks %q:\n%s", want, summary.Content)
		}
	}
	// The job waits for the chat model, across a restart; never dropped.
	if pending, failed := c.summaryJobs(); pending != 1 || failed != 0 {
		t.Fatalf("summary jobs with Ollama down: %d pending, %d failed; want it kept", pending, failed)
	}
	c.letTimePass()
	c.serveUntil("a second attempt of the summary", func() bool { return c.summaryAttempts() >= 2 })
	if pending, failed := c.summaryJobs(); pending != 1 || failed != 0 {
		t.Fatalf("after a second attempt with Ollama down: %d pending, %d failed; want it kept", pending, failed)
	}
	if n := len(c.sessionMemories("project:shop-api")); n != 1 {
		t.Fatalf("%d session memories after the second attempt, want the one extractive summary updated in place", n)
	}
	if out := c.ok("stats"); !strings.Contains(out, "1 summaries pending") || !strings.Contains(out, "waiting to retry") {
		t.Errorf("stats do not show the waiting summary:\n%s", out)
	}

	// The next session starts with the last one in its context.
	next := newReplay(t, c, second, cwd)
	a := next.start("startup")
	if a == nil {
		t.Fatal("session-start said nothing")
	}
	ctxText := a.HookSpecificOutput.AdditionalContext
	for _, want := range []string{"## Recent sessions in this project", "Fix the flaky checkout total test", "+1 prompt, 5 tool calls",
		"extractive summary [" + summary.ID + "]", "recall_details", "recall_timeline"} {
		if !strings.Contains(ctxText, want) {
			t.Errorf("session-start context lacks %q:\n%s", want, ctxText)
		}
	}
	// A prompt about the same work gets it back; an unrelated one nothing.
	a = next.prompt("Why did the checkout total test fail last time?")
	if a == nil || !strings.Contains(a.HookSpecificOutput.AdditionalContext, "["+summary.ID+"] session") ||
		!strings.Contains(a.HookSpecificOutput.AdditionalContext, "From past sessions:") {
		t.Errorf("a related prompt got no past session:\n%+v", a)
	}
	if a := next.prompt("Write a haiku about autumn leaves falling slowly"); a != nil {
		t.Errorf("an unrelated prompt got context:\n%s", a.HookSpecificOutput.AdditionalContext)
	}

	// Ollama answers: the model's summary replaces the extractive one.
	c.vars["RECALL_OLLAMA_HOST"] = c.ollama.URL()
	c.ollama.SetChat(summaryReplies("Fixed checkout total rounding", "Rounded totals half up in checkout/total.go", "go test ./checkout passes"))
	c.letTimePass()
	c.serveUntil("the model's summary", func() bool {
		for _, m := range c.sessionMemories("project:shop-api") {
			if m.ID == summary.ID && m.Metadata["summary"] == capture.SummaryModel {
				return true
			}
		}
		return false
	})
	ms = c.sessionMemories("project:shop-api")
	var replaced *memory.Memory
	for _, m := range ms {
		if m.ID == summary.ID {
			replaced = m
		}
	}
	if replaced == nil || replaced.Metadata["summary"] != capture.SummaryModel || !strings.Contains(replaced.Content, "Fixed checkout total rounding") {
		t.Fatalf("after Ollama answered: %+v, want %s replaced by the model's summary", ms, summary.ID)
	}
	if pending, failed := c.summaryJobs(); failed != 0 || pending > 1 {
		t.Errorf("summary jobs once Ollama answered: %d pending, %d failed", pending, failed)
	}
}

// Every captured entry leads to its own message in the transcript (the tool
// call, the prompt), not to its turn's prompt, also when the session's
// transcript is many megabytes long.
func TestReplayedEntriesLeadToTheirOwnMessages(t *testing.T) {
	c := newCLIEnv(t)
	c.vars["RECALL_OLLAMA_HOST"] = "http://127.0.0.1:9"
	_, cwd := newProject(t, c, "shop-api")
	const session = "7d3f0c21-anchored-session"
	r := newReplay(t, c, session, cwd)
	// An earlier long stretch of the session: 8 MB of file reads.
	r.prompt("Read the whole fixtures directory first")
	big := strings.Repeat("fixture line of an order record\n", 32<<10) // 1 MB
	for i := range 8 {
		id := fmt.Sprintf("toolu_read%02d", i)
		r.lines[id] = r.line("assistant", nil, []any{map[string]any{"type": "tool_use", "id": id, "name": "Read", "input": map[string]any{"file_path": "/f" + fmt.Sprint(i)}}})
		r.line("user", nil, []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": big}})
	}
	checkoutReplay(r)

	entries := c.journal(session)
	if len(entries) < 8 {
		t.Fatalf("%d entries captured", len(entries))
	}
	var ids []string
	for _, e := range entries {
		ids = append(ids, `"`+capture.EntryID(e.ID)+`"`)
	}
	details := c.call("recall_details", `{"ids": [`+strings.Join(ids, ",")+`], "around": 1}`)
	recs := details["records"].([]any)
	if len(recs) != len(entries) {
		t.Fatalf("%d records for %d entries", len(recs), len(entries))
	}
	for i, rec := range recs {
		rec := rec.(map[string]any)
		e := entries[i]
		want := r.lines[e.AnchorID]
		if e.Kind == capture.KindPrompt {
			want = r.lines[e.Body]
		}
		if want == "" {
			t.Errorf("entry %s (%s %q) has anchor %q: not a line of the session", rec["id"], e.Kind, e.Title, e.AnchorID)
			continue
		}
		_, anchor := transcriptUUIDs(rec)
		if anchor != want {
			t.Errorf("entry %s (%s %q) leads to %q, want its own message %q (note %v)", rec["id"], e.Kind, e.Title, anchor, want, rec["transcript_note"])
		}
	}
}

// transcriptUUIDs are the uuids of a details record's transcript and the
// anchor's.
func transcriptUUIDs(rec map[string]any) (uuids []string, anchor string) {
	msgs, _ := rec["transcript"].([]any)
	for _, m := range msgs {
		m := m.(map[string]any)
		uuids = append(uuids, m["uuid"].(string))
		if m["is_match"] == true {
			anchor = m["uuid"].(string)
		}
	}
	return uuids, anchor
}

// A session run in a git worktree belongs to its repository's project: the
// next session, started in the main checkout, lists it.
func TestReplayedWorktreeSessionComesBackInTheMainCheckout(t *testing.T) {
	c := newCLIEnv(t)
	c.vars["RECALL_OLLAMA_HOST"] = "http://127.0.0.1:9"
	repo := filepath.Join(c.dir, "shop")
	gitRepo(t, repo)
	wt := filepath.Join(c.dir, "worktrees", "shop-rounding")
	gitIn(t, repo, "worktree", "add", "-q", "-b", "rounding", wt)
	checkoutSession(t, c, "3e1f0a77-worktree-session", wt)

	a := newReplay(t, c, "9b2c4d10-main-session", repo).start("startup")
	if a == nil || !strings.Contains(a.HookSpecificOutput.AdditionalContext, "Fix the flaky checkout total test") {
		t.Fatalf("session start in the main checkout does not list the worktree's session: %+v", a)
	}
}
