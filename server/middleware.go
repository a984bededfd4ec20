package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// guard keeps one bad request from taking the server down. It treats
// "arguments": null as no arguments (the SDK's default filling would panic on
// it) and an argument given as null as not given (the Python Recall's
// Optional parameters), turns any panic in a handler into an error for that
// request alone (a tool error for tools/call, a protocol error otherwise), and
// gives every tool error the Python Recall's structured form.
func guard(log *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			if method == "initialize" {
				// The SDK refuses a second initialize with error code 0; JSON-RPC
				// has a code for a request not valid here.
				if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss.InitializeParams() != nil {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
						Message: "invalid request: this session is initialized already; a client initializes once per connection (over HTTP, a new session starts with an initialize without Mcp-Session-Id)"}
				}
			}
			call, isCall := req.(*mcp.CallToolRequest)
			if isCall && call.Params != nil {
				call.Params.Arguments = withoutNulls(call.Params.Arguments)
			}
			defer func() {
				if p := recover(); p != nil {
					log.Error("request handler panicked", "method", method, "panic", p)
					if isCall {
						var r mcp.CallToolResult
						r.SetError(fmt.Errorf("%s failed unexpectedly: %v", call.Params.Name, p))
						structureError(&r)
						res, err = &r, nil
						return
					}
					res, err = nil, fmt.Errorf("%s failed unexpectedly: %v", method, p)
				}
			}()
			res, err = next(ctx, method, req)
			if r, ok := res.(*mcp.CallToolResult); ok && err == nil {
				structureError(r)
			}
			return res, err
		}
	}
}

// withoutNulls drops the arguments whose value is null, so that the schema's
// default applies (or a required argument is reported missing) instead of a
// type error. Arguments that are not an object are left for the SDK to refuse.
func withoutNulls(raw json.RawMessage) json.RawMessage {
	args := bytes.TrimSpace(raw)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		return json.RawMessage("{}")
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil {
		return raw
	}
	dropped := false
	for k, v := range obj {
		if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			delete(obj, k)
			dropped = true
		}
	}
	if !dropped {
		return raw
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return raw
	}
	return b
}

// structureError gives a tool error without structured content the Python
// Recall's failure shape: {"success": false, "error": "<the error's text>"}.
func structureError(r *mcp.CallToolResult) {
	if !r.IsError || r.StructuredContent != nil {
		return
	}
	var parts []string
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			t.Text = plain(t.Text)
			parts = append(parts, t.Text)
		}
	}
	r.StructuredContent = map[string]any{"success": false, "error": strings.Join(parts, "\n")}
}
