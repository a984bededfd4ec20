package tests

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A running recall serve answers the hooks on the socket beside the database:
// the hook prints its answer and the server makes the writes.
func TestHooksAreAnsweredByARunningServer(t *testing.T) {
	c := newCLIEnv(t)
	root, cwd := newProject(t, c, "shop-api")
	redis := c.store("Orders MUST be cached in Redis with a five minute TTL", "--type", "decision", "--namespace", "project:shop-api")
	sock := c.dbPath + ".sock"

	// On a loaded machine a hook may find the server too busy to take it in
	// time and rightly do the work itself; each try is a session of its own
	// (and a file of its own), and the checks are made on the one the server
	// answered.
	var session, orders string
	try := 0
	c.serveUntil("answering hooks", func() bool {
		if _, err := os.Stat(sock); err != nil {
			return false
		}
		info, err := os.Stat(sock)
		if err != nil || info.Mode().Perm() != 0o600 {
			t.Fatalf("the socket must be its owner's alone: %v, %v", info.Mode(), err)
		}
		try++
		session = fmt.Sprintf("4f1c2d9e-session-%d", try)
		orders = filepath.Join(root, "internal", "api", fmt.Sprintf("orders%d.go", try))
		a, r := c.hook("user-prompt-submit", hookInput(t, "UserPromptSubmit", cwd, map[string]any{"session_id": session, "prompt": "how are orders cached in redis?"}))
		if a == nil || !strings.Contains(a.HookSpecificOutput.AdditionalContext, redis) {
			t.Fatalf("the answer should list %s; stdout %q stderr %s", redis, r.stdout, r.stderr)
		}
		if !strings.Contains(r.stderr, "answered by recall serve") {
			t.Logf("try %d: the hook did the work itself while a server ran:\n%s", try, r.stderr)
			return false
		}
		_, r = c.hook("post-tool-use", hookInput(t, "PostToolUse", cwd, map[string]any{"session_id": session, "tool_name": "Edit",
			"tool_input":    map[string]any{"file_path": orders, "old_string": "ttl := 0", "new_string": "ttl := 5 * time.Minute"},
			"tool_response": map[string]any{"filePath": orders, "success": true}}))
		if !strings.Contains(r.stderr, "answered by recall serve") {
			t.Logf("try %d: post-tool-use did the work itself while a server ran:\n%s", try, r.stderr)
			return false
		}
		return true
	})
	titles := c.journalTitles(session)
	if len(titles) != 2 || !strings.HasPrefix(titles[0], "prompt: how are orders cached") || !strings.HasPrefix(titles[1], "observation: Edit: "+orders) {
		t.Fatalf("journal after the server answered: %q", titles)
	}
	if n := c.fileTouches(orders); n != 1 {
		t.Errorf("%s has %d touches, want 1", orders, n)
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("the server left its socket behind: %v", err)
	}
}

// stuckServer takes a hook's connection on the database's socket, greets it as
// recall serve does, reads its request and never answers, as a server stuck
// mid-request does.
func stuckServer(t *testing.T, path string) (requests chan string) {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	requests = make(chan string, 10)
	var held []net.Conn
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, conn)
			io.WriteString(conn, "recall-hooks 1\n")
			line, _ := bufio.NewReader(conn).ReadString('\n')
			requests <- line
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		for _, c := range held {
			c.Close()
		}
	})
	return requests
}

