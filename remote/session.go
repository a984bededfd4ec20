package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Session is an MCP session to the team server, opened on first use and
// opened again after it was lost (the server restarted, or was away): a call
// that fails for want of the session is tried once more on a new one.
type Session struct {
	Client  *Client
	Name    string // this client's name, as the server's log shows it
	Version string

	mu sync.Mutex
	cs *mcp.ClientSession
}

func (s *Session) session(ctx context.Context) (*mcp.ClientSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cs != nil {
		return s.cs, nil
	}
	client := mcp.NewClient(&mcp.Implementation{Name: s.Name, Version: s.Version}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.Client.URL, HTTPClient: s.Client.HTTP, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err != nil {
		// The SDK says a refused token in the status's words alone.
		if strings.Contains(err.Error(), http.StatusText(http.StatusUnauthorized)) {
			return nil, fmt.Errorf("the team server %s refused the token (RECALL_TOKEN): it is not a person's current token (replaced, or the person was removed?); recall users token NAME on the server makes a new one", s.Client.URL)
		}
		return nil, fmt.Errorf("team server %s did not answer: %w", s.Client.URL, err)
	}
	s.cs = cs
	return cs, nil
}

// drop forgets cs, so the next call opens a new session.
func (s *Session) drop(cs *mcp.ClientSession) {
	s.mu.Lock()
	if s.cs == cs {
		s.cs = nil
	}
	s.mu.Unlock()
	cs.Close()
}

// Tools lists the server's tools.
func (s *Session) Tools(ctx context.Context) ([]*mcp.Tool, error) {
	var tools []*mcp.Tool
	err := s.retry(ctx, func(cs *mcp.ClientSession) error {
		tools = nil
		for t, err := range cs.Tools(ctx, nil) {
			if err != nil {
				return err
			}
			tools = append(tools, t)
		}
		return nil
	})
	return tools, err
}

// Call calls a tool of the server with the arguments as they came.
func (s *Session) Call(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	var res *mcp.CallToolResult
	err := s.retry(ctx, func(cs *mcp.ClientSession) error {
		var err error
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		return err
	})
	return res, err
}

// retry runs fn on the session, and once more on a new one when it failed
// (a tool's own error is a result, not a failure).
func (s *Session) retry(ctx context.Context, fn func(*mcp.ClientSession) error) error {
	cs, err := s.session(ctx)
	if err != nil {
		return err
	}
	if err = fn(cs); err == nil || ctx.Err() != nil {
		return err
	}
	s.drop(cs)
	if cs, err = s.session(ctx); err != nil {
		return err
	}
	return fn(cs)
}

// Close ends the session.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cs == nil {
		return nil
	}
	err := s.cs.Close()
	s.cs = nil
	return err
}
