package tests

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// post-tool-use keeps its tool call beside the database without opening it
// (no write-ahead log or shared memory file appears), also when several run
// at once, and the Stop hook at the end of the turn writes every one of them
// once, in the order they ran, before the next prompt.
func TestPostToolUseKeepsToolCallsUntilTheTurnEnds(t *testing.T) {
	c := newCLIEnv(t)
	// Without summaries the Stop hook has no write of its own, before which
	// it would apply the spool anyway.
	c.vars["RECALL_SUMMARIES"] = "off"
	root, cwd := newProject(t, c, "shop-api")
	const session = "4f1c2d9e-session" // hookInput's
	c.hook("user-prompt-submit", hookInput(t, "UserPromptSubmit", cwd, map[string]any{"prompt": "how are orders cached in redis?"}))
	c.ok("stats") // the last connection closes: the log and shared memory go
	for _, f := range []string{c.dbPath + "-wal", c.dbPath + "-shm"} {
		if _, err := os.Stat(f); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s is there before the tool calls (%v): the test cannot tell whether they open the database", f, err)
		}
	}

	// The first tool call alone, then eight at once (Claude Code runs tool
	// calls side by side).
	call := func(i int) {
		c.hook("post-tool-use", hookInput(t, "PostToolUse", cwd, map[string]any{"tool_name": "Edit",
			"tool_input":    map[string]any{"file_path": filepath.Join(root, fmt.Sprintf("file%d.go", i)), "old_string": "a", "new_string": "b"},
			"tool_response": map[string]any{"success": true}}))
	}
	call(0)
	var wg sync.WaitGroup
	for i := 1; i <= 8; i++ {
		wg.Go(func() { call(i) })
	}
	wg.Wait()
	for _, f := range []string{c.dbPath + "-wal", c.dbPath + "-shm"} {
		if _, err := os.Stat(f); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s appeared: a post-tool-use hook opened the database (%v)", f, err)
		}
	}
	if n := len(spoolFiles(t, c.dbPath+".spool")); n != 9 {
		t.Fatalf("%d tool calls kept in the spool, want 9", n)
	}
	if titles := c.journalTitles(session); len(titles) != 1 {
		t.Fatalf("the journal changed before the turn's end: %q", titles)
	}

	c.hook("stop", hookInput(t, "Stop", cwd, nil))
	if n := len(spoolFiles(t, c.dbPath+".spool")); n != 0 {
		t.Fatalf("%d kept tool calls left after the Stop hook", n)
	}
	entries := c.journal(session)
	if len(entries) != 10 {
		t.Fatalf("journal holds %d entries, want the prompt and 9 tool calls once each", len(entries))
	}
	seen := map[string]int{}
	for i, e := range entries[1:] {
		if e.Namespace != "project:shop-api" || e.ToolName != "Edit" {
			t.Errorf("tool call %d: namespace %q tool %q", i, e.Namespace, e.ToolName)
		}
		seen[e.Title]++
	}
	if !strings.Contains(entries[1].Title, "file0.go") {
		t.Errorf("the first tool call written is %q, want the one that ran first (file0.go)", entries[1].Title)
	}
	for i := 0; i <= 8; i++ {
		path := filepath.Join(root, fmt.Sprintf("file%d.go", i))
		if n := c.fileTouches(path); n != 1 {
			t.Errorf("%s has %d touches, want 1", path, n)
		}
	}
	if len(seen) != 9 {
		t.Errorf("tool calls written: %v", seen)
	}
	if st := c.stats(); st["failed_spooled_writes"].(float64) != 0 {
		t.Errorf("kept tool calls moved aside: %v", st["failed_spooled_writes"])
	}
}

// A session whose turn ended without a Stop hook (interrupted, or killed)
// leaves its tool calls in the spool: the next session's start writes them
// before it lists the last sessions.
func TestSessionStartCountsTheToolCallsAnInterruptedTurnKept(t *testing.T) {
	c := newCLIEnv(t)
	c.vars["RECALL_SUMMARIES"] = "off"
	_, cwd := newProject(t, c, "shop-api")
	c.hook("user-prompt-submit", hookInput(t, "UserPromptSubmit", cwd, map[string]any{"prompt": "how are orders cached in redis?"}))
	for range 2 {
		c.hook("post-tool-use", hookInput(t, "PostToolUse", cwd, map[string]any{"tool_name": "Bash",
			"tool_input": map[string]any{"command": "go test ./..."}, "tool_response": map[string]any{"stdout": "ok"}}))
	}
	next := hookInput(t, "SessionStart", cwd, map[string]any{"source": "startup", "session_id": "9a8b7c6d-next"})
	a, r := c.hook("session-start", next)
	if a == nil || !strings.Contains(a.HookSpecificOutput.AdditionalContext, "how are orders cached in redis? (2 tool calls)") {
		t.Fatalf("session-start should list the last session with its 2 kept tool calls; stdout %q stderr %s", r.stdout, r.stderr)
	}
}
