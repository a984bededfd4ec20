package tests

import (
	"bufio"
	"encoding/json"
	"fmt"
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

	cmd := exec.CommandContext(t.Context(), recallBin, "ui")
	for _, kv := range os.Environ() { // nothing from the machine's own settings
		if !strings.HasPrefix(kv, "RECALL_") && !strings.HasPrefix(kv, "OLLAMA_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	for k, v := range c.vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, fmt.Sprintf("RECALL_UI_PORT=%d", port))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("recall ui printed no URL: %v", err)
	}
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
