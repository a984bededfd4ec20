package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-mcp/recall/internal/loopback"
)

const sessionIDHeader = "Mcp-Session-Id"

// writeRPCError answers an HTTP request that never reaches the MCP server with
// a status and a JSON-RPC error body, so that clients show the message.
func writeRPCError(w http.ResponseWriter, status int, id any, code int64, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      any            `json:"id"`
		Error   *jsonrpc.Error `json:"error"`
	}{"2.0", id, &jsonrpc.Error{Code: code, Message: message}})
}

// bodyDeadline gives a request this long to send its body. The deadline is
// lifted once the body is read, so a long tool call or an event stream is not
// cut; http.Server's ReadTimeout could not tell those apart.
func bodyDeadline(limit time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			rc := http.NewResponseController(w)
			if rc.SetReadDeadline(time.Now().Add(limit)) == nil {
				r.Body = &deadlineBody{ReadCloser: r.Body, lift: func() { _ = rc.SetReadDeadline(time.Time{}) }}
			}
		}
		next.ServeHTTP(w, r)
	})
}

type deadlineBody struct {
	io.ReadCloser
	lift   func()
	lifted bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) && !b.lifted {
		b.lifted = true
		b.lift()
	}
	return n, err
}

// checkOrigin refuses a request whose Origin header names another site: a web
// page must not drive the server from a browser (the MCP specification's
// defence against DNS rebinding, with the SDK's Host check). Requests without
// Origin come from programs, not pages, and pass.
func checkOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && !sameOrigin(origin, r.Host) {
			writeRPCError(w, http.StatusForbidden, nil, -32600,
				fmt.Sprintf("Origin %q is not this server (%s): requests from other sites are refused", origin, r.Host))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// sameOrigin reports whether origin is the server at host; two loopback names
// for the same port (localhost and 127.0.0.1) are the same server.
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Host, host) {
		return true
	}
	oHost, oPort, err1 := net.SplitHostPort(u.Host)
	hHost, hPort, err2 := net.SplitHostPort(host)
	return err1 == nil && err2 == nil && oPort == hPort && loopback.IsName(oHost) && loopback.IsName(hHost)
}

// sessionGate stands before the SDK's handler. A request without a session id
// must be an initialize (the SDK would otherwise answer it 200 from a
// throw-away session); a new session beyond the cap closes the one unused the
// longest. The SDK closes idle sessions itself (SessionTimeout).
type sessionGate struct {
	srv  *mcp.Server
	max  int
	next http.Handler

	mu       sync.Mutex
	lastUsed map[string]time.Time // session id -> last request
}

func newSessionGate(srv *mcp.Server, max int, next http.Handler) *sessionGate {
	return &sessionGate{srv: srv, max: max, next: next, lastUsed: map[string]time.Time{}}
}

func (g *sessionGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(sessionIDHeader)
	if r.Method != http.MethodPost {
		if id == "" {
			writeRPCError(w, http.StatusBadRequest, nil, -32600,
				fmt.Sprintf("%s needs an %s header: a session starts with a POST of initialize", r.Method, sessionIDHeader))
			return
		}
		g.touch(id)
		g.next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeRPCError(w, http.StatusRequestEntityTooLarge, nil, -32600, fmt.Sprintf("request body is over %d bytes", tooBig.Limit))
			return
		}
		writeRPCError(w, http.StatusBadRequest, nil, -32700, "could not read the request body: "+err.Error())
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	// JSON-RPC's own errors come first, session or not: the SDK answers
	// these with plain text, or not at all.
	if !json.Valid(body) {
		writeRPCError(w, http.StatusBadRequest, nil, -32700, "parse error: the request body is not valid JSON")
		return
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(body, &msg) // a batch (an array) leaves msg empty
	if bytes.Equal(msg.ID, []byte("null")) && msg.Method != "" {
		writeRPCError(w, http.StatusBadRequest, nil, -32600,
			`invalid request: "id" must be a string or a number, not null (leave "id" out for a notification)`)
		return
	}
	if id != "" {
		g.touch(id)
		g.next.ServeHTTP(w, r)
		return
	}
	if msg.Method != "initialize" {
		var reqID any
		_ = json.Unmarshal(msg.ID, &reqID)
		writeRPCError(w, http.StatusBadRequest, reqID, -32600,
			fmt.Sprintf("no %s header: a session starts with an initialize request, and every later request sends the %s its answer gave", sessionIDHeader, sessionIDHeader))
		return
	}
	g.makeRoom()
	g.next.ServeHTTP(w, r)
	// The SDK has answered the initialize; its header names the new session.
	if id := w.Header().Get(sessionIDHeader); id != "" {
		g.add(id)
	}
}

// touch records a request of a known session; an unknown id (made up, or of
// a closed session) is left to the SDK, which answers 404.
func (g *sessionGate) touch(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, known := g.lastUsed[id]; known {
		g.lastUsed[id] = time.Now()
	}
}

func (g *sessionGate) add(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.lastUsed[id] = time.Now()
}

// makeRoom closes sessions, longest unused first, until a new one fits under
// the cap. Sessions the SDK has already closed (idle, DELETE) are dropped from
// the record first.
func (g *sessionGate) makeRoom() {
	g.mu.Lock()
	if len(g.lastUsed) < g.max {
		g.mu.Unlock()
		return
	}
	live := map[string]*mcp.ServerSession{}
	for ss := range g.srv.Sessions() {
		live[ss.ID()] = ss
	}
	for id := range g.lastUsed {
		if live[id] == nil {
			delete(g.lastUsed, id)
		}
	}
	var evict []*mcp.ServerSession
	for len(g.lastUsed) >= g.max {
		oldest, oldestAt := "", time.Time{}
		for id, at := range g.lastUsed {
			if oldest == "" || at.Before(oldestAt) {
				oldest, oldestAt = id, at
			}
		}
		delete(g.lastUsed, oldest)
		evict = append(evict, live[oldest])
	}
	g.mu.Unlock()
	for _, ss := range evict {
		ss.Close()
	}
}
