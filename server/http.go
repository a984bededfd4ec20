package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/team"
)

// shutdownGrace bounds how long HTTP shutdown waits for open requests.
const shutdownGrace = 10 * time.Second

// HTTPOptions configure the Streamable HTTP transport. Zero values take the
// defaults below.
type HTTPOptions struct {
	// Token, when not empty, is required from every client as
	// "Authorization: Bearer <token>" (unless Auth is set).
	Token string
	// Auth, when set, tells who a token belongs to (the administrator or a
	// person of the team) in place of Token alone.
	Auth Authenticator
	// SessionIdle closes a session no request has used for this long.
	SessionIdle time.Duration
	// MaxSessions caps open sessions; a new session beyond it closes the one
	// unused the longest, so abandoned sessions cannot pile up.
	MaxSessions int
	// HeaderTimeout bounds reading a request's headers, BodyTimeout its body,
	// IdleTimeout a kept-alive connection waiting for its next request: a
	// client sending slowly cannot hold a connection forever.
	HeaderTimeout, BodyTimeout, IdleTimeout time.Duration
	// Hooks, when set, answers client machines' hooks under /hook/ (with
	// the same token check as MCP).
	Hooks http.Handler
	// UI, when set, is served under /ui/ (the prefix stripped) beside MCP:
	// the web viewer, which brings its own checks, its token among them
	// (Token does not apply to it).
	UI http.Handler
}

// UIPrefix is where HTTPOptions.UI is served.
const UIPrefix = "/ui/"

const (
	defaultSessionIdle   = 30 * time.Minute
	defaultMaxSessions   = 1000
	defaultHeaderTimeout = 10 * time.Second
	defaultBodyTimeout   = 30 * time.Second
	defaultIdleTimeout   = 2 * time.Minute
	maxBodyBytes         = mcp.DefaultMaxRequestBodyBytes
)

func (o HTTPOptions) withDefaults() HTTPOptions {
	o.SessionIdle = memory.PositiveOr(o.SessionIdle, defaultSessionIdle)
	o.HeaderTimeout = memory.PositiveOr(o.HeaderTimeout, defaultHeaderTimeout)
	o.BodyTimeout = memory.PositiveOr(o.BodyTimeout, defaultBodyTimeout)
	o.IdleTimeout = memory.PositiveOr(o.IdleTimeout, defaultIdleTimeout)
	o.MaxSessions = memory.PositiveOr(o.MaxSessions, defaultMaxSessions)
	return o
}

// ServeHTTP serves MCP over Streamable HTTP at addr until ctx is done, then
// shuts down gracefully.
func ServeHTTP(ctx context.Context, srv *mcp.Server, addr string, opts HTTPOptions) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	return serveListener(ctx, srv, ln, opts)
}

// httpHandler is the SDK's Streamable HTTP handler behind our checks, outermost
// first: body deadline, Origin, bearer token, session gate.
func httpHandler(srv *mcp.Server, opts HTTPOptions) http.Handler {
	opts = opts.withDefaults()
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		SessionTimeout:      opts.SessionIdle,
		MaxRequestBodyBytes: maxBodyBytes,
	})
	h = newSessionGate(srv, opts.MaxSessions, h)
	var auth Authenticator = team.Authenticator{AdminToken: opts.Token}
	if opts.Auth != nil {
		auth = opts.Auth
	}
	h = authenticate(auth, h)
	if opts.Hooks != nil {
		mux := http.NewServeMux()
		mux.Handle(HookPrefix, authenticate(auth, opts.Hooks))
		mux.Handle("/", h)
		h = mux
	}
	h = checkOrigin(h)
	if opts.UI != nil {
		mux := http.NewServeMux()
		mux.Handle(UIPrefix, http.StripPrefix(strings.TrimSuffix(UIPrefix, "/"), opts.UI))
		mux.Handle(strings.TrimSuffix(UIPrefix, "/"), http.RedirectHandler(UIPrefix, http.StatusMovedPermanently))
		mux.Handle("/", h)
		h = mux
	}
	return bodyDeadline(opts.BodyTimeout, h)
}

func serveListener(ctx context.Context, srv *mcp.Server, ln net.Listener, opts HTTPOptions) error {
	opts = opts.withDefaults()
	hs := &http.Server{
		Handler:           httpHandler(srv, opts),
		ReadHeaderTimeout: opts.HeaderTimeout,
		IdleTimeout:       opts.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		// No ReadTimeout or WriteTimeout: they would also cut event streams and
		// long tool calls. bodyDeadline bounds the body alone.
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	select {
	case err := <-served:
		return fmt.Errorf("serve HTTP on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if err := hs.Shutdown(shutdownCtx); err != nil {
		// Long-lived event streams keep connections busy; cut them.
		hs.Close()
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve HTTP on %s: %w", ln.Addr(), err)
	}
	return nil
}
