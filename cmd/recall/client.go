package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os/signal"
	"syscall"
	"time"

	"github.com/recall-mcp/recall/config"
	"github.com/recall-mcp/recall/hook"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/remote"
	"github.com/recall-mcp/recall/server"
	"github.com/recall-mcp/recall/spool"
	"github.com/recall-mcp/recall/viewer"
)

// A machine with RECALL_SERVER_URL is a client of the team server: no local
// database is opened; tools, hooks, the CLI and the viewer go to the server.

// teamClient is the client of cfg's team server.
func teamClient(cfg *config.Config) (*remote.Client, error) {
	return remote.New(cfg.ServerURL, cfg.Token, cfg.ServerCA)
}

// connectWait bounds how long `recall serve` waits for the team server at
// start before it gives up with a clear error.
const connectWait = 10 * time.Second

// serveAsClient serves MCP on stdio with the team server's tools, each call
// forwarded to it, and the conversation history tools answered here.
func serveAsClient(ctx context.Context, cfg *config.Config, log *slog.Logger) error {
	c, err := teamClient(cfg)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	sess := &remote.Session{Client: c, Name: "recall (client mode)", Version: version()}
	defer sess.Close()
	d := server.Deps{Version: version(), Logger: log}
	if cfg.History {
		hs, err := openHistory(ctx, cfg, log)
		if err != nil {
			log.Warn("conversation history unavailable", "err", err)
		} else {
			hs.Refresh = refresher(cfg, log, time.Minute)
			hs.Refresh()
			defer hs.Index.Close()
			d.History = hs
		}
	}
	startCtx, cancel := context.WithTimeout(ctx, connectWait)
	srv, err := server.NewForwarding(startCtx, d, sess, cfg.Project)
	cancel()
	if err != nil {
		return errors.New("team server " + cfg.ServerURL + " did not list its tools: " + err.Error() + "; check RECALL_SERVER_URL and RECALL_TOKEN, or unset RECALL_SERVER_URL to use this machine's own database")
	}
	// Hook events kept while the server was away go out from here too, not
	// only with the next hook.
	go clientHooks(cfg, c, log).KeepSending(ctx, outboxInterval)
	log.Debug("serving MCP on stdio as a client of the team server", "server", cfg.ServerURL)
	err = server.ServeStdio(ctx, srv)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// runHookAsClient sends the hook's event to the team server and prints its
// answer; the transcripts' index stays on this machine, so session-start and
// pre-compact still start it here.
func runHookAsClient(ctx context.Context, e *env, cfg *config.Config, log *slog.Logger, event string) {
	ev, err := hook.ParseEvent(event)
	if err != nil {
		log.Error("hook not answered", "err", err)
		return
	}
	if (ev == hook.SessionStart || ev == hook.PreCompact) && cfg.History {
		startBackgroundIndex(cfg, log)
	}
	c, err := teamClient(cfg)
	if err != nil {
		log.Error("hook not answered", "err", err)
		return
	}
	clientHooks(cfg, c, log).Run(ctx, ev, e.stdin, e.stdout)
}

// outboxInterval is how often `recall serve` in client mode sends the hook
// events waiting in the outbox.
const outboxInterval = 5 * time.Second

// clientHooks sends this machine's hook events to the team server. A hook
// waits for it as long as a hook on the server's own machine waits for a
// running server (RECALL_HOOK_TIMEOUT, the server's budget for the prompt's
// vector, plus socketAnswerSlack for the search and the journal), then
// answers nothing and leaves its event in the outbox.
func clientHooks(cfg *config.Config, c *remote.Client, log *slog.Logger) *remote.Hooks {
	return &remote.Hooks{Client: c, Outbox: spool.New(remote.OutboxDir(cfg.SQLitePath), log),
		Budget: cfg.HookTimeout + socketAnswerSlack, Logger: log, Pinned: cfg.Project}
}

// serveUIAsClient serves the team server's viewer on 127.0.0.1, through a
// proxy that adds this person's token.
func serveUIAsClient(ctx context.Context, e *env, cfg *config.Config, log *slog.Logger, port int) error {
	c, err := teamClient(cfg)
	if err != nil {
		return err
	}
	h, err := c.ViewerProxy()
	if err != nil {
		return err
	}
	if port == 0 {
		port = cfg.UIPort
	}
	if port == 0 {
		port = viewer.DefaultPort()
	}
	ln, err := viewer.Listen(port)
	if err != nil {
		return fmt.Errorf("%w (choose another with --port or RECALL_UI_PORT)", err)
	}
	fmt.Fprintf(e.stdout, "Recall viewer of the team server %s: http://%s/\n", cfg.ServerURL, ln.Addr())
	log.Info("serving the team server's viewer", "addr", ln.Addr().String(), "server", cfg.ServerURL)
	return viewer.Serve(ctx, ln, h)
}

// clientCall runs one tool of the team server (recall call in client mode),
// through the same forwarding server the agents use.
func clientCall(ctx context.Context, cfg *config.Config, log *slog.Logger, tool string, args json.RawMessage) (json.RawMessage, error) {
	c, err := teamClient(cfg)
	if err != nil {
		return nil, err
	}
	sess := &remote.Session{Client: c, Name: "recall call (client mode)", Version: version()}
	defer sess.Close()
	d := server.Deps{Version: version(), Logger: log}
	if cfg.History {
		if hs, err := openHistory(ctx, cfg, log); err == nil {
			defer hs.Index.Close()
			d.History = hs
		}
	}
	srv, err := server.NewForwarding(ctx, d, sess, cfg.Project)
	if err != nil {
		return nil, fmt.Errorf("team server %s: %w", cfg.ServerURL, err)
	}
	return server.Call(ctx, srv, tool, args)
}

// clientConfig returns the configuration when this machine is a client of a
// team server (ok false otherwise, or when the configuration does not load:
// the command's own path then reports it).
func clientConfig(e *env) (*config.Config, *slog.Logger, bool) {
	cfg, log, err := loadConfigLevel(e.stderr, cliLevel(e))
	if err != nil || !cfg.ClientMode() {
		return nil, nil, false
	}
	return cfg, log, true
}

// searchThroughServer is recall search on a client machine: the team
// server's memory_recall_tool, as the person whose token this machine holds.
// The filters the tool does not take are refused, not ignored.
func searchThroughServer(ctx context.Context, cfg *config.Config, log *slog.Logger, f *filters, query string, related bool) (*memory.RecallResult, error) {
	ns, err := clientFilters(f, "search")
	if err != nil {
		return nil, err
	}
	args, err := json.Marshal(map[string]any{"query": query, "n_results": f.limit, "namespace": ns, "memory_type": f.typ, "include_related": related})
	if err != nil {
		return nil, err
	}
	out, err := clientCall(ctx, cfg, log, "memory_recall_tool", args)
	if err != nil {
		return nil, err
	}
	var res memory.RecallResult
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("the team server's answer: %w", err)
	}
	return &res, nil
}

