// Package server exposes Recall over the Model Context Protocol: the tool
// definitions of the Python Recall (same names, parameters, defaults and result
// fields) with thin handlers over the memory and validation services, and the
// stdio and Streamable HTTP transports.
package server

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/history"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/project"
	"github.com/recall-mcp/recall/validation"
)

// Deps are what the tools call.
type Deps struct {
	Memory   *memory.Service
	Curation *validation.Service
	// Capture reads the session journal; nil leaves its three tools out.
	Capture *capture.Reader
	// History, when set, adds the conversation history tools.
	History *history.Service
	// Projects resolves the caller's project for a context without one.
	Projects *project.Resolver
	// CallerDir is the working directory of a local caller (`recall call`),
	// whose project a context without one uses; empty for served clients,
	// whose project comes from their roots.
	CallerDir string
	Version   string
	Logger    *slog.Logger
	// Initialized, when set, is called when a client finishes the handshake
	// (notifications/initialized), for every session.
	Initialized func()
}

// instructions tell the client how the tools fit together; clients show them
// to the model once per conversation, so they stay short.
const instructions = "Recall is long-term memory. Recall (or fetch memory_context_tool) before work; " +
	"store preferences, decisions and patterns in RFC 2119 words (MUST, SHOULD, MAY). " +
	"When you use a memory, call memory_apply_tool, then memory_outcome_tool with success: " +
	"confidence rises or falls and at 0.9 a memory becomes a protected golden rule."

// New builds the MCP server with all of Recall's tools registered.
func New(d Deps) *mcp.Server {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	version := d.Version
	if version == "" {
		version = "dev"
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "recall", Version: version}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       d.Logger,
		// The tools are the same for the server's whole life: no
		// notifications that they changed (they are added after a client
		// may have connected, below).
		// Logging as the SDK gives a server by default (deprecated by SEP-2577,
		// still working; Recall's answers stay as they were).
		//lint:ignore SA1019 the SDK's default capability, kept as it was
		Capabilities: &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}, Tools: &mcp.ToolCapabilities{ListChanged: false}},
		InitializedHandler: func(context.Context, *mcp.InitializedRequest) {
			if d.Initialized != nil {
				d.Initialized()
			}
		},
	})
	// Inferring and resolving the tools' schemas is most of a start's CPU
	// (BenchmarkNew), and a client spawning `recall serve` waits for the
	// answer to initialize, which needs none of it: the tools are built in
	// the background, and every request but initialize, ping and
	// notifications waits until they are there. One goroutine builds them
	// until initialize is answered and a second joins it then: Go gives a
	// goroutine that becomes runnable a core only when one is idle, so with
	// every core building tools the answer to initialize waited for a
	// builder to finish (1-2 ms on two cores).
	h := handlers{mem: d.Memory, cur: d.Curation, projects: d.Projects, callerDir: d.CallerDir, log: d.Logger}
	adds := []func(){
		func() { h.addMemoryTools(srv) },
		func() { h.addGraphTools(srv) },
		func() { h.addCurationTools(srv) },
		func() { h.addFileTools(srv) },
	}
	if d.Capture != nil {
		adds = append(adds, func() { h.addCaptureTools(srv, d.Capture) })
	}
	if d.History != nil {
		adds = append(adds, func() { h.addHistoryTools(srv, d.History) })
	}
	tools := make(chan struct{})
	queue := make(chan func(), len(adds))
	for _, add := range adds {
		queue <- add
	}
	close(queue)
	var left atomic.Int32
	left.Store(int32(len(adds)))
	build := func() {
		for add := range queue {
			add()
			if left.Add(-1) == 0 {
				close(tools)
			}
		}
	}
	go build()
	srv.AddReceivingMiddleware(guard(d.Logger), asPrincipal, awaitTools(tools, sync.OnceFunc(func() { go build() })))
	return srv
}

// awaitTools holds every request that may need the tools (tools/list,
// tools/call, ...) until ready is closed; the handshake goes through at once,
// and answered is called once initialize has its answer.
func awaitTools(ready <-chan struct{}, answered func()) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "initialize" {
				defer answered()
			}
			if method != "initialize" && method != "ping" && !strings.HasPrefix(method, "notifications/") {
				select {
				case <-ready:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return next(ctx, method, req)
		}
	}
}

// handlers hold the services the tools call.
type handlers struct {
	mem       *memory.Service
	cur       *validation.Service
	projects  *project.Resolver
	callerDir string
	log       *slog.Logger
}

// addTool registers one typed tool. Its arguments are validated against the
// schema inferred from In (with the tool's defaults); an error from call
// becomes a tool error whose text says what was wrong. A failure made by
// failedWith keeps the result call returned as the error's structured content.
func addTool[In, Out any](srv *mcp.Server, h handlers, name, description string, defaults map[string]any, call func(context.Context, In) (Out, error)) {
	addRequestTool(srv, h, name, description, defaults, func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		out, err := call(ctx, in)
		return nil, out, err
	})
}

// addRequestTool is addTool for a tool that needs the request itself (its
// session, to ask the client for its roots) and may answer with a result of
// its own (one asking the client for input).
func addRequestTool[In, Out any](srv *mcp.Server, h handlers, name, description string, defaults map[string]any, call func(context.Context, *mcp.CallToolRequest, In) (*mcp.CallToolResult, Out, error)) {
	tool := &mcp.Tool{
		Name:         name,
		Description:  description,
		InputSchema:  inputSchema[In](defaults),
		OutputSchema: objectOutput,
	}
	mcp.AddTool(srv, tool, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		res, out, err := call(memory.WithSource(ctx, memory.SourceMCP), req, in) // what a tool stores came through MCP
		var failed *failure
		if errors.As(err, &failed) {
			res := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: failed.msg}}}
			return res, out, nil
		}
		if err != nil {
			var zero Out
			return nil, zero, toolError(h.log, name, err)
		}
		return res, out, nil
	})
}
