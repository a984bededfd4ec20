package main

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-mcp/recall/config"
	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/history"
	"github.com/recall-mcp/recall/hook"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/server"
	"github.com/recall-mcp/recall/storage"
	"github.com/recall-mcp/recall/validation"
)

// app is Recall wired together: configuration, logger, database, Ollama client,
// memory service and curation service.
type app struct {
	cfg    *config.Config
	log    *slog.Logger
	db     *storage.DB
	ollama *embedding.Client
	mem    *memory.Service
	cur    *validation.Service
	hist   *history.Service // nil unless opened (serve), or with RECALL_HISTORY=off
}

// appMode says how much of Recall a command needs.
type appMode int

const (
	// modeFull is everything, for the server and the CLI.
	modeFull appMode = iota
	// modeHook is what a hook needs, with embedding bounded by the hook
	// timeout so that a hung Ollama cannot hold the user's session.
	modeHook
)

// maxQueryEmbedWait caps how long a search waits for its query's vector before
// answering from keywords: an agent waiting on recall should not sit through the
// whole Ollama timeout, which stores may use to load a cold model.
const maxQueryEmbedWait = 5 * time.Second

// loadConfig reads the configuration and builds the logger (stderr only: stdout
// belongs to the MCP protocol and the hooks' answers).
func loadConfig(stderr io.Writer) (*config.Config, *slog.Logger, error) {
	cfg, err := config.Load()
	if err != nil {
		return nil, slog.New(slog.NewTextHandler(stderr, nil)), err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.SlogLevel()}))
	return cfg, log, nil
}

// openApp opens the database and builds the services. Close releases them.
func openApp(ctx context.Context, stderr io.Writer, mode appMode) (*app, error) {
	cfg, log, err := loadConfig(stderr)
	if err != nil {
		return nil, err
	}
	return openAppWith(ctx, cfg, log, mode)
}

func openAppWith(ctx context.Context, cfg *config.Config, log *slog.Logger, mode appMode) (*app, error) {
	ollama, err := embedding.New(embedding.Options{
		Host:       cfg.OllamaHost,
		EmbedModel: cfg.OllamaModel,
		ChatModel:  cfg.OllamaChatModel,
		Timeout:    cfg.OllamaTimeout,
	})
	if err != nil {
		return nil, err
	}
	db, err := storage.Open(ctx, cfg.SQLitePath)
	if err != nil {
		return nil, err
	}
	var embedder memory.Embedder = ollama
	if mode == modeHook {
		embedder = hook.GuardEmbedder(ollama, cfg.HookTimeout)
	}
	mem := memory.NewService(db, embedder, memory.Options{
		DefaultNamespace:   cfg.DefaultNamespace,
		DefaultImportance:  cfg.DefaultImportance,
		DefaultConfidence:  cfg.DefaultConfidence,
		DefaultTokenBudget: cfg.DefaultTokenBudget,
		QueryEmbedTimeout:  min(cfg.OllamaTimeout, maxQueryEmbedWait),
		MatchMinSimilarity: cfg.MatchMinSimilarity,
		Logger:             log,
	})
	cur := validation.New(db, mem, embedder, ollama, validation.Options{
		ContradictionThreshold: cfg.ContradictionThreshold,
		StaleDays:              cfg.StaleDays,
		Workers:                cfg.CurationWorkers,
		Enabled:                cfg.Curation,
		DefaultTokenBudget:     cfg.DefaultTokenBudget,
		Logger:                 log,
	})
	mem.SetCurator(cur)
	return &app{cfg: cfg, log: log, db: db, ollama: ollama, mem: mem, cur: cur}, nil
}

// openHistory adds the conversation history to the app; searches start a
// background index at most once a minute.
func (a *app) openHistory(ctx context.Context) {
	if !a.cfg.History {
		return
	}
	hs, err := openHistory(ctx, a.cfg, a.log)
	if err != nil {
		a.log.Warn("conversation history unavailable", "err", err)
		return
	}
	hs.Refresh = refresher(a.cfg, a.log, time.Minute)
	a.hist = hs
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

// mcpServer builds the MCP server over the app's services.
func (a *app) mcpServer() *mcp.Server {
	return server.New(server.Deps{Memory: a.mem, Curation: a.cur, History: a.hist, Version: version(), Logger: a.log})
}