// listThroughServer is recall list on a client machine: the team server's
// memory_list_tool, as the person whose token this machine holds.
func listThroughServer(ctx context.Context, cfg *config.Config, log *slog.Logger, f *filters, order string, offset int) (*memory.ListResult, error) {
	ns, err := clientFilters(f, "list")
	if err != nil {
		return nil, err
	}
	args, err := json.Marshal(map[string]any{"namespace": ns, "memory_type": f.typ, "limit": f.limit, "offset": offset, "order_by": order, "descending": !f.asc})
	if err != nil {
		return nil, err
	}
	out, err := clientCall(ctx, cfg, log, "memory_list_tool", args)
	if err != nil {
		return nil, err
	}
	// The tool answers as the Python Recall does: times in Unix seconds.
	var res struct {
		Memories []struct {
			ID          string      `json:"id"`
			Content     string      `json:"content"`
			ContentHash string      `json:"content_hash"`
			Type        memory.Type `json:"memory_type"`
			Namespace   string      `json:"namespace"`
			Importance  float64     `json:"importance"`
			Confidence  float64     `json:"confidence"`
			CreatedAt   float64     `json:"created_at"`
			UpdatedAt   float64     `json:"updated_at"`
			AccessedAt  float64     `json:"accessed_at"`
			AccessCount int         `json:"access_count"`
		} `json:"memories"`
		Count      int `json:"count"`
		Total      int `json:"total"`
		Pagination struct {
			Limit   int  `json:"limit"`
			Offset  int  `json:"offset"`
			HasMore bool `json:"has_more"`
		} `json:"pagination"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("the team server's answer: %w", err)
	}
	list := &memory.ListResult{Memories: []*memory.Memory{}, Count: res.Count, Total: res.Total,
		Limit: res.Pagination.Limit, Offset: res.Pagination.Offset, HasMore: res.Pagination.HasMore}
	for _, m := range res.Memories {
		list.Memories = append(list.Memories, &memory.Memory{ID: m.ID, Content: m.Content, ContentHash: m.ContentHash, Type: m.Type,
			Namespace: m.Namespace, Importance: m.Importance, Confidence: m.Confidence, AccessCount: m.AccessCount,
			CreatedAt: unixTime(m.CreatedAt), UpdatedAt: unixTime(m.UpdatedAt), AccessedAt: unixTime(m.AccessedAt)})
	}
	return list, nil
}

// clientFilters checks the filters of search or list (command) on a client
// machine and returns the namespace they name: the team server's tools take
// a namespace and a type, not the dates, confidence bounds, --all nor the
// working directory's project, which are refused rather than ignored.
func clientFilters(f *filters, command string) (string, error) {
	if f.since != "" || f.until != "" || f.minConf != 0 || f.maxConf != 1 || f.all || f.project == "." {
		return "", usagef("on a client of the team server, recall %s takes --namespace, --project NAME, --type, --limit, --sort and --json (the dates, confidence bounds, --all and --project . need this machine's own database)", command)
	}
	ns := cliNamespace(f.namespace)
	if f.project != "" {
		if ns != "" {
			return "", usagef("give --namespace or --project, not both")
		}
		ns = cliNamespace(f.project)
	}
	return ns, nil
}

// unixTime is a time given in (fractional) Unix seconds.
func unixTime(sec float64) time.Time {
	return time.Unix(0, int64(sec*1e9)).UTC()
}
