package tests

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/storage/sqlite"
)

// hookWithin runs a hook and fails the test unless it exited well within the
// 10 s busy timeout: behind a writer a hook must not sit it out (half of it
// leaves room for a fresh process on a busy machine).
func (c *cliEnv) hookWithin(event, stdin string) (*hookAnswer, cliResult) {
	c.t.Helper()
	start := time.Now()
	a, r := c.hook(event, stdin)
	if d := time.Since(start); d > 5*time.Second {
		c.t.Errorf("hook %s took %s behind a writer; stderr:\n%s", event, d, r.stderr)
	}
	if strings.Contains(r.stderr, "hook not answered") {
		c.t.Errorf("hook %s gave up behind a writer; stderr:\n%s", event, r.stderr)
	}
	return a, r
}

// spooledWrites is what `recall stats --json` counts as waiting in the spool.
func (c *cliEnv) spooledWrites() int {
	c.t.Helper()
	return int(c.stats()["spooled_writes"].(float64))
}

// fileTouches counts the recorded touches of a file.
func (c *cliEnv) fileTouches(path string) int {
	c.t.Helper()
	db, err := sqlite.Open(context.Background(), c.dbPath)
	if err != nil {
		c.t.Fatal(err)
	}
	defer db.Close()
	files, err := db.RecentFiles(context.Background(), "", time.Time{}, 0)
	if err != nil {
		c.t.Fatal(err)
	}
	for _, f := range files {
		if f.FilePath == path {
			return f.AccessCount
		}
	}
	return 0
}

