package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-mcp/recall/project"
)

// Remote is the team server's side of a forwarding server: its tools, and a
// call of one with the arguments as the client sent them.
type Remote interface {
	Tools(ctx context.Context) ([]*mcp.Tool, error)
	Call(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error)
}

// NewForwarding builds the MCP server of a machine that is a client of a team
// server: every tool of the team server, each call forwarded as it came (the
// team server checks it and knows who asks from the token), except the
// conversation history tools, which answer from this machine's transcripts
// (d.History; left out when nil).
//
// Each call goes with this machine's project (project.WithClient; the remote
// sends it as project.Header): pinned is RECALL_PROJECT here; else the first
// file:// root the agent offers; else this process's working directory,
// where the agent started it.
func NewForwarding(ctx context.Context, d Deps, remote Remote, pinned string) (*mcp.Server, error) {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	tools, err := remote.Tools(ctx)
	if err != nil {
		return nil, err
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "recall", Version: versionOf(d)}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       d.Logger,
	})
	srv.AddReceivingMiddleware(guard(d.Logger))
	local := map[string]bool{"search_project_history": true, "search_global_history": true, "read_history": true}
	here := project.ClientOf("", pinned)
	roots := &clientRootCache{log: d.Logger}
	for _, t := range tools {
		if local[t.Name] {
			continue
		}
		name := t.Name
		srv.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			c := here
			if pinned == "" {
				if fromRoots, ok := project.ClientOfRoots(roots.of(ctx, sessionOf(req)), ""); ok {
					c = fromRoots
				}
			}
			res, err := remote.Call(project.WithClient(ctx, c), name, req.Params.Arguments)
			if err != nil {
				// The team server is away: a tool error the agent can read,
				// not a broken session.
				r := &mcp.CallToolResult{}
				r.SetError(fmt.Errorf("%s: the team server did not answer (%v); try again once it is back", name, err))
				return r, nil
			}
			return res, nil
		})
	}
	if d.History != nil {
		h := handlers{log: d.Logger}
		h.addHistoryTools(srv, d.History)
	}
	return srv, nil
}

func versionOf(d Deps) string {
	if d.Version == "" {
		return "dev"
	}
	return d.Version
}
