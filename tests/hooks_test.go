package tests

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/recall-mcp/recall/hook"
	"github.com/recall-mcp/recall/storage/sqlite"
)

// hookAnswer is what Claude Code reads from a hook's stdout.
type hookAnswer struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// newProject makes a git project directory (a .git directory is all the hooks
// look for) with a subdirectory to work in, and returns both.
func newProject(t testing.TB, c *cliEnv, name string) (root, cwd string) {
	t.Helper()
	root = filepath.Join(c.dir, name)
	cwd = filepath.Join(root, "internal", "api")
	for _, d := range []string{filepath.Join(root, ".git"), cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root, cwd
}

// hookInput is a hook payload shaped as Claude Code sends it.
func hookInput(t testing.TB, event, cwd string, extra map[string]any) string {
	t.Helper()
	in := map[string]any{
		"session_id":      "4f1c2d9e-session",
		"transcript_path": filepath.Join(cwd, "transcript.jsonl"),
		"cwd":             cwd,
		"hook_event_name": event,
		"permission_mode": "default",
	}
	for k, v := range extra {
		in[k] = v
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// hook runs `recall hook <event>`, checks that it exits 0, and decodes its
// answer (nil when it answered nothing).
func (c *cliEnv) hook(event, stdin string) (*hookAnswer, cliResult) {
	c.t.Helper()
	r := c.run(stdin, "hook", event)
	if r.code != 0 {
		c.t.Fatalf("recall hook %s exited %d; a hook must always exit 0\nstderr: %s", event, r.code, r.stderr)
	}
	if strings.TrimSpace(r.stdout) == "" {
		return nil, r
	}
	var a hookAnswer
	if err := json.Unmarshal([]byte(r.stdout), &a); err != nil {
		c.t.Fatalf("recall hook %s printed something that is not JSON: %v\n%s", event, err, r.stdout)
	}
	return &a, r
}

func TestHookSessionStartInjectsProjectAndGlobalContext(t *testing.T) {
	c := newCLIEnv(t)
	_, cwd := newProject(t, c, "shop-api")
	mine := c.store("Orders MUST be cached in Redis with a five minute TTL", "--type", "decision", "--namespace", "project:shop-api")
	global := c.store("You MUST write commit messages in the imperative mood", "--type", "preference", "--namespace", "global")
	other := c.store("The billing service MUST use Kafka for invoices", "--type", "decision", "--namespace", "project:billing")

	a, r := c.hook("session-start", hookInput(t, "SessionStart", cwd, map[string]any{"source": "startup", "model": "claude-sonnet-4"}))
	if a == nil {
		t.Fatalf("session-start answered nothing; stderr:\n%s", r.stderr)
	}
	if a.HookSpecificOutput.HookEventName != "SessionStart" {
		t.Fatalf("hookEventName = %q, want SessionStart", a.HookSpecificOutput.HookEventName)
	}
	ctx := a.HookSpecificOutput.AdditionalContext
	for _, want := range []string{"Orders MUST be cached in Redis", "commit messages in the imperative mood", "MUST", "project:shop-api"} {
		if !strings.Contains(ctx, want) {
			t.Errorf("session context lacks %q:\n%s", want, ctx)
		}
	}
	if strings.Contains(ctx, "Kafka") || strings.Contains(ctx, other) {
		t.Errorf("session context of shop-api holds billing's memory %s:\n%s", other, ctx)
	}
	_, _ = mine, global

	sess := c.session("4f1c2d9e-session")
	if sess.Namespace != "project:shop-api" || sess.Cwd != cwd || sess.StartedAt.IsZero() || sess.EndedAt != nil {
		t.Fatalf("session start recorded as %+v", sess)
	}
}

func TestHookSessionStartWithoutMemoriesSaysNothing(t *testing.T) {
	c := newCLIEnv(t)
	_, cwd := newProject(t, c, "empty")
	if a, r := c.hook("session-start", hookInput(t, "SessionStart", cwd, map[string]any{"source": "startup"})); a != nil {
		t.Fatalf("with no memories session-start should answer nothing, got %q", r.stdout)
	}
}

var indexLine = regexp.MustCompile(`(?m)^- \[(\S+)\] (\w+) · (.+)$`)

func TestHookUserPromptSubmitListsRelevantMemories(t *testing.T) {
	c := newCLIEnv(t)
	_, cwd := newProject(t, c, "shop-api")
	redis := c.store("Orders MUST be cached in Redis with a five minute TTL", "--type", "decision", "--namespace", "project:shop-api")
	tabs := c.store("You MUST indent Go code with tabs, never spaces", "--type", "preference")
	other := c.store("Orders in billing MUST be cached in Memcached", "--type", "decision", "--namespace", "project:billing")

	if a, r := c.hook("user-prompt-submit", hookInput(t, "UserPromptSubmit", cwd, map[string]any{"prompt": "go on"})); a != nil {
		t.Fatalf("a prompt under 10 characters should get no memories, got %q", r.stdout)
	}

	a, r := c.hook("user-prompt-submit", hookInput(t, "UserPromptSubmit", cwd, map[string]any{"prompt": "Why are orders slow? Check how orders are cached"}))
	if a == nil {
		t.Fatalf("a real prompt got no memories; stderr:\n%s", r.stderr)
	}
	if a.HookSpecificOutput.HookEventName != "UserPromptSubmit" {
		t.Fatalf("hookEventName = %q", a.HookSpecificOutput.HookEventName)
	}
	text := a.HookSpecificOutput.AdditionalContext
	if !strings.HasPrefix(text, "## Relevant memories (recall)\n") {
		t.Fatalf("index lacks its heading:\n%s", text)
	}
	lines := indexLine.FindAllStringSubmatch(text, -1)
	if len(lines) == 0 || lines[0][1] != redis || lines[0][2] != "decision" || !strings.HasPrefix(lines[0][3], "Orders MUST be cached in Redis") {
		t.Fatalf("the Redis decision %s should come first as `- [id] decision · content`:\n%s", redis, text)
	}
	for _, l := range lines {
		if l[1] == other {
			t.Fatalf("the index holds billing's memory %s:\n%s", other, text)
		}
	}
	if len(text) > 600*4 {
		t.Fatalf("index of %d bytes exceeds ~600 tokens", len(text))
	}
	_ = tabs
}

func TestHookPostToolUseRecordsFileActivity(t *testing.T) {
	c := newCLIEnv(t)
	root, cwd := newProject(t, c, "shop-api")
	file := filepath.Join(root, "internal", "api", "orders.go")
	notebook := filepath.Join(root, "analysis.ipynb")

	for _, in := range []string{
		hookInput(t, "PostToolUse", cwd, map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": file, "old_string": "a", "new_string": "b"}, "tool_response": map[string]any{"success": true}}),
		hookInput(t, "PostToolUse", cwd, map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": file}}),
		hookInput(t, "PostToolUse", cwd, map[string]any{"tool_name": "NotebookEdit", "tool_input": map[string]any{"notebook_path": notebook, "new_source": "x = 1"}}),
		hookInput(t, "PostToolUse", cwd, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "go test ./..."}}),
	} {
		if a, r := c.hook("post-tool-use", in); a != nil {
			t.Fatalf("post-tool-use should answer nothing, got %q", r.stdout)
		}
	}

	var recent struct {
		Files []struct {
			FilePath    string         `json:"file_path"`
			FileType    string         `json:"file_type"`
			ProjectRoot string         `json:"project_root"`
			AccessCount int            `json:"access_count"`
			LastAction  string         `json:"last_action"`
			Actions     map[string]int `json:"actions"`
		} `json:"files"`
	}
	out := c.ok("call", "file_activity_recent", `{"project_root": `+quote(root)+`}`)
	if err := json.Unmarshal([]byte(out), &recent); err != nil {
		t.Fatalf("file_activity_recent: %v\n%s", err, out)
	}
	if len(recent.Files) != 2 {
		t.Fatalf("want 2 files recorded (Bash ignored), got:\n%s", out)
	}
	byPath := map[string]int{}
	for i, f := range recent.Files {
		byPath[f.FilePath] = i
		if f.ProjectRoot != root {
			t.Errorf("%s recorded under project %q, want the git root %q", f.FilePath, f.ProjectRoot, root)
		}
	}
	i, ok := byPath[file]
	if !ok {
		t.Fatalf("%s not recorded:\n%s", file, out)
	}
	if f := recent.Files[i]; f.AccessCount != 2 || f.Actions["edit"] != 1 || f.Actions["read"] != 1 || f.FileType == "" {
		t.Fatalf("orders.go recorded as %+v, want one edit and one read with a file type", f)
	}
	j, ok := byPath[notebook]
	if !ok || recent.Files[j].Actions["edit"] != 1 {
		t.Fatalf("NotebookEdit should be recorded as an edit of %s:\n%s", notebook, out)
	}
}

// A hook that finds the write-ahead log grown past a megabyte empties it
// before it exits: every process that opens the database while no other has
// it open reads the whole log first, so a log left to grow is paid by every
// hook after it.
func TestAHookEmptiesAGrownWriteAheadLog(t *testing.T) {
	c := newCLIEnv(t)
	_, cwd := newProject(t, c, "shop-api")
	c.ok("stats") // creates the database
	// A megabyte and a half of the log, written by a process that keeps the
	// database open (closing the last connection would empty the log itself).
	db, err := sql.Open("sqlite3", "file:"+c.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`INSERT INTO meta (key, value) VALUES ('test-filler', hex(randomblob(800000)))`,
		`DELETE FROM meta WHERE key = 'test-filler'`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	walSize := func() int64 {
		fi, err := os.Stat(c.dbPath + "-wal")
		if errors.Is(err, fs.ErrNotExist) {
			return 0
		}
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	if n := walSize(); n < sqlite.ShortLivedCheckpointAt {
		t.Fatalf("the log holds %d bytes; the test needs over %d", n, sqlite.ShortLivedCheckpointAt)
	}
	// post-tool-use keeps its tool call beside the database without opening
	// it; the Stop hook at the end of the turn writes it.
	c.hook("post-tool-use", hookInput(t, "PostToolUse", cwd, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "go test ./..."}}))
	c.hook("stop", hookInput(t, "Stop", cwd, nil))
	if n := walSize(); n != 0 {
		t.Fatalf("the log holds %d bytes after the hook; want it emptied", n)
	}
	var calls int
	if err := db.QueryRow(`SELECT count(*) FROM journal WHERE kind = 'observation'`).Scan(&calls); err != nil || calls != 1 {
		t.Fatalf("%d tool calls recorded (%v); want the hook's", calls, err)
	}
}

func TestHookSessionEndRecordsTheEnd(t *testing.T) {
	c := newCLIEnv(t)
	// This test is about what is recorded, not about time: on a loaded
	// machine the first hook (which creates the database) could pass the
	// default deadline and leave its write in the spool, which the direct
	// reads below do not see.
	c.vars["RECALL_HOOK_TIMEOUT"] = "10s"
	_, cwd := newProject(t, c, "shop-api")
	c.hook("session-start", hookInput(t, "SessionStart", cwd, map[string]any{"source": "startup"}))
	started := c.session("4f1c2d9e-session").StartedAt

	if a, r := c.hook("session-end", hookInput(t, "SessionEnd", cwd, map[string]any{"reason": "prompt_input_exit"})); a != nil {
		t.Fatalf("session-end should answer nothing, got %q", r.stdout)
	}
	s := c.session("4f1c2d9e-session")
	if s.EndedAt == nil || s.EndReason != "prompt_input_exit" || !s.StartedAt.Equal(started) {
		t.Fatalf("session end recorded as %+v (started %v)", s, started)
	}
}

func TestHookMalformedInputExitsQuietly(t *testing.T) {
	c := newCLIEnv(t)
	for _, event := range []string{"session-start", "user-prompt-submit", "post-tool-use", "session-end"} {
		for _, body := range []string{"", "not json at all", `{"session_id": 42`, `["an", "array"]`} {
			a, r := c.hook(event, body)
			if a != nil || r.stdout != "" {
				t.Errorf("hook %s with %q answered %q; want nothing", event, body, r.stdout)
			}
			if !strings.Contains(r.stderr, "hook not answered") {
				t.Errorf("hook %s with %q should log why on stderr, got %q", event, body, r.stderr)
			}
		}
	}
	if a, r := c.hook("notification", hookInput(t, "Notification", c.dir, nil)); a != nil || !strings.Contains(r.stderr, "session-start") {
		t.Errorf("an unknown event should answer nothing and log the accepted ones; stdout %q stderr %q", r.stdout, r.stderr)
	}
}

func TestHookAnswersWithOllamaDown(t *testing.T) {
	c := newCLIEnv(t)
	_, cwd := newProject(t, c, "shop-api")
	redis := c.store("Orders MUST be cached in Redis with a five minute TTL", "--type", "decision", "--namespace", "project:shop-api")
	c.ollama.Close()

	a, r := c.hook("user-prompt-submit", hookInput(t, "UserPromptSubmit", cwd, map[string]any{"prompt": "how are orders cached in redis?"}))
	if a == nil || !strings.Contains(a.HookSpecificOutput.AdditionalContext, redis) {
		t.Fatalf("with Ollama down the prompt hook should still find %s by keywords; stdout %q stderr %s", redis, r.stdout, r.stderr)
	}
	a, r = c.hook("session-start", hookInput(t, "SessionStart", cwd, map[string]any{"source": "resume"}))
	if a == nil || !strings.Contains(a.HookSpecificOutput.AdditionalContext, "Orders MUST be cached in Redis") {
		t.Fatalf("with Ollama down session-start should still inject context; stdout %q stderr %s", r.stdout, r.stderr)
	}
}

func TestHookAnswersWhenOllamaHangs(t *testing.T) {
	c := newCLIEnv(t)
	_, cwd := newProject(t, c, "shop-api")
	redis := c.store("Orders MUST be cached in Redis with a five minute TTL", "--type", "decision", "--namespace", "project:shop-api")
	c.ollama.SetDelay(10 * time.Minute) // far beyond any hook timeout
	c.vars["RECALL_HOOK_TIMEOUT"] = "300ms"
	// The late vector starts the probe, a process of its own that waits
	// RECALL_OLLAMA_TIMEOUT for the hung Ollama and then writes its verdict
	// beside the database: it must be done before the test's directory goes.
	c.vars["RECALL_OLLAMA_TIMEOUT"] = "1s"
	t.Cleanup(func() { waitForProbe(t, c.dbPath) })

	a, r := c.hook("user-prompt-submit", hookInput(t, "UserPromptSubmit", cwd, map[string]any{"prompt": "how are orders cached in redis?"}))
	if a == nil || !strings.Contains(a.HookSpecificOutput.AdditionalContext, redis) {
		t.Fatalf("with Ollama hanging the prompt hook should give up on it and answer from keywords; stdout %q stderr %s", r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "keywords only") {
		t.Errorf("the hook should log that it fell back to keywords; stderr:\n%s", r.stderr)
	}
}

// waitForProbe waits until the Ollama probe a hook started against the
// database at dbPath has written its verdict (the hook's own note says the
// vector was late; the probe's says what Ollama did), at most 20 s.
func waitForProbe(t *testing.T, dbPath string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		st, err := hook.ReadOllamaState(hook.OllamaStatePath(dbPath))
		if err == nil && st != nil && strings.HasPrefix(st.Reason, "Ollama failed") {
			time.Sleep(100 * time.Millisecond) // it exits right after writing
			return
		}
	}
	t.Error("the Ollama probe the hook started wrote no verdict within 20 s")
}

func TestHookWithLockedDatabaseExitsQuietly(t *testing.T) {
	c := newCLIEnv(t)
	root, cwd := newProject(t, c, "shop-api")
	c.store("Orders MUST be cached in Redis with a five minute TTL", "--type", "decision", "--namespace", "project:shop-api")
	c.vars["RECALL_HOOK_TIMEOUT"] = "200ms"

	// Another process holds the write lock for the whole test.
	db, err := sql.Open("sqlite3", "file:"+c.dbPath+"?_busy_timeout=0")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(context.Background(), "ROLLBACK")

	for event, in := range map[string]string{
		"post-tool-use": hookInput(t, "PostToolUse", cwd, map[string]any{"tool_name": "Write", "tool_input": map[string]any{"file_path": filepath.Join(root, "main.go"), "content": "package main"}}),
		"session-end":   hookInput(t, "SessionEnd", cwd, map[string]any{"reason": "logout"}),
	} {
		a, r := c.hook(event, in)
		if a != nil || r.stdout != "" {
			t.Errorf("hook %s on a locked database answered %q; want nothing", event, r.stdout)
		}
		// Its writes are not lost: they wait in the spool for the lock.
		if !strings.Contains(r.stderr, "kept in the spool") || strings.Contains(r.stderr, "hook not answered") {
			t.Errorf("hook %s on a locked database should spool its writes and say so; stderr:\n%s", event, r.stderr)
		}
	}
	// Reading hooks may still answer (WAL lets readers in), but never fail.
	c.hook("user-prompt-submit", hookInput(t, "UserPromptSubmit", cwd, map[string]any{"prompt": "how are orders cached in redis?"}))
}

// session reads a session record back from the database.
func (c *cliEnv) session(id string) *sessionRecord {
	c.t.Helper()
	db, err := sqlite.Open(context.Background(), c.dbPath)
	if err != nil {
		c.t.Fatal(err)
	}
	defer db.Close()
	var s sessionRecord
	var started, ended string
	if err := db.SQL().QueryRowContext(context.Background(), `SELECT namespace, cwd, started_at, ended_at, end_reason FROM sessions WHERE id = ?`, id).
		Scan(&s.Namespace, &s.Cwd, &started, &ended, &s.EndReason); err != nil {
		c.t.Fatalf("session %s: %v", id, err)
	}
	if s.StartedAt, err = time.Parse(time.RFC3339Nano, started); err != nil {
		c.t.Fatalf("session %s started_at: %v", id, err)
	}
	if ended != "" {
		end, err := time.Parse(time.RFC3339Nano, ended)
		if err != nil {
			c.t.Fatalf("session %s ended_at: %v", id, err)
		}
		s.EndedAt = &end
	}
	return &s
}

type sessionRecord struct {
	Namespace string
	Cwd       string
	StartedAt time.Time
	EndedAt   *time.Time
	EndReason string
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestHookUserPromptSubmitIsNotCrowdedOutByOtherProjects(t *testing.T) {
	c := newCLIEnv(t)
	_, cwd := newProject(t, c, "shop-api")
	for i := range 40 {
		c.store(fmt.Sprintf("Billing note %d: orders are cached in the billing cache for %d minutes", i, i), "--type", "pattern", "--namespace", "project:billing")
	}
	mine := c.store("Orders are cached per customer in shop-api", "--type", "decision", "--namespace", "project:shop-api")

	a, r := c.hook("user-prompt-submit", hookInput(t, "UserPromptSubmit", cwd, map[string]any{"prompt": "how long are orders cached in the cache?"}))
	if a == nil {
		t.Fatalf("no answer; stderr:\n%s", r.stderr)
	}
	lines := indexLine.FindAllStringSubmatch(a.HookSpecificOutput.AdditionalContext, -1)
	if len(lines) != 1 || lines[0][1] != mine {
		t.Fatalf("the index should hold shop-api's memory %s alone, whatever billing holds:\n%s", mine, a.HookSpecificOutput.AdditionalContext)
	}
}

func TestHookLearnsOnceThatOllamaHangs(t *testing.T) {
	c := newCLIEnv(t)
	_, cwd := newProject(t, c, "shop-api")
	redis := c.store("Orders MUST be cached in Redis with a five minute TTL", "--type", "decision", "--namespace", "project:shop-api")
	hung := newHungOllama(t)
	c.vars["RECALL_OLLAMA_HOST"] = hung.URL()
	c.vars["RECALL_HOOK_TIMEOUT"] = "1s" // the vector side's budget
	// The probe the first hook starts in the background gives up after this.
	c.vars["RECALL_OLLAMA_TIMEOUT"] = "2s"
	prompt := hookInput(t, "UserPromptSubmit", cwd, map[string]any{"prompt": "how are orders cached in redis?"})
	state := c.dbPath + ".ollama"

	start := time.Now()
	a, r := c.hook("user-prompt-submit", prompt)
	first := time.Since(start)
	if a == nil || !strings.Contains(a.HookSpecificOutput.AdditionalContext, redis) {
		t.Fatalf("the first hook should give up on the hung Ollama and answer from keywords; stdout %q stderr %s", r.stdout, r.stderr)
	}
	if first > 3*time.Second {
		t.Errorf("the first hook took %s; its vector budget is 1s", first)
	}
	// The prompt's embedding; the probe the first hook starts in the
	// background embeds a text of its own.
	const promptText = "how are orders cached in redis?"
	tried := 0
	for deadline := time.Now().Add(5 * time.Second); tried == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		tried = hung.asked(promptText)
	}
	if tried == 0 {
		t.Errorf("the first hook did not try Ollama")
	}
	// What the first hook noted, read before anything else can renew it:
	// the probe it started renews it within RECALL_OLLAMA_TIMEOUT, possibly
	// while the ten hooks below run on a busy machine.
	noted := readOllamaNote(t, state)

	var took []time.Duration
	for range 10 {
		start := time.Now()
		a, r := c.hook("user-prompt-submit", prompt)
		took = append(took, time.Since(start))
		if a == nil || !strings.Contains(a.HookSpecificOutput.AdditionalContext, redis) {
			t.Fatalf("a later hook should answer from keywords; stdout %q stderr %s", r.stdout, r.stderr)
		}
		if !strings.Contains(r.stderr, "keywords only") {
			t.Errorf("a later hook should log that it skipped vectors; stderr:\n%s", r.stderr)
		}
	}
	if n := hung.asked(promptText); n != tried {
		t.Errorf("the 10 later hooks asked the hung Ollama %d times; they should not have tried", n-tried)
	}
	// A hook that waited for Ollama would take its whole budget (1 s); one
	// that skips it takes what a fresh process takes, which a busy machine
	// can stretch to hundreds of milliseconds.
	slices.Sort(took)
	if median := took[len(took)/2]; median >= time.Second {
		t.Errorf("later hooks took %s at the median, their vector budget; they should not wait for Ollama (%v)", median, took)
	}

	// The probe the first hook started gives up on the hung Ollama and
	// renews the state, keeping when Ollama was first found wanting (this
	// test's own probe, below, must come after it).
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		now := readOllamaNote(t, state)
		if now.Checked.After(noted.Checked) {
			if !now.Since.Equal(noted.Since) {
				t.Errorf("the probe moved since from %s to %s", noted.Since, now.Since)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the background probe never renewed the state: noted %+v, now %+v", noted, now)
		}
	}

	// Ollama answers again, but until a probe says so the hooks skip it:
	// doctor tells why prompts are recalled by keywords and what to run.
	c.vars["RECALL_OLLAMA_HOST"] = c.ollama.URL()
	var note struct{ Reason string }
	if b, err := os.ReadFile(state); err != nil || json.Unmarshal(b, &note) != nil || note.Reason == "" {
		t.Fatalf("state %q: %v", b, err)
	}
	if r := c.run("", "doctor"); !strings.Contains(r.stdout, "[warn] prompt hooks skip Ollama and recall by keywords only") ||
		!strings.Contains(r.stdout, note.Reason) || !strings.Contains(r.stdout, "fix: recall hook --probe-ollama") {
		t.Errorf("doctor should report the hooks' note on Ollama and the probe that clears it:\n%s", r.stdout)
	}
	// The probe (which a hook starts in the background once the state is
	// 30 s old) finds it and the hooks use vectors again.
	if r := c.run("", "hook", "--probe-ollama"); r.code != 0 {
		t.Fatalf("probe exited %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(state); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a probe that got an answer in time should remove the state: %v", err)
	}
	if r := c.run("", "doctor"); strings.Contains(r.stdout, "prompt hooks skip Ollama") {
		t.Errorf("with the note gone doctor should not report it:\n%s", r.stdout)
	}
	_, r = c.hook("user-prompt-submit", prompt)
	if strings.Contains(r.stderr, "keywords only") {
		t.Errorf("with Ollama back the hook should use vectors again; stderr:\n%s", r.stderr)
	}
}

// readOllamaNote reads the hooks' note on Ollama beside the database.
func readOllamaNote(t *testing.T, path string) hook.OllamaState {
	t.Helper()
	st, err := hook.ReadOllamaState(path)
	if err != nil || st == nil {
		t.Fatalf("no note on Ollama at %s: %v", path, err)
	}
	return *st
}

// A prompt that finds the model still loading (Ollama unloads one left idle)
// answers from keywords within its budget; the late vector is not waited out
// for RetryAfter: a probe starts at once, off the prompt's path, waits for the
// model and lifts the state, so the next prompt has its vector again.
func TestALateVectorWarmsOllamaForTheNextPrompt(t *testing.T) {
	c := newCLIEnv(t)
	_, cwd := newProject(t, c, "shop-api")
	redis := c.store("Orders MUST be cached in Redis with a five minute TTL", "--type", "decision", "--namespace", "project:shop-api")
	// The probe lifts the state when three fresh clients each embed within
	// three quarters of the budget: 1.5 s, well above a loaded machine's own
	// delays (300 ms of budget failed at 584 ms under load).
	c.vars["RECALL_HOOK_TIMEOUT"] = "2s"
	prompt := hookInput(t, "UserPromptSubmit", cwd, map[string]any{"prompt": "how are orders cached in redis?"})
	state := c.dbPath + ".ollama"

	c.ollama.SetDelay(3 * time.Second) // the model is being loaded: past the budget
	a, r := c.hook("user-prompt-submit", prompt)
	if a == nil || !strings.Contains(a.HookSpecificOutput.AdditionalContext, redis) || !strings.Contains(r.stderr, "keywords only") {
		t.Fatalf("the first prompt should answer from keywords within its budget; stdout %q stderr %s", r.stdout, r.stderr)
	}
	if _, err := os.Stat(state); err != nil {
		t.Fatalf("the late vector should be noted for the next hooks: %v", err)
	}
	c.ollama.SetDelay(0) // loaded

	// Well within RetryAfter (30 s): the probe the first hook started lifts
	// the state once the model answers in time.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(state); errors.Is(err, fs.ErrNotExist) {
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(state)
			t.Fatalf("no probe lifted the state after the late vector: %s", b)
		}
	}
	a, r = c.hook("user-prompt-submit", prompt)
	if a == nil || !strings.Contains(a.HookSpecificOutput.AdditionalContext, redis) || strings.Contains(r.stderr, "keywords only") {
		t.Fatalf("the next prompt should have its vector; stdout %q stderr %s", r.stdout, r.stderr)
	}
}

func TestOllamaProbeKeepsHooksOffASlowOllama(t *testing.T) {
	c := newCLIEnv(t)
	c.ok("stats")
	c.ollama.SetDelay(300 * time.Millisecond)
	c.vars["RECALL_HOOK_TIMEOUT"] = "100ms"
	if r := c.run("", "hook", "--probe-ollama"); r.code != 0 {
		t.Fatalf("probe exited %d: %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(c.dbPath + ".ollama")
	if err != nil || !strings.Contains(string(b), "over the hooks' budget") {
		t.Fatalf("an Ollama slower than the budget should keep the hooks off it; state %q, %v", b, err)
	}

	// Within the budget, but not within three quarters of it: some hooks,
	// which share the machine with their own search, would be late.
	c.vars["RECALL_HOOK_TIMEOUT"] = "1s"
	c.ollama.SetDelay(900 * time.Millisecond)
	if r := c.run("", "hook", "--probe-ollama"); r.code != 0 {
		t.Fatalf("probe exited %d: %s", r.code, r.stderr)
	}
	if b, err := os.ReadFile(c.dbPath + ".ollama"); err != nil || !strings.Contains(string(b), "within three quarters") {
		t.Fatalf("an Ollama that needs most of the budget should keep the hooks off it; state %q, %v", b, err)
	}
}

// The probe times what a hook pays: each timed embedding on a client and a
// connection of its own, after one that may load the model.
func TestOllamaProbeTimesEmbeddingsOnFreshConnections(t *testing.T) {
	c := newCLIEnv(t)
	c.ok("stats")
	state := c.dbPath + ".ollama"
	if err := os.WriteFile(state, []byte(`{"since":"2026-01-02T03:04:05Z","checked":"2026-01-02T03:04:05Z","reason":"Ollama failed: test"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	before := c.ollama.Connections()
	if r := c.run("", "hook", "--probe-ollama"); r.code != 0 {
		t.Fatalf("probe exited %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(state); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("an Ollama that answers at once should have the note lifted: %v", err)
	}
	embeds := c.ollama.Counts().EmbedCalls
	if conns := c.ollama.Connections() - before; embeds < 4 || conns < embeds {
		t.Errorf("the probe made %d embeddings over %d connections; want the model loaded, then 3 timed, each on a connection of its own", embeds, conns)
	}
}
