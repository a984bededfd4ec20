// Package postgres keeps Recall's memories in PostgreSQL with pgvector, so
// that a team's servers, hooks and CLIs on many machines share one store. It
// implements the same ports as the SQLite store (package sqlite) and passes
// the same contract suite (storage/storetest): the same data gives the same
// results on either.
//
// Keywords: the store cuts text into words itself, with the rules of package
// keywords (code words, diacritics), and PostgreSQL stems them (Snowball
// English) into a tsvector with a GIN index. Vectors: a pgvector column with
// an HNSW index (cosine), searched by queries shaped for the index, with an
// iterative scan so that filters never return fewer than asked.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/recall-mcp/recall/spool"
	"github.com/recall-mcp/recall/storage"
)

// DB is a PostgreSQL store: a pool of connections shared by the goroutines
// of one process. Many processes and servers may open the same database.
type DB struct {
	// Shared holds the port methods whose steps both engines share, run
	// in this database's transactions (shared_tx.go).
	storage.Shared

	pool *pgxpool.Pool
	log  *slog.Logger
	url  string
	// hasIterative: the server's pgvector scans HNSW iteratively (0.8+).
	hasIterative bool
	// dimension is the vector column's dimension as last seen (0: not known
	// yet). A store whose vector has it writes in one statement; should
	// another process change the space meanwhile, the indexer finds the
	// vector of the old space and marks the memory pending (index.go).
	dimension atomic.Int64
	// announce tells other servers' viewers of changes (announce.go).
	announce announcer
	// index moves stored vectors into the vector index (index.go).
	index indexer
	// common refreshes the keyword search's list of common words
	// (common_words.go).
	common commonWords
	// lost is this machine's record of hook writes the database never
	// took (lost.go); nil without Options.SpoolDir.
	lost *spool.Spool
	// opened is when Open returned (see rankApart).
	opened time.Time
}

// Options tune Open.
type Options struct {
	Logger *slog.Logger
	// MaxConns bounds the pool (0: pgx's default, the larger of 4 and the
	// number of CPUs).
	MaxConns int32
	// SpoolDir is this machine's directory for the database's hook writes
	// that could not be made (spool.DirForServer): their record is kept
	// there, for stats and the next session's start. "": none kept.
	SpoolDir string
}

// IsURL reports whether s names a PostgreSQL database
// (postgres:// or postgresql://).
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Open connects to the database at url, migrates its schema (once, under an
// advisory lock, however many servers start at once) and returns the store.
// An older binary refuses a newer schema.
func Open(ctx context.Context, url string) (*DB, error) {
	return OpenWith(ctx, url, Options{})
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, dbURL string, opts Options) (*DB, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		return nil, fmt.Errorf("RECALL_DATABASE_URL does not parse (%v): want postgres://user:password@host:5432/database", redactErr(err))
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	// A dead server is found in seconds, not at the OS's TCP timeout, and a
	// restarted one is used again without restarting Recall.
	if cfg.ConnConfig.ConnectTimeout == 0 || cfg.ConnConfig.ConnectTimeout > 10*time.Second {
		cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	cfg.HealthCheckPeriod = 5 * time.Second
	cfg.AfterConnect = (&vectorTypes{}).register
	// Most starts find the schema current: then the pool's first connection
	// is the only one made (a hook, a CLI call starts at once). Otherwise the
	// schema is migrated on a connection of its own and the pool starts
	// afresh (its connections learn the vector type once it exists).
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, connectError(cfg.ConnConfig, err)
	}
	current, installed := schemaCurrent(ctx, pool)
	if !current {
		pool.Close()
		if err := migrateAt(ctx, cfg.ConnConfig); err != nil {
			return nil, err
		}
		if pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
			return nil, connectError(cfg.ConnConfig, err)
		}
		if installed, _, err = VectorVersions(ctx, pool); err != nil {
			pool.Close()
			return nil, err
		}
	}
	db := &DB{pool: pool, log: log, url: dbURL, hasIterative: !VersionLess(installed, "0.8.0"), opened: time.Now()}
	db.Shared = storage.Shared{Tx: writes{db}, Read: statements(db.pool)}
	if opts.SpoolDir != "" {
		db.lost = spool.New(opts.SpoolDir, log)
	}
	return db, nil
}

// Close indexes the vectors this process stored and nobody indexed yet,
// sends the announcement still on its way and releases the pool.
func (s *DB) Close() error {
	s.closeIndexer()
	s.announce.drains.Wait()
	s.common.running.Wait()
	s.pool.Close()
	return nil
}

