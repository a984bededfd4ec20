package tests

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// freePort returns a loopback port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func TestUIServesTheViewerAndStopsOnSignal(t *testing.T) {
	c := newCLIEnv(t)
	id := c.store("the viewer shows this memory")
	port := freePort(t)

	cmd, line := c.startUI(t, []string{fmt.Sprintf("RECALL_UI_PORT=%d", port)})
	wantURL := fmt.Sprintf("http://127.0.0.1:%d/", port)
	if !strings.Contains(line, wantURL) {
		t.Fatalf("recall ui printed %q, want the URL %s", line, wantURL)
	}

	client := &http.Client{Timeout: 10 * time.Second}
	res, err := client.Get(wantURL + "api/memories")
	if err != nil {
		t.Fatal(err)
	}
	var page struct {
		Memories []struct {
			ID string `json:"id"`
		} `json:"memories"`
	}
	err = json.NewDecoder(res.Body).Decode(&page)
	res.Body.Close()
	if err != nil || len(page.Memories) != 1 || page.Memories[0].ID != id {
		t.Fatalf("GET /api/memories: %+v, %v; want the stored memory %s", page, err, id)
	}

	// The Journal page reads what the hooks captured, through the capture
	// service recall ui wires in.
	_, cwd := newProject(t, c, "viewer-journal")
	c.hook("user-prompt-submit", hookInput(t, "UserPromptSubmit", cwd, map[string]any{"prompt": "Why does the journal page stay empty?"}))
	res, err = client.Get(wantURL + "api/journal?kind=prompt")
	if err != nil {
		t.Fatal(err)
	}
	var feed struct {
		Entries []struct {
			ID    string `json:"id"`
			Title string `json:"title"`
		} `json:"entries"`
	}
	err = json.NewDecoder(res.Body).Decode(&feed)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusOK || len(feed.Entries) != 1 || !strings.Contains(feed.Entries[0].Title, "journal page") {
		t.Fatalf("GET /api/journal: %d %+v, %v; want the prompt the hook recorded", res.StatusCode, feed, err)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("recall ui after SIGTERM: %v, want exit 0", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("recall ui did not stop on SIGTERM")
	}
}

func TestUIRefusesABadPort(t *testing.T) {
	c := newCLIEnv(t)
	c.vars["RECALL_UI_PORT"] = "70000"
	if r := c.run("", "ui"); r.code != 1 || !strings.Contains(r.stderr, "RECALL_UI_PORT") {
		t.Errorf("RECALL_UI_PORT=70000: code %d, stderr %q; want an error naming the variable", r.code, r.stderr)
	}
	delete(c.vars, "RECALL_UI_PORT")
	if r := c.run("", "ui", "--port", "-3"); r.code != 2 || !strings.Contains(r.stderr, "--port") {
		t.Errorf("--port -3: code %d, stderr %q; want a usage error naming --port", r.code, r.stderr)
	}
}

func TestServeHTTPAlsoServesTheViewerUnderUI(t *testing.T) {
	env, _ := recallEnv(t)
	s := startHTTP(t, env)
	cs, err := connectHTTP(t.Context(), s.url, "")
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ok(t, cs, "memory_store_tool", map[string]any{"content": "The viewer rides along with serve --http."})

	client := &http.Client{Timeout: 10 * time.Second}
	res, err := client.Get(s.url + "/ui/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), `src="static/app.js"`) || !strings.Contains(res.Header.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Fatalf("GET /ui/: %d, CSP %q, page %.200q; want the viewer's page under its policy", res.StatusCode, res.Header.Get("Content-Security-Policy"), body)
	}
	res, err = client.Get(s.url + "/ui/api/memories")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "rides along") {
		t.Fatalf("GET /ui/api/memories: %d %s", res.StatusCode, body)
	}

	// A live stream from the viewer, fed by a write through MCP; SIGTERM ends
	// the stream instead of waiting out the shutdown grace for it.
	req, _ := http.NewRequestWithContext(t.Context(), "GET", s.url+"/ui/api/events", nil)
	stream, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	got := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stream.Body)
		for sc.Scan() {
			// The first event is the stream's position ("data: {}"); the
			// change comes after it.
			if strings.HasPrefix(sc.Text(), "data: ") && sc.Text() != "data: {}" {
				got <- sc.Text()
				return
			}
		}
	}()
	ok(t, cs, "memory_store_tool", map[string]any{"content": "Stored while a page listens."})
	select {
	case line := <-got:
		if !strings.Contains(line, `"created":true`) {
			t.Errorf("event %s, want a created memory", line)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no event on /ui/api/events after a store through MCP")
	}
	cs.Close()
	start := time.Now()
	if code := s.stop(t); code != 0 {
		t.Errorf("exit code %d after SIGTERM, want 0", code)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("stopping took %v with a viewer stream open, want the stream ended at once", d)
	}
}

// startUI starts recall ui with args and the test's settings (nothing from
// the machine's own) plus env, and returns it with the first line it prints
// (its URL). The process is killed when the test ends.
func (c *cliEnv) startUI(t *testing.T, env []string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), recallBin, append([]string{"ui"}, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RECALL_") && !strings.HasPrefix(kv, "OLLAMA_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	for k, v := range c.vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("recall ui printed no URL: %v", err)
	}
	return cmd, line
}
