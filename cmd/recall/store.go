package main

import (
	"context"
	"log/slog"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/capture/journal"
	"github.com/recall-mcp/recall/config"
	"github.com/recall-mcp/recall/jobs"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/project"
	"github.com/recall-mcp/recall/spool"
	"github.com/recall-mcp/recall/storage/postgres"
	"github.com/recall-mcp/recall/storage/sqlite"
	"github.com/recall-mcp/recall/team"
	"github.com/recall-mcp/recall/viewer"
)

// store is the database every command works on: the SQLite file, or the
// team's PostgreSQL database when RECALL_DATABASE_URL is set. Both pass the
// same contract (storage/storetest). It is the union of every service's
// ports, which is large for a reason: this package wires every service to the
// one store, and each service takes only its own small port.
type store interface {
	memory.Store
	capture.Store
	jobs.Queue
	project.Bindings
	viewer.Store
	team.Directory
	Export(ctx context.Context, v memory.RecordVisitor) error
	Import(ctx context.Context, r memory.Records) (*memory.ImportResult, error)
	RecordToolCall(ctx context.Context, e *journal.Entry, a *memory.FileActivity) error
	RenameProject(ctx context.Context, from, to string) (int, error)
	MergeProjects(ctx context.Context, from, into string) (*memory.MergeReport, error)
}

var (
	_ store = (*sqlite.DB)(nil)
	_ store = (*postgres.DB)(nil)
)

// openStore opens the store the configuration names. Hooks on SQLite spool
// their writes behind another writer; PostgreSQL takes them at once.
func openStore(ctx context.Context, cfg *config.Config, log *slog.Logger, mode appMode) (store, error) {
	if cfg.DatabaseURL != "" {
		return postgres.OpenWith(ctx, cfg.DatabaseURL, postgres.Options{Logger: log, SpoolDir: cfg.SpoolDir()})
	}
	return sqlite.OpenWith(ctx, cfg.SQLitePath, sqlite.Options{SyncNormal: !cfg.SyncFull, SpoolWhenBusy: mode == modeHook, ShortLived: mode == modeHook, Logger: log})
}

// sqlite is the SQLite store, or nil on PostgreSQL (which has no spool:
// nothing waits beside it).
func (a *app) sqlite() *sqlite.DB {
	db, _ := a.db.(*sqlite.DB)
	return db
}

// drainSpoolOnce applies the hooks' spooled writes, when the store has a spool.
func (a *app) drainSpoolOnce(ctx context.Context) (spool.Result, error) {
	if db := a.sqlite(); db != nil {
		return db.DrainSpool(ctx, spool.Budget{})
	}
	return spool.Result{}, nil
}

// storeName says where the store is, for people: the SQLite file, or the
// PostgreSQL URL without its password.
func (a *app) storeName() string {
	if a.cfg.DatabaseURL == "" {
		return a.cfg.SQLitePath
	}
	return postgres.Redact(a.cfg.DatabaseURL)
}
