package server

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// guard keeps one bad request from taking the server down. It treats
// "arguments": null as no arguments (the SDK's default filling would panic on
// it), and turns any panic in a handler into an error for that request alone:
// a tool error for tools/call, a protocol error otherwise.
func guard(log *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			call, isCall := req.(*mcp.CallToolRequest)
			if isCall && call.Params != nil {
				if args := bytes.TrimSpace(call.Params.Arguments); len(args) == 0 || bytes.Equal(args, []byte("null")) {
					call.Params.Arguments = []byte("{}")
				}
			}
			defer func() {
				if p := recover(); p != nil {
					log.Error("request handler panicked", "method", method, "panic", p)
					if isCall {
						var r mcp.CallToolResult
						r.SetError(fmt.Errorf("%s failed unexpectedly: %v", call.Params.Name, p))
						res, err = &r, nil
						return
					}
					res, err = nil, fmt.Errorf("%s failed unexpectedly: %v", method, p)
				}
			}()
			return next(ctx, method, req)
		}
	}
}
