package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
