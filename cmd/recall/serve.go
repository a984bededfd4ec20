package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/config"
	"github.com/recall-mcp/recall/doctor"
	"github.com/recall-mcp/recall/history"
	"github.com/recall-mcp/recall/internal/loopback"
	"github.com/recall-mcp/recall/server"
	"github.com/recall-mcp/recall/spool"
	"github.com/recall-mcp/recall/team"
	"github.com/recall-mcp/recall/viewer"

	"github.com/spf13/pflag"
)

// shutdownGrace bounds how long the job queue may take to drain at exit.
const shutdownGrace = 10 * time.Second

var serveCommand = &command{
	group: "server",
	name:  "serve",
	args:  "[--http 127.0.0.1:8765 [--allow-remote [--writable] [--hostname NAME,...]]]",
	summary: "Serve MCP on stdio (the default), or Streamable HTTP with --http.\n" +
		"Fills missing embeddings and runs curation in the background; on SIGINT or\n" +
		"SIGTERM it finishes calls in flight and the job queue (curation, summaries), closes the database\n" +
		"and exits 0.\n" +
		"RECALL_HTTP_TOKEN set makes HTTP clients send \"Authorization: Bearer <token>\";\n" +
		"--allow-remote requires it. Requests from another site's web page (Origin) get 403.\n" +
		"--http also serves the web viewer (recall ui) under /ui/; with --allow-remote it\n" +
		"needs the token too (open /ui/?token=<token> once) and is read-only unless\n" +
		"--writable; --hostname lists the names people use for this machine.",
	setup: runServe,
}

