package tests

import (
	"encoding/json"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recall-mcp/recall/hook"
	"github.com/recall-mcp/recall/storage/postgres/pgtest"
)

// A hook write PostgreSQL never takes (the server away, or hanging until the
// hook's time runs out) is not lost silently: it is recorded on the hook's
// machine, doctor warns of it while the server is still away, and once it is
// back stats count it and the next session's start tells of it, once.
func TestPostgresHookWritesThatCannotLandAreRecordedAndTold(t *testing.T) {
	base, err := url.Parse(pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	p := startTCPProxy(t, base.Host)
	base.Host = p.addr
	c := newCLIEnv(t)
	c.vars["RECALL_DATABASE_URL"] = base.String()
	c.vars["TMPDIR"] = t.TempDir() // where a record goes when the first place refuses it
	_, cwd := newProject(t, c, "shop-api")
	c.store("Orders MUST be cached in Redis with a five minute TTL", "--type", "decision", "--namespace", "project:shop-api")
	transcript := filepath.Join(c.dir, captureSession+".jsonl")
	in := func(event string, extra map[string]any) string {
		return sessionHookInput(t, event, cwd, transcript, extra)
	}
	toolCall := func(id string) string {
		return in("PostToolUse", map[string]any{"tool_name": "Bash", "tool_use_id": id,
			"tool_input": map[string]any{"command": "go test ./orders/..."}, "tool_response": map[string]any{"stdout": "ok"}})
	}
	if a, r := c.hook("session-start", in("SessionStart", map[string]any{"source": "startup"})); a == nil || strings.Contains(a.HookSpecificOutput.AdditionalContext, "could not keep") {
		t.Fatalf("session start with the server up: %+v\n%s", a, r.stderr)
	}

	// 1. The server goes away under a running recall serve, which answers
	// the hook (or, when it is too slow to take it, the hook itself).
	sock := hook.ServerSocketPath(c.dir, base.String())
	c.serveUntil("answering a hook with the database away", func() bool {
		if !fileExists(sock) {
			return false
		}
		p.down()
		c.hook("post-tool-use", toolCall("toolu_01"))
		return true
	})
	// 2. No server: the hook cannot open the database.
	c.hook("user-prompt-submit", in("UserPromptSubmit", map[string]any{"prompt": "why are the order tests slow?"}))
	// 3. The server takes connections and never answers: the hook's time
	// (here RECALL_HOOK_TIMEOUT of 1 s, plus 2 s) runs out.
	budget := c.vars["RECALL_HOOK_TIMEOUT"]
	c.vars["RECALL_HOOK_TIMEOUT"] = "1s"
	p.hang()
	start := time.Now()
	c.hook("post-tool-use", toolCall("toolu_02"))
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("a hook against a hanging database took %s", took)
	}
	c.vars["RECALL_HOOK_TIMEOUT"] = budget
	p.down()

	doc := c.run("", "doctor")
	if !strings.Contains(doc.stdout, "lost writes: 3 hook writes never reached the PostgreSQL database") ||
		!strings.Contains(doc.stdout, "bring the PostgreSQL server back") {
		t.Fatalf("doctor with the server away should warn of 3 lost writes:\n%s%s", doc.stdout, doc.stderr)
	}

	p.up()
	var st struct {
		LostWrites    int    `json:"lost_writes"`
		LastLostWrite string `json:"last_lost_write"`
	}
	if err := json.Unmarshal([]byte(c.ok("stats", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	if st.LostWrites != 3 || !strings.Contains(st.LastLostWrite, "tool_call") {
		t.Errorf("stats: %+v, want 3 lost writes, the last a tool call", st)
	}
	next := func() string {
		a, r := c.hook("session-start", in("SessionStart", map[string]any{"source": "startup", "session_id": "next-session"}))
		if a == nil {
			t.Fatalf("session start with the server back answered nothing:\n%s", r.stderr)
		}
		return a.HookSpecificOutput.AdditionalContext
	}
	if ctx := next(); !strings.Contains(ctx, "3 hook writes could be kept nowhere and are lost") {
		t.Errorf("the next session's start does not tell of the lost writes:\n%s", ctx)
	}
	if ctx := next(); strings.Contains(ctx, "could be kept nowhere") {
		t.Errorf("the lost writes are told again at the session after:\n%s", ctx)
	}
}

// tcpProxy forwards connections to a server, and can stop (refusing
// connections, cutting the open ones), hang (taking connections and never
// answering) and come back on the same address.
type tcpProxy struct {
	t      *testing.T
	target string
	addr   string

	mu      sync.Mutex
	ln      net.Listener
	conns   []net.Conn
	hanging bool
}

func startTCPProxy(t *testing.T, target string) *tcpProxy {
	p := &tcpProxy{t: t, target: target}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	t.Cleanup(p.down)
	return p
}

func (p *tcpProxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			p.conns = append(p.conns, conn)
			hanging := p.hanging
			p.mu.Unlock()
			if hanging {
				continue // held open, never answered
			}
			up, err := net.Dial("tcp", p.target)
			if err != nil {
				conn.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, up)
			p.mu.Unlock()
			go func() { io.Copy(up, conn); up.Close() }()
			go func() { io.Copy(conn, up); conn.Close() }()
		}
	}()
}

// down refuses new connections and cuts the open ones.
func (p *tcpProxy) down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *tcpProxy) listenAgain(hanging bool) {
	p.down()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatalf("listen again on %s: %v", p.addr, err)
	}
	p.mu.Lock()
	p.hanging = hanging
	p.mu.Unlock()
	p.serve(ln)
}

func (p *tcpProxy) up()   { p.listenAgain(false) }
func (p *tcpProxy) hang() { p.listenAgain(true) }

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
