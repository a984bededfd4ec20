package tests

import (
	"context"
	"errors"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpServer is a `recall serve --http` process.
type httpServer struct {
	cmd    *exec.Cmd
	url    string
	exited chan error
}

// startHTTP starts `recall serve --http <free port>` and waits until it
// accepts connections (or exits, which fails the test).
func startHTTP(t testing.TB, env []string) *httpServer {
	t.Helper()
	return startHTTPAt(t, env, freeAddr(t))
}

// startHTTPAt is startHTTP on addr (a server started again where its clients
// look for it).
func startHTTPAt(t testing.TB, env []string, addr string) *httpServer {
	t.Helper()
	cmd := exec.Command(recallBin, "serve", "--http", addr)
	cmd.Env = env
	cmd.Stderr = stderrFile(t)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &httpServer{cmd: cmd, url: "http://" + addr, exited: make(chan error, 1)}
	go func() { s.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-s.exited
		}
	})
	// Readiness: poll until the port answers; a dead process ends the wait.
	for deadline := time.Now().Add(30 * time.Second); ; {
		resp, err := http.Get(s.url)
		if err == nil {
			resp.Body.Close()
			return s
		}
		select {
		case err := <-s.exited:
			t.Fatalf("recall serve --http exited before listening: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("recall serve --http %s never listened", addr)
		}
	}
}

// stop sends SIGTERM and returns the exit code.
func (s *httpServer) stop(t testing.TB) int {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := <-s.exited
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatal(err)
	}
	return s.cmd.ProcessState.ExitCode()
}

func connectHTTP(ctx context.Context, url, token string) (*mcp.ClientSession, error) {
	hc := http.DefaultClient
	if token != "" {
		hc = &http.Client{Transport: bearerTransport{token: token}}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	return client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
}

func TestHTTPWithoutToken(t *testing.T) {
	env, dbPath := recallEnv(t)
	s := startHTTP(t, env)
	cs, err := connectHTTP(context.Background(), s.url, "")
	if err != nil {
		t.Fatal(err)
	}
	ok(t, cs, "memory_store_tool", map[string]any{"content": "HTTP clients MAY share one server."})
	fails(t, cs, "memory_list_tool", map[string]any{"limit": -5}, "limit", "1000")
	if c := ok(t, cs, "memory_count_tool", map[string]any{})["count"]; c != 1.0 {
		t.Errorf("count over HTTP = %v", c)
	}
	cs.Close()
	if code := s.stop(t); code != 0 {
		t.Errorf("exit code %d after SIGTERM, want 0", code)
	}
	if n := checkDatabase(t, dbPath); n != 1 {
		t.Errorf("database holds %d memories, want 1", n)
	}
}

func TestHTTPWithToken(t *testing.T) {
	env, dbPath := recallEnv(t, "RECALL_HTTP_TOKEN=e2e-token-of-thirty-two-characters")
	s := startHTTP(t, env)

	resp, err := http.Post(s.url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("POST without bearer token: status %d, want 401", resp.StatusCode)
	}
	if _, err := connectHTTP(context.Background(), s.url, ""); err == nil {
		t.Error("a client without the token connected")
	}
	if _, err := connectHTTP(context.Background(), s.url, "wrong"); err == nil {
		t.Error("a client with a wrong token connected")
	}

	cs, err := connectHTTP(context.Background(), s.url, "e2e-token-of-thirty-two-characters")
	if err != nil {
		t.Fatalf("client with the token: %v", err)
	}
	id := ok(t, cs, "memory_store_tool", map[string]any{"content": "Tokens MUST NOT be logged."})["id"].(string)
	if r := ok(t, cs, "memory_recall_tool", map[string]any{"query": "tokens logged"}); len(r["memories"].([]any)) == 0 || r["memories"].([]any)[0].(map[string]any)["id"] != id {
		t.Errorf("recall over HTTP = %v", r["memories"])
	}
	cs.Close()
	if code := s.stop(t); code != 0 {
		t.Errorf("exit code %d after SIGTERM, want 0", code)
	}
	if n := checkDatabase(t, dbPath); n != 1 {
		t.Errorf("database holds %d memories, want 1", n)
	}
}

// bearerTransport adds the bearer token to every request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}
