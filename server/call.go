package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Call runs one tool through a real client session over in-memory transports,
// so it gets exactly the validation, defaults and results an MCP client gets.
// It returns the tool's structured result, or an error carrying the tool
// error's text.
func Call(ctx context.Context, srv *mcp.Server, tool string, args json.RawMessage) (json.RawMessage, error) {
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	if !json.Valid(args) {
		return nil, fmt.Errorf("arguments of %s are not valid JSON: give a JSON object such as {\"query\": \"...\"}", tool)
	}
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, serverT, nil)
	if err != nil {
		return nil, fmt.Errorf("connect server: %w", err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "recall-call", Version: "1"}, nil)
	cs, err := client.Connect(ctx, clientT, nil)
	if err != nil {
		return nil, fmt.Errorf("connect client: %w", err)
	}
	defer cs.Close()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("call %s: %w", tool, err)
	}
	if res.IsError {
		return nil, errors.New(ContentText(res))
	}
	if res.StructuredContent != nil {
		return json.Marshal(res.StructuredContent)
	}
	return json.Marshal(ContentText(res))
}

// ContentText joins the text blocks of a result: a failed tool's words.
func ContentText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}
