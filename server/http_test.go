package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// startHTTP serves the fixture's server on a free loopback port with opts
// until the test ends, and returns its URL.
func startHTTP(t testing.TB, srv *mcp.Server, opts HTTPOptions) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serveListener(ctx, srv, ln, opts) }()
	t.Cleanup(func() { cancel(); <-served })
	return "http://" + ln.Addr().String()
}

func countSessions(srv *mcp.Server) int {
	n := 0
	for range srv.Sessions() {
		n++
	}
	return n
}

// initSession opens a session with a bare initialize and returns its id.
func initSession(t testing.TB, url string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"abandoned","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	id := resp.Header.Get(sessionIDHeader)
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: status %d, session %q", resp.StatusCode, id)
	}
	return id
}

func pingSession(t testing.TB, url, id string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(sessionIDHeader, id)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func TestHTTPSessionsBeyondTheCapCloseTheLongestUnused(t *testing.T) {
	f := newFixture(t)
	url := startHTTP(t, f.srv, HTTPOptions{MaxSessions: 3})
	var ids []string
	for range 3 {
		ids = append(ids, initSession(t, url))
	}
	// The first session stays in use, so the second is the longest unused.
	if code := pingSession(t, url, ids[0]); code != http.StatusOK {
		t.Fatalf("ping of a live session: %d", code)
	}
	for range 10 {
		ids = append(ids, initSession(t, url))
	}
	if n := countSessions(f.srv); n > 3 {
		t.Errorf("%d sessions open, want at most 3", n)
	}
	if code := pingSession(t, url, ids[1]); code != http.StatusNotFound {
		t.Errorf("ping of an evicted session: %d, want 404", code)
	}
	if code := pingSession(t, url, ids[len(ids)-1]); code != http.StatusOK {
		t.Errorf("ping of the newest session: %d, want 200", code)
	}
}

func TestHTTPIdleSessionsExpire(t *testing.T) {
	f := newFixture(t)
	url := startHTTP(t, f.srv, HTTPOptions{SessionIdle: 2 * time.Second})
	id := initSession(t, url)
	if code := pingSession(t, url, id); code != http.StatusOK {
		t.Fatalf("ping right away: %d", code)
	}
	deadline := time.Now().Add(20 * time.Second)
	for countSessions(f.srv) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if code := pingSession(t, url, id); code != http.StatusNotFound {
		t.Errorf("ping after the idle time: %d, want 404", code)
	}
}

// TestHTTPSlowClientsAreCut is the slowloris attack: headers or a body sent a
// byte at a time must not hold a connection open past the timeouts.
func TestHTTPSlowClientsAreCut(t *testing.T) {
	f := newFixture(t)
	url := startHTTP(t, f.srv, HTTPOptions{HeaderTimeout: 300 * time.Millisecond, BodyTimeout: 300 * time.Millisecond})
	addr := strings.TrimPrefix(url, "http://")
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`
	cases := map[string]struct{ head, trickle string }{
		"headers": {"POST / HTTP/1.1\r\nHost: " + addr + "\r\n", "X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
		"body":    {fmt.Sprintf("POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n", addr, len(body)), body},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, c.head); err != nil {
				t.Fatal(err)
			}
			// Trickle one byte every 100 ms: the whole would take several
			// seconds. The server must answer or hang up long before that.
			cut := make(chan struct{})
			go func() {
				defer close(cut)
				io.Copy(io.Discard, bufio.NewReader(conn))
			}()
			for i := 0; i < len(c.trickle); i++ {
				select {
				case <-cut:
					return
				case <-time.After(100 * time.Millisecond):
				}
				if _, err := conn.Write([]byte{c.trickle[i]}); err != nil {
					return // the server hung up
				}
			}
			t.Errorf("the server read a %d-byte trickle to the end: a slow client held the connection for %v", len(c.trickle), time.Duration(len(c.trickle))*100*time.Millisecond)
		})
	}
}

// BenchmarkAbandonedSessions opens sessions that are never used again, as
// clients that crash do, and reports the heap they leave behind.
//
//	go test -tags sqlite_fts5 -run '^$' -bench AbandonedSessions -benchtime 1x ./server/
func BenchmarkAbandonedSessions(b *testing.B) {
	for _, max := range []int{defaultMaxSessions, 100000} {
		b.Run(fmt.Sprintf("cap=%d", max), func(b *testing.B) {
			f := newFixture(b)
			url := startHTTP(b, f.srv, HTTPOptions{MaxSessions: max})
			before := heapInUse()
			for range b.N {
				for range 10000 {
					initSession(b, url)
				}
			}
			after := heapInUse()
			b.ReportMetric(float64(after-before)/(1<<20), "MB-heap-growth")
			b.ReportMetric(float64(countSessions(f.srv)), "sessions-open")
		})
	}
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

func TestHTTPServesTheUIUnderItsPrefixBesideMCP(t *testing.T) {
	f := newFixture(t)
	ui := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "ui saw %s", r.URL.Path)
	})
	url := startHTTP(t, f.srv, HTTPOptions{UI: ui, Token: "secret"})
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for path, want := range map[string]string{"/ui/": "ui saw /", "/ui/api/memories": "ui saw /api/memories"} {
		res, err := noRedirect.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || string(body) != want {
			t.Errorf("GET %s: %d %q, want 200 %q", path, res.StatusCode, body, want)
		}
	}
	res, err := noRedirect.Get(url + "/ui")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMovedPermanently || res.Header.Get("Location") != "/ui/" {
		t.Errorf("GET /ui: %d to %q, want a redirect to /ui/", res.StatusCode, res.Header.Get("Location"))
	}
	// MCP keeps its own path and its token.
	res, err = http.Post(url+"/", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("MCP without the token beside the UI: %d, want 401", res.StatusCode)
	}
}

// postRPC posts body (in session id when not empty) and returns the status
// and the JSON-RPC answer, nil when the body holds none.
func postRPC(t testing.TB, url, id, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if id != "" {
		req.Header.Set(sessionIDHeader, id)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	text := string(raw)
	// An event stream carries the answer on its data line.
	if i := strings.Index(text, "data: "); i >= 0 {
		text = strings.TrimSpace(strings.SplitN(text[i+len("data: "):], "\n", 2)[0])
	}
	var answer map[string]any
	if json.Unmarshal([]byte(text), &answer) != nil {
		return resp.StatusCode, nil
	}
	return resp.StatusCode, answer
}

func rpcCode(answer map[string]any) float64 {
	e, _ := answer["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

// TestHTTPAnswersBadMessagesWithTheirJSONRPCErrors sends what a broken client
// might: each gets the JSON-RPC error for what is wrong with it.
func TestHTTPAnswersBadMessagesWithTheirJSONRPCErrors(t *testing.T) {
	f := newFixture(t)
	url := startHTTP(t, f.srv, HTTPOptions{})
	status, answer := postRPC(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize"`)
	if status != http.StatusBadRequest || rpcCode(answer) != -32700 || strings.Contains(fmt.Sprint(answer), "Mcp-Session-Id") {
		t.Errorf("malformed JSON without a session: %d %v, want 400 and a parse error (-32700)", status, answer)
	}
	id := initSession(t, url)
	status, answer = postRPC(t, url, id, `{"jsonrpc":"2.0","id":2,"method":"ping"`)
	if rpcCode(answer) != -32700 {
		t.Errorf("malformed JSON in a session: %d %v, want a parse error (-32700)", status, answer)
	}
	_, answer = postRPC(t, url, id, `{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"again","version":"1"}}}`)
	if rpcCode(answer) != -32600 {
		t.Errorf("a second initialize: %v, want an invalid request error (-32600)", answer)
	}
	status, answer = postRPC(t, url, id, `{"jsonrpc":"2.0","id":null,"method":"ping"}`)
	if answer == nil || rpcCode(answer) != -32600 {
		t.Errorf(`"id": null: %d %v, want an answer with an invalid request error (-32600)`, status, answer)
	}
}