func runServe(fs *pflag.FlagSet) runFunc {
	addr := fs.String("http", "", "serve Streamable HTTP on this address instead of stdio")
	allowRemote := fs.Bool("allow-remote", false, "allow --http on an address other than loopback")
	writable := fs.Bool("writable", false, "with --allow-remote: the viewer under /ui/ allows changes")
	hostnames := fs.String("hostname", "", "with --allow-remote: comma-separated names of this machine the viewer may be opened at")
	return func(ctx context.Context, e *env, rest []string) error {
		if err := noArgs(rest); err != nil {
			return err
		}
		if !*allowRemote && (*writable || *hostnames != "") {
			return usagef("--writable and --hostname are for --allow-remote; on loopback the viewer is writable and answers loopback names")
		}
		if *addr != "" && !*allowRemote {
			if err := checkLoopback(*addr); err != nil {
				return err
			}
		}

		cfg, log, err := loadConfig(e.stderr)
		if err != nil {
			return err
		}
		if cfg.ClientMode() {
			if *addr != "" {
				return errors.New("RECALL_SERVER_URL makes this machine a client of a team server; a server of its own (--http) needs it unset")
			}
			return serveAsClient(ctx, cfg, log)
		}
		if *addr != "" && *allowRemote && cfg.HTTPToken == "" {
			return errors.New("--allow-remote needs RECALL_HTTP_TOKEN: without a token anyone who can reach the port could read and delete every memory; " +
				"set RECALL_HTTP_TOKEN to a long random value (make one with `" + config.TokenCommand + "`)")
		}
		if *addr != "" {
			if err := config.CheckHTTPToken(cfg.HTTPToken); err != nil {
				return err
			}
		}

		ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
		defer stop()
		// A client waits for the answer to initialize through all that comes
		// before it: the history index opens beside the database, and the
		// background work starts once the client has its answer (or after
		// backgroundAfter, for a client that never completes the handshake),
		// so that it does not compete with the answer for the CPU.
		hist := make(chan *history.Service, 1)
		go func() { hist <- historyService(ctx, cfg, log) }()
		a, err := openAppWith(ctx, cfg, log, modeServe)
		if err != nil {
			if hs := <-hist; hs != nil {
				hs.Index.Close()
			}
			return err
		}
		defer a.Close()
		a.hist = <-hist
		handshake := make(chan struct{})
		var handshakeOnce sync.Once
		deps := a.mcpDeps("") // clients' projects come from their roots
		deps.Initialized = func() { handshakeOnce.Do(func() { close(handshake) }) }
		srv := server.New(deps)

		// Background work runs on its own context: a signal stops new requests, but
		// what was accepted (a queued curation job, an embedding batch) finishes.
		work := context.WithoutCancel(ctx)
		var wg sync.WaitGroup
		begun := make(chan struct{}) // closed once the background work started, or never will
		go func() {
			defer close(begun)
			select {
			case <-handshake:
			case <-time.After(backgroundAfter):
			case <-ctx.Done():
				return
			}
			if a.hist != nil {
				a.hist.Refresh() // the index catches up while the client starts
			}
			// Pending vectors are filled while the server runs (they can wait for the
			// next start once a signal came).
			wg.Go(func() { a.mem.FillInBackground(ctx) })
			wg.Go(func() { a.warnAboutModels(ctx) })
			wg.Go(func() { a.keepFileActivityBounded(ctx) })
			wg.Go(func() { a.keepKeywordIndexesCompact(ctx) })
			wg.Go(func() { a.drainSpool(ctx) })
			wg.Go(func() { a.serveHooks(ctx) })
			a.handleSummaries()
			a.jobs.Start(work)
		}()
		if *addr != "" {
			a.log.Info("serving MCP over Streamable HTTP", "addr", *addr, "database", a.cfg.SQLitePath)
			// The administrator's token and the people's (recall users): each
			// request acts as whoever its token names.
			auth := team.Authenticator{AdminToken: a.cfg.HTTPToken, Dir: a.db}
			// Client machines' hooks (RECALL_SERVER_URL) are answered by
			// this server's hook handler, as the person asking.
			opts := server.HTTPOptions{
				Auth:        auth,
				SessionIdle: a.cfg.HTTPSessionIdle,
				MaxSessions: a.cfg.HTTPMaxSessions,
				Hooks:       &server.Hooks{Handle: a.answerHook, Deadline: a.cfg.HookTimeout + hookSlack, Logger: a.log},
			}
			// On loopback the viewer answers loopback Hosts, without a token
			// unless the team has people; served to other machines it needs a
			// token and is read-only unless --writable.
			loopbackAuth := auth
			loopbackAuth.OpenUntilPeople = true
			acc := viewer.Access{Auth: loopbackAuth}
			if *allowRemote {
				acc = viewer.Access{Token: a.cfg.HTTPToken, Auth: auth, Hosts: splitNames(*hostnames), ReadOnly: !*writable}
			}
			opts.UI = a.viewer(acc, ctx.Done())
			a.log.Info("serving the viewer", "url", "http://"+*addr+server.UIPrefix, "read_only", acc.ReadOnly)
			err = server.ServeHTTP(ctx, srv, *addr, opts)
		} else {
			a.log.Debug("serving MCP on stdio", "database", a.cfg.SQLitePath)
			err = server.ServeStdio(ctx, srv)
		}
		// Read before stop(), which cancels ctx too: only a signal makes a serving
		// error (an address in use, a broken session) part of a clean exit.
		signalled := ctx.Err() != nil
		stop()

		<-begun
		closeCtx, cancel := context.WithTimeout(work, shutdownGrace)
		defer cancel()
		if cerr := a.jobs.Close(closeCtx); cerr != nil {
			a.log.Warn("job queue not drained; the rest resumes at the next start", "err", cerr)
		}
		wg.Wait()
		if err != nil && !signalled {
			return err
		}
		return nil
	}
}

// backgroundAfter is the longest the background work (vectors, jobs, the
// hooks' socket) waits for a client's handshake before it starts anyway.
const backgroundAfter = 200 * time.Millisecond

// handleSummaries makes the job runner summarise sessions (an extractive
// summary at once, the chat model's when it answers); with capture or
// summaries off their jobs wait.
func (a *app) handleSummaries() {
	if !a.cfg.Capture || !a.cfg.Summaries {
		return
	}
	s := &capture.Summarizer{Store: a.db, Judge: a.judge, Memories: a.mem, MaxCalls: a.cfg.SummaryCalls, Logger: a.log}
	a.jobs.Handle(capture.SummaryJobKind, s.Run)
}

