package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"os/signal"
	"strconv"
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
		return nil, err // it names the server
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
// server's search (its viewer API's, the filters included), as the person
// whose token this machine holds. --related, which follows the hits' edges,
// goes through memory_recall_tool, which takes a namespace and a type alone.
func searchThroughServer(ctx context.Context, cfg *config.Config, log *slog.Logger, f *filters, query string, related bool) (*memory.RecallResult, error) {
	if related {
		return searchRelatedThroughServer(ctx, cfg, log, f, query)
	}
	q, err := clientView(f)
	if err != nil {
		return nil, err
	}
	q.Set("q", query)
	q.Set("limit", strconv.Itoa(f.limit))
	c, err := teamClient(cfg)
	if err != nil {
		return nil, err
	}
	var page struct {
		Memories   []memory.ScoredMemory `json:"memories"`
		Total      int                   `json:"total"`
		SearchMode string                `json:"search_mode"`
		Degraded   bool                  `json:"degraded"`
		Reason     string                `json:"degraded_reason"`
	}
	if err := c.Do(ctx, http.MethodGet, "memories", q, nil, &page); err != nil {
		return nil, err
	}
	if page.Memories == nil {
		page.Memories = []memory.ScoredMemory{}
	}
	return &memory.RecallResult{Memories: page.Memories, Total: page.Total, SearchMode: page.SearchMode, Degraded: page.Degraded, Reason: page.Reason}, nil
}

// searchRelatedThroughServer is recall search --related on a client machine:
// the team server's memory_recall_tool with include_related. The filters the
// tool does not take are refused, not ignored.
func searchRelatedThroughServer(ctx context.Context, cfg *config.Config, log *slog.Logger, f *filters, query string) (*memory.RecallResult, error) {
	if f.since != "" || f.until != "" || f.minConf != 0 || f.maxConf != 1 || f.all || f.project == "." {
		return nil, usagef("on a client of the team server, recall search --related takes --namespace, --project NAME, --type, --limit, --sort and --json (drop --related to filter by dates, confidence or --all)")
	}
	ns := cliNamespace(f.namespace)
	if f.project != "" {
		if ns != "" {
			return nil, usagef("give --namespace or --project, not both")
		}
		ns = cliNamespace(f.project)
	}
	args, err := json.Marshal(map[string]any{"query": query, "n_results": f.limit, "namespace": ns, "memory_type": f.typ, "include_related": true})
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
// list (its viewer API's), as the person whose token this machine holds;
// hidden is how many superseded memories it leaves out.
func listThroughServer(ctx context.Context, cfg *config.Config, f *filters, order string, offset int) (list *memory.ListResult, hidden int, err error) {
	if f.asc {
		return nil, 0, usagef("on a client of the team server, recall list lists newest (most used, most important, most trusted) first: drop --asc")
	}
	q, err := clientView(f)
	if err != nil {
		return nil, 0, err
	}
	q.Set("order_by", order)
	q.Set("limit", strconv.Itoa(f.limit))
	q.Set("offset", strconv.Itoa(offset))
	c, err := teamClient(cfg)
	if err != nil {
		return nil, 0, err
	}
	var page struct {
		Memories []*memory.Memory `json:"memories"`
		Total    int              `json:"total"`
		Limit    int              `json:"limit"`
		Offset   int              `json:"offset"`
		HasMore  bool             `json:"has_more"`
	}
	if err := c.Do(ctx, http.MethodGet, "memories", q, nil, &page); err != nil {
		return nil, 0, err
	}
	if page.Memories == nil {
		page.Memories = []*memory.Memory{}
	}
	list = &memory.ListResult{Memories: page.Memories, Count: len(page.Memories), Total: page.Total, Limit: page.Limit, Offset: page.Offset, HasMore: page.HasMore}
	if f.all {
		return list, 0, nil
	}
	// The superseded ones left out: the total with them, less the total.
	q.Set("include_superseded", "true")
	q.Set("limit", "1")
	q.Set("offset", "0")
	var all struct {
		Total int `json:"total"`
	}
	if err := c.Do(ctx, http.MethodGet, "memories", q, nil, &all); err != nil {
		return nil, 0, err
	}
	return list, max(all.Total-page.Total, 0), nil
}

// clientView is search's and list's filters as the team server's list takes
// them. Dates go as instants (this machine's midnights); --project . needs
// this machine's own database.
func clientView(f *filters) (url.Values, error) {
	q := url.Values{}
	ns := cliNamespace(f.namespace)
	if f.project != "" {
		if ns != "" {
			return nil, usagef("give --namespace or --project, not both")
		}
		if f.project == "." {
			return nil, usagef("on a client of the team server, --project . is not known here: give the project's name (recall list shows the namespaces)")
		}
		ns = cliNamespace(f.project)
	}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("namespace", ns)
	set("type", f.typ)
	switch f.source {
	case "unknown":
		q.Set("source", "(unknown)") // the server's name for it
	default:
		set("source", f.source)
	}
	for _, c := range []struct {
		flag, param string
		v, unset    float64
	}{{"--min-confidence", "min_confidence", f.minConf, 0}, {"--max-confidence", "max_confidence", f.maxConf, 1}} {
		if c.v < 0 || c.v > 1 || math.IsNaN(c.v) {
			return nil, usagef("invalid %s %v: accepted 0 to 1", c.flag, c.v)
		}
		if c.v != c.unset {
			q.Set(c.param, strconv.FormatFloat(c.v, 'f', -1, 64))
		}
	}
	for _, d := range []struct{ flag, param, v string }{{"--since", "since", f.since}, {"--until", "until", f.until}} {
		if d.v == "" {
			continue
		}
		at, err := parseDateFlag(d.flag, d.v)
		if err != nil {
			return nil, err
		}
		q.Set(d.param, at.Format(time.RFC3339))
	}
	if f.all {
		q.Set("include_superseded", "true")
	}
	return q, nil
}