// Pool is the connection pool, for tests and for the checks of doctor.
func (s *DB) Pool() *pgxpool.Pool { return s.pool }

// write runs fn in one transaction, committed when fn returns nil. PostgreSQL
// runs writers at once; rows a read-modify-write depends on are locked by the
// statements themselves (SELECT ... FOR UPDATE, INSERT ... ON CONFLICT).
//
// A connection lost before the transaction began (one the pool still held
// after the server restarted) is retried once on a fresh one: nothing was
// sent. A connection lost in the middle rolls the whole transaction back on
// the server; the caller gets the error and may try again.
func (s *DB) write(ctx context.Context, fn func(tx pgx.Tx) error) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil && lostConnection(err) && ctx.Err() == nil {
		tx, err = s.pool.Begin(ctx)
	}
	if err != nil {
		return s.unreachable(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit; a lost connection rolls back by itself
	if err := fn(tx); err != nil {
		return s.unreachable(err)
	}
	if err := tx.Commit(ctx); err != nil {
		if lostConnection(err) {
			// The commit may have reached the server before the line went.
			return fmt.Errorf("PostgreSQL connection lost while committing (%v): the change may or may not be stored; look before repeating it", err)
		}
		return err
	}
	return nil
}

// writeChanged is write for a change to memories, edges or the journal:
// committed, it is announced to the viewers of every server.
func (s *DB) writeChanged(ctx context.Context, fn func(tx pgx.Tx) error) error {
	if err := s.write(ctx, fn); err != nil {
		return err
	}
	s.changed(ctx)
	return nil
}

// unreachable turns an error of a lost or refused connection (the server
// restarting, down, or out of reach) into one sentence that says so; the
// pool connects again by itself once the server is back. Other errors pass
// unchanged.
func (s *DB) unreachable(err error) error {
	if err == nil || !lostConnection(err) {
		return err
	}
	cc := s.pool.Config().ConnConfig
	return fmt.Errorf("PostgreSQL at %s:%d is not answering (%v): the request was not done; it works again once the server is back, without restarting Recall", cc.Host, cc.Port, err)
}

// lostConnection reports an error of the connection rather than of the
// statement: refused or dropped, or the server shutting down.
func lostConnection(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03" || strings.HasPrefix(pe.Code, "08")
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		strings.Contains(err.Error(), "conn closed")
}

// querier is what both the pool and a transaction offer.
// firstUse, given as a query's first argument, runs it in one round trip
// (its parameters typed by their Go types), where a statement's first use
// on a connection is otherwise prepared in a round trip of its own. For the
// statements of a search, which a fresh process (a hook, a CLI call) runs
// once each on a new connection.
const firstUse = pgx.QueryExecModeExec

type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// isUniqueViolation reports a unique index refusing a row; constraint names
// which one when set.
func isUniqueViolation(err error, constraint string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505" && (constraint == "" || pe.ConstraintName == constraint)
}

// connectError says in one sentence why the server could not be used and
// what to do.
func connectError(cc *pgx.ConnConfig, err error) error {
	where := fmt.Sprintf("%s:%d/%s as %s", cc.Host, cc.Port, cc.Database, cc.User)
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "3D000":
			return fmt.Errorf("PostgreSQL at %s: database %q does not exist: create it (createdb %s) or fix RECALL_DATABASE_URL", where, cc.Database, cc.Database)
		case "28P01", "28000":
			return fmt.Errorf("PostgreSQL at %s refused the login (%s): check the user and password in RECALL_DATABASE_URL", where, pe.Message)
		case "42501":
			return fmt.Errorf("PostgreSQL at %s: user %s lacks a right Recall needs (%s): grant it CREATE and USAGE on the database's schema, or run Recall's first start as the database owner", where, cc.User, pe.Message)
		}
		return fmt.Errorf("PostgreSQL at %s: %s (%s)", where, pe.Message, pe.Code)
	}
	return fmt.Errorf("cannot reach PostgreSQL at %s (%v): check that the server runs and RECALL_DATABASE_URL names it", where, redactErr(err))
}

// redactErr keeps a password out of an error that quotes the URL.
func redactErr(err error) string {
	msg := err.Error()
	if u, perr := url.Parse(msg); perr == nil && u.User != nil {
		return u.Redacted()
	}
	return msg
}

// Redact returns a database URL without its password, for messages and logs.
func Redact(dbURL string) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		return "(a PostgreSQL URL that does not parse)"
	}
	return u.Redacted()
}