// warnAboutModels says once, at start, what is wrong with the configured
// models (not pulled, or unable to do their job), so a misconfiguration shows
// before every judgment fails. Ollama not running is left to the calls that
// need it: they say so themselves.
func (a *app) warnAboutModels(ctx context.Context) {
	if a.cfg.OllamaOff {
		return // RECALL_OLLAMA=off: told once, by the person
	}
	st, err := a.ollama.Check(ctx)
	if err != nil {
		return
	}
	for _, p := range doctor.ModelProblems(st) {
		a.log.Warn(p.What, "fix", p.Fix)
	}
}

// checkLoopback refuses an address that other machines could reach.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef("invalid --http address %q: want host:port such as 127.0.0.1:8765", addr)
	}
	if loopback.IsName(host) {
		return nil
	}
	return fmt.Errorf("refusing to serve on %q: it is not a loopback address; use 127.0.0.1:<port>, or add --allow-remote (and set RECALL_HTTP_TOKEN)", addr)
}

// activitySummaryEvery is how often a running server folds old file activity.
const activitySummaryEvery = 24 * time.Hour

// keepFileActivityBounded folds file activity older than the retention window
// at start and then daily, until ctx ends. With nothing to fold it only reads.
func (a *app) keepFileActivityBounded(ctx context.Context) {
	retention := time.Duration(a.cfg.ActivityRetentionDays) * 24 * time.Hour
	tick := time.NewTicker(activitySummaryEvery)
	defer tick.Stop()
	for {
		if n, err := a.mem.SummarizeFileActivity(ctx, retention); err != nil {
			a.log.Warn("old file activity not summarized", "err", err)
		} else if n > 0 {
			a.log.Info("summarized old file activity", "rows", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// Every keywordIndexTicks-th tick of keywordIndexEvery a running server
// merges the memories' keyword index back into one segment when stores have
// split it (a rewrite of the whole index, 0.15 s at 100k memories); every
// tick it merges the small segments the hooks' records leave in the
// journal's (well under a millisecond).
const (
	keywordIndexEvery = 30 * time.Second
	keywordIndexTicks = 20
)

// keepKeywordIndexesCompact merges the keyword indexes at start and then on
// every tick until ctx ends: each commit that stores memories or records a
// hook adds a segment to one, and every prompt hook's search looks its
// words up in each. A store without them (PostgreSQL) is left alone.
func (a *app) keepKeywordIndexesCompact(ctx context.Context) {
	db, ok := a.db.(interface {
		CompactMemoryIndex(ctx context.Context) (bool, error)
		MergeJournalIndex(ctx context.Context) (bool, error)
	})
	if !ok {
		return
	}
	tick := time.NewTicker(keywordIndexEvery)
	defer tick.Stop()
	for n := 0; ; n++ {
		if n%keywordIndexTicks == 0 {
			if _, err := db.CompactMemoryIndex(ctx); err != nil && ctx.Err() == nil {
				a.log.Warn("memories' keyword index not merged; searches stay slower until the next try", "err", err)
			}
		}
		if _, err := db.MergeJournalIndex(ctx); err != nil && ctx.Err() == nil {
			a.log.Warn("journal's keyword index not merged; searches stay slower until the next try", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// spoolDrainEvery is how often a running server applies the hooks' writes that
// met another process's write lock. Reading the empty spool directory is all an
// idle server does.
const spoolDrainEvery = 5 * time.Second

// drainSpool applies the spooled writes at start and then every
// spoolDrainEvery, until ctx ends. Behind a writer it tries again at the next
// tick.
func (a *app) drainSpool(ctx context.Context) {
	tick := time.NewTicker(spoolDrainEvery)
	defer tick.Stop()
	for {
		res, err := a.drainSpoolOnce(ctx)
		if res.Applied > 0 || res.Failed > 0 {
			a.log.Info("applied the hooks' spooled writes", "applied", res.Applied, "failed", res.Failed, "left", res.Left)
		}
		if err != nil && !spool.IsLater(err) {
			a.log.Warn("spooled writes not applied", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
