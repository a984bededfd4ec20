package tests

import (
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"
)

const remoteToken = "a-long-random-viewer-token-0042-7f3a9c"

func TestUIRefusesARemoteAddressWithoutAToken(t *testing.T) {
	c := newCLIEnv(t)
	r := c.run("", "ui", "--addr", "0.0.0.0:0")
	if r.code != 1 || !strings.Contains(r.stderr, "RECALL_HTTP_TOKEN") || !strings.Contains(r.stderr, "?token=") {
		t.Errorf("ui --addr 0.0.0.0:0 without a token: code %d, stderr %q; want a refusal saying how to give the token", r.code, r.stderr)
	}
	// A token too short to guard anything is refused at start, with the
	// command that makes a good one: by the viewer served to other machines
	// and by the HTTP transport.
	c.vars["RECALL_HTTP_TOKEN"] = "hunter2"
	defer delete(c.vars, "RECALL_HTTP_TOKEN")
	for _, args := range [][]string{{"ui", "--addr", "0.0.0.0:0"}, {"serve", "--http", "127.0.0.1:0"}} {
		r := c.run("", args...)
		if r.code != 1 || !strings.Contains(r.stderr, "32 or more") || !strings.Contains(r.stderr, "openssl rand -hex 32") {
			t.Errorf("recall %s with a 7-character token: code %d, stderr %q; want a refusal naming the length and how to make one", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	for _, args := range [][]string{
		{"ui", "--addr", "nonsense"},
		{"ui", "--writable"},
		{"ui", "--addr", "127.0.0.1:0", "--hostname", "recall.lan"},
		{"ui", "--port", "28000", "--addr", "0.0.0.0:28000"},
		{"serve", "--http", "127.0.0.1:0", "--writable"},
	} {
		if r := c.run("", args...); r.code != 2 {
			t.Errorf("recall %s: code %d, stderr %q; want a usage error", strings.Join(args, " "), r.code, r.stderr)
		}
	}
}

// request sends a request to the viewer with an optional bearer token and
// returns the status and body.
func request(t *testing.T, method, url, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	client := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func TestUIOnAnotherAddressNeedsTheTokenAndIsReadOnly(t *testing.T) {
	c := newCLIEnv(t)
	id := c.store("other machines may read this")
	port := freePort(t)

	_, line := c.startUI(t, []string{"RECALL_HTTP_TOKEN=" + remoteToken}, "--addr", fmt.Sprintf("0.0.0.0:%d", port))
	if !strings.Contains(line, "read-only") || !strings.Contains(line, "?token=") || strings.Contains(line, remoteToken) {
		t.Errorf("recall ui printed %q; want the URL, read-only, how to give the token, and not the token", line)
	}

	base := fmt.Sprintf("http://127.0.0.1:%d/", port)
	if code, body := request(t, "GET", base+"api/memories", "", ""); code != http.StatusUnauthorized || !strings.Contains(body, "?token=") {
		t.Errorf("without the token: %d %s", code, body)
	}
	if code, body := request(t, "GET", base+"api/memories", remoteToken, ""); code != http.StatusOK || !strings.Contains(body, id) {
		t.Errorf("with the token: %d %s", code, body)
	}
	if code, body := request(t, "POST", base+"api/memories/"+id+"/validate", remoteToken, `{"success": true}`); code != http.StatusForbidden || !strings.Contains(body, "--writable") {
		t.Errorf("a change: %d %s; want 403 naming --writable", code, body)
	}
}

func TestServeAllowRemoteServesTheViewerWithTheToken(t *testing.T) {
	env, _ := recallEnv(t, "RECALL_HTTP_TOKEN="+remoteToken)
	addr := freeAddr(t)
	cmd := exec.Command(recallBin, "serve", "--http", addr, "--allow-remote", "--writable")
	cmd.Env = env
	cmd.Stderr = stderrFile(t)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	base := "http://" + addr + "/ui/"
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if res, err := http.Get(base); err == nil {
			res.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("recall serve --http never listened")
		}
	}

	if code, body := request(t, "GET", base+"api/access", "", ""); code != http.StatusUnauthorized {
		t.Errorf("/ui/ without the token: %d %s", code, body)
	}
	if code, body := request(t, "GET", base+"api/access", remoteToken, ""); code != http.StatusOK || !strings.Contains(body, `"read_only":false`) {
		t.Errorf("/ui/api/access with the token and --writable: %d %s", code, body)
	}
	req, _ := http.NewRequestWithContext(t.Context(), "GET", base+"?token="+remoteToken, nil)
	res, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/ui/" || len(res.Cookies()) != 1 {
		t.Errorf("/ui/?token=: %d, Location %q, cookies %v; want 303 to /ui/ with the cookie", res.StatusCode, res.Header.Get("Location"), res.Cookies())
	}
}
