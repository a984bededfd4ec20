//lint:file-ignore SA1019 MCP roots are deprecated (SEP-2577) but still work for at least twelve months and are how Claude Code and Cursor say which project a session is in; Recall uses them only as a fallback after RECALL_PROJECT and the working directory.

package server

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/project"
)

// listRootsTimeout bounds the roots/list request a context without a project
// sends to the client: a client slow to answer gets global memories only.
const listRootsTimeout = 2 * time.Second

// projectUsed tells a caller which project a context used and how it was
// found, so an agent can see that a context without `project` was not a guess.
type projectUsed struct {
	// Namespace is the project's namespace; empty means global memories only.
	Namespace string         `json:"namespace"`
	Root      string         `json:"root,omitempty"`
	Source    project.Source `json:"source"`
	Note      string         `json:"note"`
}

// contextProject decides the project of a context request: the argument when
// given, else RECALL_PROJECT, else the client's roots (when it declared the
// roots capability; file:// URIs), else the caller's working directory (the
// CLI), else none: global memories only. When the roots must come back in a
// second round trip (clients on the multi round-trip protocol), it returns the
// result asking for them instead.
func (h handlers) contextProject(ctx context.Context, req *mcp.CallToolRequest, arg string) (projectUsed, *mcp.CallToolResult, error) {
	if arg = strings.TrimSpace(arg); arg != "" {
		ns := memory.ProjectNamespace(strings.TrimPrefix(arg, memory.ProjectNamespacePref))
		return projectUsed{Namespace: ns, Source: project.SourceArgument, Note: "the project argument"}, nil, nil
	}
	if h.projects == nil {
		return noProject("no project resolver configured"), nil, nil
	}
	if c, ok := project.ClientFrom(ctx); ok {
		p, err := h.projects.ForClient(ctx, c)
		if err != nil {
			return projectUsed{}, nil, fmt.Errorf("resolving the client machine's project: %w", err)
		}
		return used(p, "the project your machine resolved and sent ("+clientOrigin(c)+")"), nil, nil
	}
	if p, ok := h.projects.Pinned(); ok {
		return used(p, "RECALL_PROJECT pins it"), nil, nil
	}
	if ss := sessionOf(req); ss != nil && offersRoots(ss) {
		roots, ask := h.clientRoots(ctx, req, ss)
		if ask != nil {
			return projectUsed{}, ask, nil
		}
		p, ok, err := h.projects.ForRoots(ctx, roots)
		if err != nil {
			return projectUsed{}, nil, fmt.Errorf("resolving the client's roots: %w", err)
		}
		if ok {
			return used(p, "the first file:// root the client offered ("+p.Root+")"), nil, nil
		}
	}
	if h.callerDir != "" {
		p, err := h.projects.ForDir(ctx, h.callerDir)
		if err != nil {
			return projectUsed{}, nil, err
		}
		return used(p, "the working directory "+h.callerDir), nil, nil
	}
	return noProject("no project argument, and the client offered no file:// root: global memories only"), nil, nil
}

// rootsInput names the roots/list input request of a multi round-trip call.
const rootsInput = "roots"

// mrtrProtocol is the first protocol version on which a server may not send
// requests while serving one, and asks for client input by multi round trip
// (InputRequests in the result, the answers in the retried call).
const mrtrProtocol = "2026-07-28"

// clientRoots returns the URIs of the client's roots: from the retried call's
// input responses, else asked directly (older protocols), else it returns the
// result that asks for them. A client that refuses or does not answer within
// listRootsTimeout gives no roots.
func (h handlers) clientRoots(ctx context.Context, req *mcp.CallToolRequest, ss *mcp.ServerSession) ([]string, *mcp.CallToolResult) {
	var res *mcp.ListRootsResult
	if r, ok := req.Params.InputResponses[rootsInput].(*mcp.ListRootsResult); ok {
		res = r
	} else if ip := ss.InitializeParams(); ip != nil && ip.ProtocolVersion >= mrtrProtocol {
		return nil, &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{rootsInput: &mcp.ListRootsParams{}}}
	} else {
		lctx, cancel := context.WithTimeout(ctx, listRootsTimeout)
		defer cancel()
		var err error
		if res, err = ss.ListRoots(lctx, nil); err != nil {
			h.log.Info("client roots unavailable; context uses global memories only", "err", err)
			return nil, nil
		}
	}
	uris := make([]string, 0, len(res.Roots))
	for _, r := range res.Roots {
		uris = append(uris, r.URI)
	}
	return uris, nil
}

func sessionOf(req *mcp.CallToolRequest) *mcp.ServerSession {
	if req == nil {
		return nil
	}
	return req.Session
}

// offersRoots reports whether the client declared the roots capability.
func offersRoots(ss *mcp.ServerSession) bool {
	ip := ss.InitializeParams()
	return ip != nil && ip.Capabilities != nil && ip.Capabilities.RootsV2 != nil
}

// clientOrigin says in a few words where a client machine's project came from.
func clientOrigin(c project.Client) string {
	if c.Namespace != "" {
		return "RECALL_PROJECT there"
	}
	return c.Root
}

func used(p project.Project, note string) projectUsed {
	return projectUsed{Namespace: p.Namespace, Root: p.Root, Source: p.Source, Note: note}
}

func noProject(note string) projectUsed {
	return projectUsed{Source: project.SourceNone, Note: note}
}

// clientRootCache keeps the roots the agent offered to this forwarding
// server, asked once per session (an agent's roots are its project, which a
// session does not change).
type clientRootCache struct {
	log  *slog.Logger
	mu   sync.Mutex
	ss   *mcp.ServerSession
	uris []string
}

// of returns the file roots ss offers; none when it declared no roots
// capability, speaks a protocol on which a server may not ask during a call,
// or does not answer within listRootsTimeout.
func (c *clientRootCache) of(ctx context.Context, ss *mcp.ServerSession) []string {
	if ss == nil || !offersRoots(ss) {
		return nil
	}
	if ip := ss.InitializeParams(); ip != nil && ip.ProtocolVersion >= mrtrProtocol {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ss == ss {
		return c.uris
	}
	lctx, cancel := context.WithTimeout(ctx, listRootsTimeout)
	defer cancel()
	res, err := ss.ListRoots(lctx, nil)
	if err != nil {
		c.log.Info("the agent's roots are unavailable; the working directory gives the project", "err", err)
		return nil
	}
	c.ss, c.uris = ss, nil
	for _, r := range res.Roots {
		c.uris = append(c.uris, r.URI)
	}
	return c.uris
}