// spoolFiles are the writes waiting in the spool directory dir (read without
// recall, whose commands apply them first).
func spoolFiles(t testing.TB, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// journalTitles lists the session's journal, oldest first.
func (c *cliEnv) journalTitles(session string) []string {
	c.t.Helper()
	var titles []string
	for _, e := range c.journal(session) {
		titles = append(titles, string(e.Kind)+": "+e.Title)
	}
	return titles
}

func TestHookWritesBehindAWriterAreKeptAndAppliedOnce(t *testing.T) {
	c := newCLIEnv(t)
	root, cwd := newProject(t, c, "shop-api")
	redis := c.store("Orders MUST be cached in Redis with a five minute TTL", "--type", "decision", "--namespace", "project:shop-api")
	const session = "4f1c2d9e-session" // hookInput's
	orders := filepath.Join(root, "internal", "api", "orders.go")

	// An import, a reindex or a migration in another process holds the
	// write lock while the agent works.
	released, release := holdWriteLock(t, c.dbPath)

	a, r := c.hookWithin("user-prompt-submit", hookInput(t, "UserPromptSubmit", cwd, map[string]any{"prompt": "how are orders cached in redis?"}))
	if a == nil || !strings.Contains(a.HookSpecificOutput.AdditionalContext, redis) {
		t.Errorf("user-prompt-submit behind a writer should list %s; stdout %q stderr %s", redis, r.stdout, r.stderr)
	}
	c.hookWithin("post-tool-use", hookInput(t, "PostToolUse", cwd, map[string]any{"tool_name": "Edit",
		"tool_input":    map[string]any{"file_path": orders, "old_string": "ttl := 0", "new_string": "ttl := 5 * time.Minute"},
		"tool_response": map[string]any{"filePath": orders, "success": true}}))
	stillLocked(t, released, "the hooks")

	// Nothing written yet, nothing lost: the prompt, and the tool call with
	// its touch of orders.go (one write), wait beside the database.
	if n := c.spooledWrites(); n != 2 {
		t.Fatalf("recall stats counts %d spooled writes, want 2 (prompt; tool call with its file activity)", n)
	}
	if out := c.ok("stats"); !strings.Contains(out, "spooled writes:     2 waiting") {
		t.Errorf("recall stats should say 2 writes wait in the spool:\n%s", out)
	}
	if out := c.run("", "doctor").stdout; !strings.Contains(out, "spooled writes: 2 hook writes wait") {
		t.Errorf("recall doctor should say 2 writes wait in the spool:\n%s", out)
	}
	if titles := c.journalTitles(session); len(titles) != 0 {
		t.Fatalf("the journal changed behind the writer: %q", titles)
	}
	release()

	// A drainer that stops between applying a write and removing its file
	// leaves it to be applied again: keep copies to put back.
	spoolDir := c.dbPath + ".spool"
	files, _ := filepath.Glob(filepath.Join(spoolDir, "*.json"))
	copies := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		copies[f] = b
	}

	// First drain: the agent's next tool calls are kept beside the database
	// too (post-tool-use never opens it), and the Stop hook at the end of
	// the turn applies all of them, the writes behind the writer first.
	want := []string{"prompt: how are orders cached in redis?", "observation: Edit: " + orders}
	for _, pkg := range []string{"api", "cache", "orders", "store", "web"} {
		command := "go test ./internal/" + pkg + "/"
		c.hook("post-tool-use", hookInput(t, "PostToolUse", cwd, map[string]any{"tool_name": "Bash",
			"tool_input": map[string]any{"command": command}, "tool_response": map[string]any{"stdout": "ok"}}))
		want = append(want, "observation: Bash: "+command)
	}
	if n := len(spoolFiles(t, spoolDir)); n != 7 {
		t.Fatalf("%d writes spooled before the turn's end, want 7 (2 behind the writer, 5 tool calls kept)", n)
	}
	c.hook("stop", hookInput(t, "Stop", cwd, nil))
	if n := len(spoolFiles(t, spoolDir)); n != 0 {
		t.Fatalf("%d writes still spooled after the Stop hook", n)
	}

	// Second drain, of the same writes: recall serve at its start.
	for f, b := range copies {
		if err := os.WriteFile(f, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(spoolFiles(t, spoolDir)); n != 2 {
		t.Fatalf("%d writes put back in the spool, want 2", n)
	}
	c.serveUntil("the spool drained", func() bool { return len(spoolFiles(t, spoolDir)) == 0 })

	var titles []string
	for _, title := range c.journalTitles(session) {
		// The Stop hook queued a summary, which the server may have made.
		if !strings.HasPrefix(title, "summary: ") {
			titles = append(titles, title)
		}
	}
	if len(titles) != len(want) {
		t.Fatalf("journal after two drains:\n%s\nwant the prompt, the edit and the test runs, once each", strings.Join(titles, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(titles[i], w) {
			t.Errorf("journal entry %d is %q, want it to start with %q", i, titles[i], w)
		}
	}
	if n := c.fileTouches(orders); n != 1 {
		t.Errorf("orders.go has %d recorded touches after two drains, want 1", n)
	}
	if st := c.stats(); st["failed_spooled_writes"].(float64) != 0 {
		t.Errorf("writes moved aside: %v", st["failed_spooled_writes"])
	}
}

// A session forgotten while some of its hook writes wait in the spool stays
// forgotten: forget applies the spool first, so nothing comes back later.
func TestForgetSessionTakesItsSpooledWritesToo(t *testing.T) {
	c := newCLIEnv(t)
	root, cwd := newProject(t, c, "shop-api")
	const session = "4f1c2d9e-session" // hookInput's
	orders := filepath.Join(root, "internal", "api", "orders.go")
	c.hook("user-prompt-submit", hookInput(t, "UserPromptSubmit", cwd, map[string]any{"prompt": "how are orders cached in redis?"}))

	released, release := holdWriteLock(t, c.dbPath)
	c.hookWithin("post-tool-use", hookInput(t, "PostToolUse", cwd, map[string]any{"tool_name": "Edit",
		"tool_input":    map[string]any{"file_path": orders, "old_string": "ttl := 0", "new_string": "ttl := 5 * time.Minute"},
		"tool_response": map[string]any{"filePath": orders, "success": true}}))
	stillLocked(t, released, "the hook")
	release()
	if n := len(spoolFiles(t, c.dbPath+".spool")); n == 0 {
		t.Fatal("the tool call behind the writer was not spooled: the test cannot fail")
	}

	out := c.ok("forget", "--session", session, "--yes")
	if !strings.Contains(out, "deleted 2 captured entries") {
		t.Errorf("forget --session should delete the prompt and the spooled tool call:\n%s", out)
	}
	c.serveUntil("the spool drained", func() bool { return c.spooledWrites() == 0 })
	if titles := c.journalTitles(session); len(titles) != 0 {
		t.Errorf("the forgotten session came back from the spool: %q", titles)
	}
}
