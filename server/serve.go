package server

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// shutdownGrace bounds how long HTTP shutdown waits for open requests.
const shutdownGrace = 10 * time.Second

// ServeStdio serves one client over stdin and stdout. It returns nil when the
// client closes stdin or ctx is cancelled; either way every request already
// read is answered first.
func ServeStdio(ctx context.Context, srv *mcp.Server) error {
	return serveLines(ctx, srv, os.Stdin, os.Stdout)
}

// serveLines serves MCP as newline-delimited JSON on in and out.
func serveLines(ctx context.Context, srv *mcp.Server, in io.Reader, out io.Writer) error {
	t := newLineTransport(in, out)
	return serveTransport(ctx, srv, t, t.conn.StopReading)
}

// serveTransport serves one session until it ends or ctx is cancelled. On
// cancellation, stop (when given) ends the input so that calls already read
// are answered; otherwise the session is closed.
func serveTransport(ctx context.Context, srv *mcp.Server, t mcp.Transport, stop func()) error {
	ss, err := srv.Connect(context.WithoutCancel(ctx), t, nil)
	if err != nil {
		return fmt.Errorf("connect MCP session: %w", err)
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case <-ctx.Done():
		if stop != nil {
			stop()
		} else {
			ss.Close()
		}
		<-ended
		return nil
	case err := <-ended:
		if err == nil || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
			return nil
		}
		return fmt.Errorf("MCP session: %w", err)
	}
}

// ServeHTTP serves MCP over Streamable HTTP at addr until ctx is done, then
// shuts down gracefully. A non-empty token is required from every client as
// "Authorization: Bearer <token>"; requests without it get 401.
func ServeHTTP(ctx context.Context, srv *mcp.Server, addr, token string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	return serveListener(ctx, srv, ln, token)
}

func serveListener(ctx context.Context, srv *mcp.Server, ln net.Listener, token string) error {
	var handler http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	if token != "" {
		handler = auth.RequireBearerToken(staticToken(token), &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(handler)
	}
	hs := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
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

// staticToken accepts exactly one bearer token, compared in constant time.
func staticToken(want string) auth.TokenVerifier {
	return func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		if subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
			return nil, fmt.Errorf("wrong bearer token: %w", auth.ErrInvalidToken)
		}
		return &auth.TokenInfo{}, nil
	}
}
