package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/config"
	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/history"
	"github.com/recall-mcp/recall/hook"
	"github.com/recall-mcp/recall/jobs"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/privacy"
	"github.com/recall-mcp/recall/project"
	"github.com/recall-mcp/recall/server"
	"github.com/recall-mcp/recall/spool"
	"github.com/recall-mcp/recall/storage/sqlite"
	"github.com/recall-mcp/recall/validation"
)

// app is Recall wired together: configuration, logger, database, Ollama client,
// memory service and curation service.
type app struct {
	cfg    *config.Config
	log    *slog.Logger
	db     store // the SQLite file, or PostgreSQL with RECALL_DATABASE_URL
	ollama *embedding.Client
	judge  memory.Judge // the chat model; nil with RECALL_OLLAMA=off
	mem    *memory.Service
	cur    *validation.Service
	jobs   *jobs.Runner // curation and summary jobs (started by recall serve)
	// projects resolves directories to project namespaces for hooks, the CLI
	// and the MCP server alike.
	projects *project.Resolver
	hist     *history.Service // nil unless opened (serve), or with RECALL_HISTORY=off
	// vectors logs when the prompt hooks this process answers go to keywords
	// only and back, once per change.
	vectors hook.VectorLog
}

// appMode says how much of Recall a command needs.
type appMode int

const (
	// modeFull is everything, for the server and the CLI.
	modeFull appMode = iota
	// modeHook is what a hook needs, with embedding bounded by the hook
	// timeout so that a hung Ollama cannot hold the user's session.
	modeHook
	// modeServe is modeFull for recall serve, which applies the hooks'
	// spool in the background once its client has the answer to initialize
	// (a command applies it before it reads).
	modeServe
)

// maxQueryEmbedWait caps how long a search waits for its query's vector before
// answering from keywords: an agent waiting on recall should not sit through the
// whole Ollama timeout, which stores may use to load a cold model.
const maxQueryEmbedWait = 5 * time.Second

// loadConfig reads the configuration and builds the logger (stderr only: stdout
// belongs to the MCP protocol and the hooks' answers).
func loadConfig(stderr io.Writer) (*config.Config, *slog.Logger, error) {
	return loadConfigLevel(stderr, nil)
}