func TestHookFallsBackWhenTheServerStopsAnswering(t *testing.T) {
	const session = "4f1c2d9e-session"
	var (
		c        *cliEnv
		cwd      string
		orders   string
		redis    string
		requests chan string
		a        *hookAnswer
		r        cliResult
		took     time.Duration
	)
	// A hook takes a server that greets it within 10 ms; the stand-in below
	// is this test's own goroutine, which a busy machine may not run that
	// soon. The hook then rightly does the work without asking (the case of
	// TestHookFallsBackWhenTheServerTakesNoConnection), and the case checked
	// here is set up again, on a new database.
	for try := 1; ; try++ {
		c = newCLIEnv(t)
		var root string
		root, cwd = newProject(t, c, "shop-api")
		redis = c.store("Orders MUST be cached in Redis with a five minute TTL", "--type", "decision", "--namespace", "project:shop-api")
		orders = filepath.Join(root, "internal", "api", "orders.go")
		requests = stuckServer(t, c.dbPath+".sock")
		c.vars["RECALL_HOOK_TIMEOUT"] = "100ms"

		start := time.Now()
		a, r = c.hook("user-prompt-submit", hookInput(t, "UserPromptSubmit", cwd, map[string]any{"prompt": "how are orders cached in redis?"}))
		took = time.Since(start)
		if !strings.Contains(r.stderr, "did not take the hook") || try == 3 {
			break
		}
		t.Logf("try %d: the stand-in server greeted the hook too late; setting it up again", try)
	}
	if a == nil || !strings.Contains(a.HookSpecificOutput.AdditionalContext, redis) {
		t.Fatalf("the hook should do the work itself when the server does not answer; stdout %q stderr %s", r.stdout, r.stderr)
	}
	if took > 2*time.Second {
		t.Errorf("the hook took %s with a stuck server", took)
	}
	if !strings.Contains(r.stderr, "did not answer") {
		t.Errorf("the hook should say the server did not answer:\n%s", r.stderr)
	}
	c.hook("post-tool-use", hookInput(t, "PostToolUse", cwd, map[string]any{"tool_name": "Edit",
		"tool_input":    map[string]any{"file_path": orders, "old_string": "a", "new_string": "b"},
		"tool_response": map[string]any{"success": true}}))
	if len(requests) != 2 {
		t.Errorf("the stuck server got %d requests, want both hooks'", len(requests))
	}
	if req := <-requests; !strings.Contains(req, `"event":"user-prompt-submit"`) || !strings.Contains(req, "orders cached in redis") {
		t.Errorf("the request carries the event and the hook's input: %s", req)
	}
	// Nothing lost: the prompt, the tool call and the touch are recorded.
	if titles := c.journalTitles(session); len(titles) != 2 {
		t.Fatalf("journal after the fallback: %q", titles)
	}
	if n := c.fileTouches(orders); n != 1 {
		t.Errorf("orders.go has %d touches, want 1", n)
	}
}

