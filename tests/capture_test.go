package tests

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/storage/sqlite"
)

// Secrets in the session are assembled so this file does not hold one whole.
var (
	sessionToken = "ghp_" + "R4nd0mT0k3nVa1u3Xq9Zp2Lm8Kd7Wv5Bn3Jh6Yt1"
	sessionPass  = "Sup3r" + "S3cretPw"
)

const captureSession = "7d1e9a2c-capture-session"

// transcriptLine is one line of a Claude Code transcript.
func transcriptLine(t testing.TB, typ, uuid string, content any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"type": typ, "uuid": uuid, "sessionId": captureSession,
		"timestamp": "2026-03-02T10:00:00Z", "message": map[string]any{"role": typ, "content": content}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// appendTranscript adds lines to the session's transcript, as Claude Code does
// while the session runs.
func appendTranscript(t testing.TB, path string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.WriteString(l); err != nil {
			t.Fatal(err)
		}
	}
}

// sessionHookInput is a hook payload of the capture session.
func sessionHookInput(t testing.TB, event, cwd, transcript string, extra map[string]any) string {
	t.Helper()
	in := map[string]any{"session_id": captureSession, "transcript_path": transcript, "cwd": cwd,
		"hook_event_name": event, "permission_mode": "default"}
	for k, v := range extra {
		in[k] = v
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// runCapturedSession drives the hooks through one whole session: start, two
// prompts, tool calls (one with a 5 MB output, one with secrets), a malformed
// and an incomplete payload, stop, compaction and end. It returns the project's
// working directory.
func runCapturedSession(t *testing.T, c *cliEnv) string {
	t.Helper()
	_, cwd := newProject(t, c, "shop-api")
	transcript := filepath.Join(c.dir, captureSession+".jsonl")
	in := func(event string, extra map[string]any) string {
		return sessionHookInput(t, event, cwd, transcript, extra)
	}
	// The 5 MB tool call below is cleaned and written in a third of a second
	// on an idle machine, but a heavily loaded one can take longer than the
	// tests' 1 s budget (+2 s), and that write would then be lost (and
	// recorded as lost) by design: this session is about what is captured.
	c.vars["RECALL_HOOK_TIMEOUT"] = "10s"

	c.hook("session-start", in("SessionStart", map[string]any{"source": "startup"}))

	prompt := "Orders are slow: cache the order list in Redis. <private>My home address is 12 Elm Street</private> The staging password is in the .env."
	appendTranscript(t, transcript, transcriptLine(t, "user", "turn-1-uuid", prompt))
	c.hook("user-prompt-submit", in("UserPromptSubmit", map[string]any{"prompt": prompt}))

	c.hook("post-tool-use", in("PostToolUse", map[string]any{
		"tool_name":     "Read",
		"tool_use_id":   "toolu_01",
		"tool_input":    map[string]any{"file_path": filepath.Join(cwd, ".env")},
		"tool_response": map[string]any{"type": "text", "file": map[string]any{"filePath": ".env", "content": "DB_PASSWORD=" + sessionPass + "\nGITHUB_TOKEN=" + sessionToken + "\nPORT=8080\n"}},
	}))
	huge := strings.Repeat("orders row 12345 cached in redis ok\n", 5<<20/36)
	c.hook("post-tool-use", in("PostToolUse", map[string]any{
		"tool_name":     "Bash",
		"tool_use_id":   "toolu_02",
		"tool_input":    map[string]any{"command": "go test ./orders/... -run Cache", "description": "Run the cache tests"},
		"tool_response": map[string]any{"stdout": huge, "stderr": "", "interrupted": false},
	}))
	c.hook("post-tool-use", in("PostToolUse", map[string]any{
		"tool_name":     "Edit",
		"tool_use_id":   "toolu_03",
		"tool_input":    map[string]any{"file_path": "orders/cache.go", "old_string": "return load()", "new_string": "return redisCache.Load()"},
		"tool_response": map[string]any{"filePath": "orders/cache.go", "structuredPatch": []any{}},
	}))

	// Malformed and incomplete payloads: exit 0, a line on stderr, nothing stored.
	if _, r := c.hook("post-tool-use", `{"session_id": "`+captureSession+`", "tool_name": `); !strings.Contains(r.stderr, "hook not answered") {
		t.Errorf("malformed payload: stderr %q", r.stderr)
	}
	if _, r := c.hook("post-tool-use", in("PostToolUse", map[string]any{"tool_input": map[string]any{"command": "ls"}})); c.vars["RECALL_CAPTURE"] != "off" && !strings.Contains(r.stderr, "tool_name") {
		t.Errorf("payload without tool_name: stderr %q", r.stderr)
	}

	appendTranscript(t, transcript,
		transcriptLine(t, "assistant", "a-1", []any{map[string]any{"type": "text", "text": "Cached orders in Redis."}}),
		transcriptLine(t, "user", "tool-result-uuid", []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_03", "content": "ok"}}))
	c.hook("stop", in("Stop", map[string]any{"stop_hook_active": false}))

	prompt2 := "Now make the billing export skip cancelled invoices"
	appendTranscript(t, transcript, transcriptLine(t, "user", "turn-2-uuid", prompt2))
	c.hook("user-prompt-submit", in("UserPromptSubmit", map[string]any{"prompt": prompt2}))
	c.hook("post-tool-use", in("PostToolUse", map[string]any{
		"tool_name":     "Grep",
		"tool_input":    map[string]any{"pattern": "cancelled", "path": "billing"},
		"tool_response": map[string]any{"filenames": []string{"billing/export.go"}, "numFiles": 1},
	}))
	c.hook("pre-compact", in("PreCompact", map[string]any{"trigger": "auto", "custom_instructions": ""}))
	c.hook("stop", in("Stop", map[string]any{"stop_hook_active": false}))
	c.hook("session-end", in("SessionEnd", map[string]any{"reason": "prompt_input_exit"}))
	return cwd
}

// journal reads the capture session's journal straight from the database.
func (c *cliEnv) journal(session string) []*capture.Entry {
	c.t.Helper()
	db, err := sqlite.Open(context.Background(), c.dbPath)
	if err != nil {
		c.t.Fatal(err)
	}
	defer db.Close()
	es, err := db.SessionEntries(context.Background(), session, 0, 1000)
	if err != nil {
		c.t.Fatal(err)
	}
	return es
}

func TestCaptureWholeSessionThroughHooks(t *testing.T) {
	c := newCLIEnv(t)
	runCapturedSession(t, c)

	entries := c.journal(captureSession)
	var kinds []string
	all := ""
	for _, e := range entries {
		kinds = append(kinds, string(e.Kind)+":"+e.ToolName)
		all += e.Title + "\n" + e.Body + "\n"
		if e.Namespace != "project:shop-api" || e.TranscriptPath == "" {
			t.Errorf("entry %d anchored to %q / %q", e.ID, e.Namespace, e.TranscriptPath)
		}
	}
	want := []string{"prompt:", "observation:Read", "observation:Bash", "observation:Edit", "prompt:", "observation:Grep"}
	if strings.Join(kinds, " ") != strings.Join(want, " ") {
		t.Fatalf("journal holds %v, want %v", kinds, want)
	}
	for _, leaked := range []string{"12 Elm Street", sessionPass, sessionToken} {
		if strings.Contains(all, leaked) {
			t.Errorf("journal keeps %q", leaked)
		}
	}
	for _, kept := range []string{"cache the order list in Redis", "The staging password is in the .env", "[private]", "[REDACTED:", "PORT=8080"} {
		if !strings.Contains(all, kept) {
			t.Errorf("journal lacks %q", kept)
		}
	}

	bash := entries[2]
	if bash.TrimmedBytes < 5<<20-capture.MaxResponseBytes-capture.MaxInputBytes || len(bash.Body) > capture.MaxResponseBytes+capture.MaxInputBytes+200 {
		t.Errorf("5 MB output kept %d bytes of body, trimmed %d", len(bash.Body), bash.TrimmedBytes)
	}
	if !strings.HasPrefix(bash.Title, "Bash: go test ./orders/... -run Cache → orders row") {
		t.Errorf("Bash title %q", bash.Title)
	}
	if bash.TurnID != "turn-1-uuid" {
		t.Errorf("observation anchored to turn %q, want turn-1-uuid", bash.TurnID)
	}
	if edit := entries[3]; len(edit.Files) != 1 || !strings.HasSuffix(edit.Files[0], "internal/api/orders/cache.go") {
		t.Errorf("Edit files %v", edit.Files)
	}

	if out := c.ok("stats"); !strings.Contains(out, "session journal:    6 entries (1 trimmed), 1 summaries pending") {
		t.Errorf("stats do not count the capture:\n%s", out)
	}

	db, err := sqlite.Open(context.Background(), c.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	queued, err := db.ClaimJobs(context.Background(), []string{capture.SummaryJobKind}, 10, time.Minute)
	if err != nil || len(queued) != 1 || queued[0].Subject != captureSession {
		t.Fatalf("summary jobs %+v, %v; want one for the session", queued, err)
	}
}

// The three reading tools find what the hooks captured, and nothing private.
func TestCapturedSessionFoundByTheReadingTools(t *testing.T) {
	c := newCLIEnv(t)
	runCapturedSession(t, c)

	index := c.call("recall_search", `{"query": "go test ./orders/... -run Cache", "project": "project:shop-api"}`)
	results, _ := index["results"].([]any)
	if len(results) == 0 {
		t.Fatalf("search found nothing: %v", index)
	}
	first := results[0].(map[string]any)
	if !strings.HasPrefix(first["title"].(string), "Bash: go test ./orders/...") || first["kind"] != "observation" {
		t.Fatalf("best result %v, want the Bash observation", first)
	}
	id := first["id"].(string)

	tl := c.call("recall_timeline", `{"id": "`+id+`", "before": 1, "after": 1}`)
	if got := len(tl["results"].([]any)); got != 3 {
		t.Fatalf("timeline around %s: %d results: %v", id, got, tl)
	}

	details := c.call("recall_details", `{"ids": ["`+id+`"]}`)
	rec := details["records"].([]any)[0].(map[string]any)
	anchor := rec["anchor"].(map[string]any)
	if anchor["session_id"] != captureSession || anchor["turn_id"] != "turn-1-uuid" || !strings.HasSuffix(anchor["transcript_path"].(string), captureSession+".jsonl") {
		t.Errorf("anchor %v", anchor)
	}
	if !strings.Contains(rec["text"].(string), "bytes not kept") {
		t.Errorf("details of the 5 MB call do not say what was trimmed")
	}

	// No memory holds it, but the session does: memory search says where.
	out := c.ok("search", "billing export cancelled invoices")
	if !strings.Contains(out, "no memories found") || !strings.Contains(out, "captured sessions match") ||
		!strings.Contains(out, "Now make the billing export skip cancelled invoices") || !strings.Contains(out, "recall call recall_details") {
		t.Errorf("memory search for what only a captured session holds printed:\n%s", out)
	}
	if out := c.ok("search", "--json", "billing export cancelled invoices"); strings.Contains(out, "captured sessions") {
		t.Errorf("search --json prints the memory search's JSON alone:\n%s", out)
	}

	for _, q := range []string{"Elm Street", sessionPass, "R4nd0mT0k3nVa1u3Xq9Zp2Lm8Kd7Wv5Bn3Jh6Yt1"} {
		found := c.call("recall_search", `{"query": "`+q+`"}`)
		if rs, _ := found["results"].([]any); len(rs) != 0 {
			t.Errorf("search for %q found %v", q, rs)
		}
	}
}

func TestCaptureOffRecordsNothing(t *testing.T) {
	c := newCLIEnv(t)
	c.vars["RECALL_CAPTURE"] = "off"
	runCapturedSession(t, c)
	if es := c.journal(captureSession); len(es) != 0 {
		t.Fatalf("RECALL_CAPTURE=off still captured %d entries", len(es))
	}
}

func TestForgetCapturedSessionAndBeforeDate(t *testing.T) {
	c := newCLIEnv(t)
	runCapturedSession(t, c)
	if n := len(c.journal(captureSession)); n == 0 {
		t.Fatal("nothing captured")
	}
	out := c.ok("forget", "--session", captureSession)
	if !strings.Contains(out, "would delete 6 captured entries") || len(c.journal(captureSession)) != 6 {
		t.Fatalf("forget without --yes: %s", out)
	}
	out = c.ok("forget", "--session", captureSession, "--yes")
	if !strings.Contains(out, "deleted 6 captured entries") {
		t.Fatalf("forget --session: %s", out)
	}
	if n := len(c.journal(captureSession)); n != 0 {
		t.Fatalf("%d entries left after forget --session", n)
	}
	if files := c.call("file_activity_recent", `{"days": 1}`); len(files["files"].([]any)) != 0 {
		t.Errorf("file activity of the session kept: %v", files["files"])
	}

	runCapturedSession(t, c)
	if out := c.ok("forget", "--before", "2000-01-01", "--yes"); !strings.Contains(out, "deleted 0 captured entries") {
		t.Fatalf("forget --before 2000: %s", out)
	}
	if out := c.ok("forget", "--before", time.Now().Add(time.Hour).UTC().Format(time.RFC3339), "--yes"); !strings.Contains(out, "deleted 6 captured entries") {
		t.Fatalf("forget --before now: %s", out)
	}
	if r := c.run("", "forget", "--before", "last tuesday"); r.code != 2 || !strings.Contains(r.stderr, "2026-03-01") {
		t.Fatalf("bad date: exit %d, %s", r.code, r.stderr)
	}
}

// serveUntil runs `recall serve` on stdio until done reports true (polled) or
// the wait runs out, then ends it the way a client does, by closing stdin.
func (c *cliEnv) serveUntil(what string, done func() bool) {
	c.t.Helper()
	cmd := exec.Command(recallBin, "serve")
	for k, v := range c.vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, "PATH="+os.Getenv("PATH"))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		c.t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	ok := false
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if ok = done(); ok {
			break
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		c.t.Errorf("recall serve: %v\n%s", err, stderr.String())
	}
	if !ok {
		c.t.Fatalf("recall serve never got to %s\nstderr:\n%s", what, stderr.String())
	}
}

func (c *cliEnv) summaries(namespace string) []*capture.Entry {
	c.t.Helper()
	db, err := sqlite.Open(context.Background(), c.dbPath)
	if err != nil {
		c.t.Fatal(err)
	}
	defer db.Close()
	es, err := recentSummaries(context.Background(), db, namespace, 10)
	if err != nil {
		c.t.Fatal(err)
	}
	return es
}

// summaryReplies answers the summary requests with a scripted summary and
// every other chat (curation) with the fake server's default.
func summaryReplies(title string, bullets ...string) ollamatest.ChatFunc {
	return func(req api.ChatRequest) (string, error) {
		if len(req.Messages) > 0 && strings.Contains(req.Messages[0].Content, "summarise a coding session") {
			b, err := json.Marshal(map[string]any{"title": title, "bullets": bullets})
			return string(b), err
		}
		return `{"relation": "none", "confidence": 0, "reason": "unrelated", "contradicts": false}`, nil
	}
}

func TestCapturedSessionSummarisedByServeAndInjectedNextSession(t *testing.T) {
	c := newCLIEnv(t)
	c.ollama.SetChat(summaryReplies("Cached orders in Redis, started on billing export",
		"Cached the order list in Redis", "go test ./orders passes", "Looked for cancelled invoices in billing"))
	runCapturedSession(t, c)

	c.serveUntil("a session summary", func() bool { return len(c.summaries("project:shop-api")) > 0 })
	s := c.summaries("project:shop-api")[0]
	if s.SessionID != captureSession || s.TurnID != "turn-2-uuid" || s.MemoryID == "" ||
		!strings.Contains(s.Body, "- Cached the order list in Redis") {
		t.Fatalf("summary %+v", s)
	}
	prompt := ""
	for _, r := range c.ollama.ChatRequests() {
		if strings.Contains(r.Messages[0].Content, "summarise a coding session") {
			prompt = r.Messages[1].Content
		}
	}
	for _, leaked := range []string{"Elm Street", sessionPass, sessionToken} {
		if strings.Contains(prompt, leaked) {
			t.Errorf("the chat model was sent %q", leaked)
		}
	}

	// The summary is a session memory, found by the reading tools.
	found := c.call("recall_search", `{"query": "billing export cancelled invoices", "project": "project:shop-api"}`)
	kinds := map[string]bool{}
	for _, r := range found["results"].([]any) {
		kinds[r.(map[string]any)["kind"].(string)] = true
	}
	if !kinds["summary"] || !kinds["session"] {
		t.Errorf("search finds kinds %v, want the summary and its session memory", kinds)
	}

	// The next session starts with the last sessions' summaries, and a prompt
	// about the same work gets the session memory in its index.
	_, cwd := newProject(t, c, "shop-api")
	next := hookInput(t, "SessionStart", cwd, map[string]any{"source": "startup"})
	a, r := c.hook("session-start", next)
	if a == nil {
		t.Fatalf("session-start said nothing; stderr:\n%s", r.stderr)
	}
	ctxText := a.HookSpecificOutput.AdditionalContext
	if !strings.Contains(ctxText, "## Recent sessions") || !strings.Contains(ctxText, "summary ["+s.MemoryID+"]") ||
		!strings.Contains(ctxText, "Cached orders in Redis, started on billing export") {
		t.Errorf("session-start context lacks the last session:\n%s", ctxText)
	}
	a, r = c.hook("user-prompt-submit", hookInput(t, "UserPromptSubmit", cwd, map[string]any{"prompt": "Continue with the billing export for cancelled invoices"}))
	if a == nil || !strings.Contains(a.HookSpecificOutput.AdditionalContext, "["+s.MemoryID+"] session · Session summary: Cached orders") {
		t.Errorf("prompt index lacks the session summary %s; stdout %q stderr %s", s.MemoryID, r.stdout, r.stderr)
	}
	a, _ = c.hook("user-prompt-submit", hookInput(t, "UserPromptSubmit", cwd, map[string]any{"prompt": "Write a haiku about autumn leaves"}))
	if a != nil {
		t.Errorf("an unrelated prompt got memories injected:\n%s", a.HookSpecificOutput.AdditionalContext)
	}
}

func TestSummariesOffCapturesButQueuesNothing(t *testing.T) {
	c := newCLIEnv(t)
	c.vars["RECALL_SUMMARIES"] = "off"
	runCapturedSession(t, c)
	if n := len(c.journal(captureSession)); n != 6 {
		t.Fatalf("RECALL_SUMMARIES=off captured %d entries, want 6", n)
	}
	db, err := sqlite.Open(context.Background(), c.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if queued, _ := db.ClaimJobs(context.Background(), []string{capture.SummaryJobKind}, 10, time.Minute); len(queued) != 0 {
		t.Fatalf("RECALL_SUMMARIES=off queued %+v", queued)
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
