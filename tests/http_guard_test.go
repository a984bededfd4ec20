package tests

import (
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
)

const httpInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// post sends one JSON-RPC body with the headers a Streamable HTTP client
// sends, plus extra ones.
func post(t *testing.T, url, body string, headers ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// rpcError decodes a JSON-RPC error body.
func rpcError(t *testing.T, body string) (code int, message string) {
	t.Helper()
	var e struct {
		JSONRPC string `json:"jsonrpc"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil || e.JSONRPC != "2.0" || e.Error.Code == 0 {
		t.Fatalf("body is not a JSON-RPC error: %q", body)
	}
	return e.Error.Code, e.Error.Message
}

func TestHTTPRefusesRequestsFromOtherSites(t *testing.T) {
	env, _ := recallEnv(t)
	s := startHTTP(t, env)
	resp, body := post(t, s.url, httpInit, "Origin", "http://evil.example")
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("initialize with Origin http://evil.example: status %d, want 403", resp.StatusCode)
	}
	if _, msg := rpcError(t, body); !strings.Contains(msg, "evil.example") {
		t.Errorf("403 message %q does not name the origin", msg)
	}
	// The server's own origin, under either loopback name, and no Origin at all
	// (a program, not a web page) are served.
	port := s.url[strings.LastIndex(s.url, ":"):]
	for _, origin := range []string{s.url, "http://localhost" + port, ""} {
		resp, body := post(t, s.url, httpInit, "Origin", origin)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("initialize with Origin %q: status %d (%s), want 200", origin, resp.StatusCode, body)
		}
	}
}

func TestHTTPUnauthorizedAsksForABearerToken(t *testing.T) {
	env, _ := recallEnv(t, "RECALL_HTTP_TOKEN=e2e-token-of-thirty-two-characters")
	s := startHTTP(t, env)
	for _, auth := range []string{"", "Bearer wrong", "Basic e2e-token-of-thirty-two-characters"} {
		resp, body := post(t, s.url, httpInit, "Authorization", auth)
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("Authorization %q: status %d, want 401", auth, resp.StatusCode)
			continue
		}
		if h := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(h, "Bearer") {
			t.Errorf("Authorization %q: WWW-Authenticate %q, want a Bearer challenge", auth, h)
		}
		if _, msg := rpcError(t, body); !strings.Contains(msg, "RECALL_HTTP_TOKEN") {
			t.Errorf("401 message %q does not say which token", msg)
		}
	}
	if resp, body := post(t, s.url, httpInit, "Authorization", "Bearer e2e-token-of-thirty-two-characters"); resp.StatusCode != http.StatusOK {
		t.Errorf("with the token: status %d (%s)", resp.StatusCode, body)
	}
}

func TestHTTPRequestWithoutSessionIsRefused(t *testing.T) {
	env, _ := recallEnv(t)
	s := startHTTP(t, env)
	resp, body := post(t, s.url, `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"memory_count_tool","arguments":{}}}`)
	if resp.StatusCode < 400 || resp.StatusCode > 499 {
		t.Fatalf("tools/call without a session: status %d (%s), want 4xx", resp.StatusCode, body)
	}
	code, msg := rpcError(t, body)
	if code != -32600 || !strings.Contains(msg, "Mcp-Session-Id") || !strings.Contains(body, `"id":42`) {
		t.Errorf("error %d %q (%s), want -32600 naming Mcp-Session-Id for id 42", code, msg, body)
	}
	req, _ := http.NewRequest(http.MethodGet, s.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	get, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(get.Body)
	get.Body.Close()
	if get.StatusCode != http.StatusBadRequest {
		t.Errorf("GET without a session: status %d, want 400", get.StatusCode)
	}
	rpcError(t, string(b))
}

func TestHTTPAllowRemoteNeedsAToken(t *testing.T) {
	env, _ := recallEnv(t)
	cmd := exec.Command(recallBin, "serve", "--http", freeAddr(t), "--allow-remote")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatal("--allow-remote without RECALL_HTTP_TOKEN started")
	}
	if !strings.Contains(string(out), "RECALL_HTTP_TOKEN") {
		t.Errorf("refusal %q does not name RECALL_HTTP_TOKEN", out)
	}
}