// loadConfigLevel is loadConfig with a level of its own for when
// RECALL_LOG_LEVEL is unset.
func loadConfigLevel(stderr io.Writer, unsetLevel *slog.Level) (*config.Config, *slog.Logger, error) {
	cfg, err := config.Load()
	if err != nil {
		return nil, slog.New(slog.NewTextHandler(stderr, nil)), err
	}
	level := cfg.SlogLevel()
	if _, set := os.LookupEnv("RECALL_LOG_LEVEL"); !set && unsetLevel != nil {
		level = *unsetLevel
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	return cfg, log, nil
}

// cliLevel is the log level of the human commands: they print what a person
// needs themselves, so their log says nothing below ERROR unless -v (INFO) or
// RECALL_LOG_LEVEL asks for it.
func cliLevel(e *env) *slog.Level {
	level := slog.LevelError
	if e.verbose {
		level = slog.LevelInfo
	}
	return &level
}

// openApp opens the database and builds the services for a human command.
// Close releases them.
func openApp(ctx context.Context, e *env, mode appMode) (*app, error) {
	cfg, log, err := loadConfigLevel(e.stderr, cliLevel(e))
	if err != nil {
		return nil, err
	}
	return openAppWith(ctx, cfg, log, mode)
}

func openAppWith(ctx context.Context, cfg *config.Config, log *slog.Logger, mode appMode) (*app, error) {
	if cfg.ClientMode() {
		// The team's memory is the server's: no database of this machine's
		// may be opened (or made) beside it.
		return nil, fmt.Errorf("this machine is a client of the team server %s (RECALL_SERVER_URL): this command works on the server's database as a whole "+
			"and runs on the server's machine; the commands over memories (add, search, list, show, edit, rm, restore, forget, stats, export, import), "+
			"recall call and recall ui go through the server from here; or unset RECALL_SERVER_URL to use a database of this machine's own", cfg.ServerURL)
	}
	ollama, err := newOllama(cfg)
	if err != nil {
		return nil, err
	}
	// A hook must answer in time and lose nothing: behind another writer its
	// writes go to the spool, which the next hook or recall serve applies.
	db, err := openStore(ctx, cfg, log, mode)
	if err != nil {
		return nil, err
	}
	var embedder memory.Embedder = ollama
	var judge memory.Judge = ollama
	switch {
	case cfg.OllamaOff:
		// RECALL_OLLAMA=off: keywords only, nothing waits on Ollama.
		embedder, judge = nil, nil
	case mode == modeHook:
		embedder = hookGuard(cfg, log).Embedder(ollama)
	}
	mem := memory.NewService(db, embedder, memoryOptions(cfg, log))
	// One runner works every job kind: curation's and the session summaries.
	runner := jobs.New(db, jobs.Options{Workers: cfg.CurationWorkers, Logger: log})
	cur := validation.New(db, mem, embedder, judge, validation.Options{
		Jobs:                   runner,
		ContradictionThreshold: cfg.ContradictionThreshold,
		StaleDays:              cfg.StaleDays,
		Workers:                cfg.CurationWorkers,
		Enabled:                cfg.Curation,
		DefaultTokenBudget:     cfg.DefaultTokenBudget,
		Logger:                 log,
	})
	mem.SetCurator(cur)
	projects := project.NewResolver(db, cfg.Project, log)
	a := &app{cfg: cfg, log: log, db: db, ollama: ollama, judge: judge, mem: mem, cur: cur, jobs: runner, projects: projects}
	if db, ok := db.(*sqlite.DB); ok {
		// Whoever drains the spool completes the tool calls hooks kept there.
		db.ResolveKeptToolCalls(a.hookHandler(mem).ResolveKeptToolCall)
		// A command shows what hooks left in the spool (the tool calls
		// post-tool-use keeps there above all): it is applied first. A hook
		// applies it before its own write (see sqlite.DB.hookWrite).
		if mode == modeFull {
			if res, err := db.DrainSpool(ctx, spool.Budget{}); err != nil || res.Left > 0 {
				log.Debug("hook writes still wait in the spool", "left", res.Left, "err", err)
			}
		}
	}
	return a, nil
}

// openHistory adds the conversation history to the app; searches start a
// background index at most once a minute.
func (a *app) openHistory(ctx context.Context) {
	a.hist = historyService(ctx, a.cfg, a.log)
}

// historyService opens the conversation history for an app, or returns nil
// (logged) when it is off or unavailable.
func historyService(ctx context.Context, cfg *config.Config, log *slog.Logger) *history.Service {
	if !cfg.History {
		return nil
	}
	hs, err := openHistory(ctx, cfg, log)
	if err != nil {
		log.Warn("conversation history unavailable", "err", err)
		return nil
	}
	hs.Refresh = refresher(cfg, log, time.Minute)
	return hs
}

// Close closes the database.
func (a *app) Close() {
	if a.hist != nil {
		a.hist.Index.Close()
	}
	if err := a.db.Close(); err != nil {
		a.log.Error("close database", "err", err)
	}
}

// mcpServer builds the MCP server over the app's services. callerDir is the
// working directory of a local caller (`recall call`), empty when serving.
func (a *app) mcpServer(callerDir string) *mcp.Server {
	return server.New(a.mcpDeps(callerDir))
}

// mcpDeps are what the MCP server's tools work on.
func (a *app) mcpDeps(callerDir string) server.Deps {
	return server.Deps{
		Memory: a.mem, Curation: a.cur, History: a.hist, Projects: a.projects, CallerDir: callerDir,
		Capture: a.reader(), Version: version(), Logger: a.log,
	}
}

// reader is the capture service's three reading steps and journal feed over
// the app's store, for the MCP tools and the viewer.
func (a *app) reader() *capture.Reader {
	return &capture.Reader{Store: a.db, Memories: a.mem, TranscriptRoot: a.cfg.HistoryDir}
}

// memoryOptions are the memory service's settings from the configuration.
func memoryOptions(cfg *config.Config, log *slog.Logger) memory.Options {
	return memory.Options{
		DefaultNamespace:   cfg.DefaultNamespace,
		DefaultImportance:  cfg.DefaultImportance,
		DefaultConfidence:  cfg.DefaultConfidence,
		DefaultTokenBudget: cfg.DefaultTokenBudget,
		QueryEmbedTimeout:  min(cfg.OllamaTimeout, maxQueryEmbedWait),
		StoreEmbedTimeout:  min(cfg.OllamaTimeout, cfg.StoreEmbedTimeout),
		MatchMinSimilarity: cfg.MatchMinSimilarity,
		Logger:             log,
		Scrub:              privacy.Clean,
	}
}
