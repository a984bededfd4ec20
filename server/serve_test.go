package server

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestCallRunsOneTool(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	out, err := Call(ctx, f.srv, "memory_store_tool", json.RawMessage(`{"content": "Logs MUST go to stderr."}`))
	if err != nil {
		t.Fatal(err)
	}
	var stored struct {
		Success bool   `json:"success"`
		ID      string `json:"id"`
	}
	if err := json.Unmarshal(out, &stored); err != nil || !stored.Success || stored.ID == "" {
		t.Fatalf("Call store = %s (%v)", out, err)
	}
	out, err = Call(ctx, f.srv, "memory_count_tool", nil)
	if err != nil || !strings.Contains(string(out), `"count":1`) {
		t.Fatalf("Call count = %s, %v", out, err)
	}

	_, err = Call(ctx, f.srv, "memory_store_tool", json.RawMessage(`{"content": "x", "namespace": "nowhere"}`))
	if err == nil || !strings.Contains(err.Error(), "project:<name>") {
		t.Errorf("Call with a bad namespace: %v, want the namespace error", err)
	}
	if _, err = Call(ctx, f.srv, "memory_store_tool", json.RawMessage(`{"content":`)); err == nil || !strings.Contains(err.Error(), "JSON") {
		t.Errorf("Call with broken JSON: %v", err)
	}
	if _, err = Call(ctx, f.srv, "memory_teleport_tool", nil); err == nil || !strings.Contains(err.Error(), "memory_teleport_tool") {
		t.Errorf("Call of an unknown tool: %v", err)
	}
}

func TestServeTransportReturnsNilWhenCancelled(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := mcp.NewInMemoryTransports()
	served := make(chan error, 1)
	go func() { served <- serveTransport(ctx, f.srv, st, nil) }()

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call(t, cs, "memory_store_tool", map[string]any{"content": "Stored before shutdown."})
	cancel()
	if err := <-served; err != nil {
		t.Fatalf("serveTransport after cancel = %v, want nil", err)
	}
	if n, err := f.mem.Count(context.Background(), countRequest()); err != nil || n != 1 {
		t.Errorf("count after shutdown = %d, %v; want 1", n, err)
	}
}

func TestServeTransportReturnsNilWhenClientLeaves(t *testing.T) {
	f := newFixture(t)
	st, ct := mcp.NewInMemoryTransports()
	served := make(chan error, 1)
	go func() { served <- serveTransport(context.Background(), f.srv, st, nil) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs.Close()
	if err := <-served; err != nil {
		t.Fatalf("serveTransport after the client left = %v, want nil", err)
	}
}

func TestHTTPWithBearerToken(t *testing.T) {
	f := newFixture(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serveListener(ctx, f.srv, ln, HTTPOptions{Token: "s3cret"}) }()
	url := "http://" + ln.Addr().String()

	// A plain POST without the token is refused before MCP sees it.
	resp, err := http.Post(url, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("POST without token: status %d, want 401", resp.StatusCode)
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	if _, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true}, nil); err == nil {
		t.Error("client without token connected")
	}
	wrong := &http.Client{Transport: bearer{token: "guess", next: http.DefaultTransport}}
	if _, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: wrong, DisableStandaloneSSE: true}, nil); err == nil {
		t.Error("client with a wrong token connected")
	}

	right := &http.Client{Transport: bearer{token: "s3cret", next: http.DefaultTransport}}
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: right}, nil)
	if err != nil {
		t.Fatalf("client with token: %v", err)
	}
	call(t, cs, "memory_store_tool", map[string]any{"content": "Served over HTTP."})
	if c := call(t, cs, "memory_count_tool", nil); c["count"] != 1.0 {
		t.Errorf("count over HTTP = %v", c["count"])
	}
	cs.Close()

	cancel()
	if err := <-served; err != nil {
		t.Fatalf("ServeHTTP after cancel = %v, want nil", err)
	}
}

func TestServeHTTPReportsABusyAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	err = ServeHTTP(context.Background(), newFixture(t).srv, ln.Addr().String(), HTTPOptions{})
	var opErr *net.OpError
	if !errors.As(err, &opErr) || !strings.Contains(err.Error(), ln.Addr().String()) {
		t.Errorf("ServeHTTP on a busy address = %v", err)
	}
}

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}