// A server that does not take connections at all (stuck, or its process
// stopped): on a Unix socket the kernel still completes the connection, so
// only the missing greeting tells the hook. It waits a few milliseconds, not
// the answer's whole wait, and sends nothing the server could act on later.
func TestHookFallsBackWhenTheServerTakesNoConnection(t *testing.T) {
	c := newCLIEnv(t)
	root, cwd := newProject(t, c, "shop-api")
	redis := c.store("Orders MUST be cached in Redis with a five minute TTL", "--type", "decision", "--namespace", "project:shop-api")
	const session = "4f1c2d9e-session"
	orders := filepath.Join(root, "internal", "api", "orders.go")
	ln, err := net.Listen("unix", c.dbPath+".sock")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()                     // never accepts: connections wait in the kernel's queue
	c.vars["RECALL_HOOK_TIMEOUT"] = "5s" // the answer's wait would be 5.4 s

	start := time.Now()
	a, r := c.hook("user-prompt-submit", hookInput(t, "UserPromptSubmit", cwd, map[string]any{"prompt": "how are orders cached in redis?"}))
	took := time.Since(start)
	if a == nil || !strings.Contains(a.HookSpecificOutput.AdditionalContext, redis) {
		t.Fatalf("the hook should do the work itself when the server takes no connection; stdout %q stderr %s", r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "did not take the hook") {
		t.Errorf("the hook should say the server did not take it:\n%s", r.stderr)
	}
	if took > 3*time.Second {
		t.Errorf("the hook took %s: it waited for an answer from a server that never took the connection", took)
	}
	c.hook("post-tool-use", hookInput(t, "PostToolUse", cwd, map[string]any{"tool_name": "Edit",
		"tool_input":    map[string]any{"file_path": orders, "old_string": "a", "new_string": "b"},
		"tool_response": map[string]any{"success": true}}))
	// post-tool-use keeps its tool call beside the database; the turn's
	// Stop hook writes it.
	c.hook("stop", hookInput(t, "Stop", cwd, nil))
	if titles := c.journalTitles(session); len(titles) != 2 {
		t.Fatalf("journal after the fallback: %q", titles)
	}
	if n := c.fileTouches(orders); n != 1 {
		t.Errorf("orders.go has %d touches, want 1", n)
	}
	// The queued connections carry no request: a server that takes them
	// late finds nothing to do twice.
	for range 3 {
		conn, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		conn.SetReadDeadline(time.Now().Add(time.Second))
		if b, _ := io.ReadAll(conn); len(b) != 0 {
			t.Errorf("a hook sent %q to a server that had not greeted it", b)
		}
		conn.Close()
	}
}

// With RECALL_OLLAMA=off a server answering the prompt hook asks Ollama
// nothing, as a hook working alone does: no embedding, and no note that
// Ollama is down.
func TestServerAnsweredHooksLeaveOllamaAloneWhenOff(t *testing.T) {
	c := newCLIEnv(t)
	_, cwd := newProject(t, c, "shop-api")
	redis := c.store("Orders MUST be cached in Redis with a five minute TTL", "--type", "decision", "--namespace", "project:shop-api")
	c.vars["RECALL_OLLAMA"] = "off"
	before := c.ollama.Counts().EmbedCalls
	try := 0
	c.serveUntil("answering a prompt hook", func() bool {
		if _, err := os.Stat(c.dbPath + ".sock"); err != nil {
			return false
		}
		try++
		a, r := c.hook("user-prompt-submit", hookInput(t, "UserPromptSubmit", cwd, map[string]any{"session_id": fmt.Sprintf("s-%d", try), "prompt": "how are orders cached in redis?"}))
		if a == nil || !strings.Contains(a.HookSpecificOutput.AdditionalContext, redis) {
			t.Fatalf("the answer should list %s; stdout %q stderr %s", redis, r.stdout, r.stderr)
		}
		return strings.Contains(r.stderr, "answered by recall serve")
	})
	if n := c.ollama.Counts().EmbedCalls - before; n != 0 {
		t.Errorf("Ollama was asked for %d embeddings with RECALL_OLLAMA=off", n)
	}
	if _, err := os.Stat(c.dbPath + ".ollama"); err == nil {
		t.Error("the hooks noted Ollama as down although RECALL_OLLAMA=off")
	}
}

// A server answers a hook before the hook's writes and keeps the request in a
// file beside the database until they are made. A server that died in
// between (killed after answering) leaves the file, and the next recall serve
// makes those writes, at the time the hook ran.
func TestServeWritesWhatAStoppedServerAnswered(t *testing.T) {
	c := newCLIEnv(t)
	root, cwd := newProject(t, c, "shop-api")
	const session = "4f1c2d9e-session" // hookInput's
	orders := filepath.Join(root, "internal", "api", "orders.go")
	ran := time.Date(2026, 11, 26, 9, 30, 0, 0, time.UTC)
	// As the server keeps them: a line each, in the order they came.
	var kept strings.Builder
	for i, ev := range []struct{ event, input string }{
		{"user-prompt-submit", hookInput(t, "UserPromptSubmit", cwd, map[string]any{"prompt": "how are orders cached in redis?"})},
		{"post-tool-use", hookInput(t, "PostToolUse", cwd, map[string]any{"tool_name": "Edit",
			"tool_input":    map[string]any{"file_path": orders, "old_string": "ttl := 0", "new_string": "ttl := 5 * time.Minute"},
			"tool_response": map[string]any{"filePath": orders, "success": true}})},
	} {
		fmt.Fprintf(&kept, `{"id":"hook-%d","event":%q,"input":%s,"received_at":%q}`+"\n",
			i, ev.event, ev.input, ran.Add(time.Duration(i)*time.Second).Format(time.RFC3339Nano))
	}
	if err := os.WriteFile(c.dbPath+".inflight", []byte(kept.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	c.serveUntil("the stopped server's hooks written", func() bool {
		_, err := os.Stat(c.dbPath + ".inflight.old")
		return len(c.journal(session)) == 2 && os.IsNotExist(err)
	})
	entries := c.journal(session)
	if len(entries) != 2 || !strings.HasPrefix(entries[0].Title, "how are orders cached") || !strings.HasPrefix(entries[1].Title, "Edit: "+orders) {
		t.Fatalf("journal after the replay: %+v", entries)
	}
	for i, e := range entries {
		if want := ran.Add(time.Duration(i) * time.Second); !e.CreatedAt.Equal(want) {
			t.Errorf("entry %d written at %v; want %v, when its hook ran", i, e.CreatedAt, want)
		}
	}
	if n := c.fileTouches(orders); n != 1 {
		t.Errorf("%s has %d touches, want 1", orders, n)
	}
}
