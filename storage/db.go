// Package storage is the SQLite implementation of memory.Store: one database file
// shared by every Recall process on the machine (one server per editor window plus
// the hooks). Keywords are searched with FTS5, vectors with sqlite-vec's vec0.
package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"

	sqlite_vec "github.com/asg017/sqlite-vec-go-bindings/cgo"
	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/recall-mcp/recall/memory"
)

// BusyTimeout is how long a connection waits for another process's write lock
// before giving up, in milliseconds.
const BusyTimeout = 10000

// BestEffortBusyTimeout is how long a best-effort write (access counts and
// times) waits for another process's write lock, in milliseconds, before it is
// dropped: a read must never wait seconds behind a writer for its bookkeeping.
const BestEffortBusyTimeout = 100

// DB is a Recall database. It implements memory.Store and is safe for concurrent
// use by many goroutines and many processes.
type DB struct {
	db *sql.DB
	// bestEffort is a second pool on the same file whose connections give up
	// on a held write lock after BestEffortBusyTimeout; it carries the writes
	// a reader makes in passing, which may be lost but must not block.
	bestEffort *sql.DB
	path       string
	signs      *signIndex
	loader     signLoader // loads signs in the background; Close stops it
}

var _ memory.Store = (*DB)(nil)

var loadVec sync.Once

// driverName is go-sqlite3 with a connect hook for the settings the DSN cannot
// carry.
const driverName = "sqlite3_recall"

// MmapSize is how much of the file each connection maps into memory. Vector
// search reads every vector of the vec0 table; through mmap those reads are
// page-cache lookups instead of read system calls (several times faster).
const MmapSize = 1 << 30

func init() {
	sql.Register(driverName, &sqlite3.SQLiteDriver{
		ConnectHook: func(c *sqlite3.SQLiteConn) error {
			// Migrations recompute content hashes in SQL with the domain's rule.
			if err := c.RegisterFunc("recall_content_hash", memory.ContentHash, true); err != nil {
				return err
			}
			_, err := c.Exec(fmt.Sprintf("PRAGMA mmap_size = %d", MmapSize), nil)
			return err
		},
	})
}

// Open opens (creating if needed) the database at path and brings its schema up
// to date; a Python Recall database is backed up and converted in place. Every pooled connection gets WAL, a busy timeout, foreign keys and
// immediate write transactions from the DSN.
func Open(ctx context.Context, path string) (*DB, error) {
	if path == "" {
		return nil, memory.Invalidf("database path", `""`, "a file path")
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("create database directory: %w", err)
		}
	}
	// Every connection the process opens from now on gets the vec0 module.
	loadVec.Do(sqlite_vec.Auto)

	db, err := sql.Open(driverName, dsn(path, BusyTimeout))
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	quick, err := sql.Open(driverName, dsn(path, BestEffortBusyTimeout))
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	s := &DB{db: db, bestEffort: quick, path: path, signs: newSignIndex()}
	if err := s.migratePython(ctx); err != nil {
		s.closePools()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	if err := s.migrate(ctx); err != nil {
		s.closePools()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	return s, nil
}

func (s *DB) closePools() error {
	return errors.Join(s.bestEffort.Close(), s.db.Close())
}

// dsn puts every connection setting in the connection string, so that each
// connection database/sql opens gets them, not only the first one.
func dsn(path string, busyTimeout int) string {
	q := url.Values{}
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "NORMAL") // durable across process crashes; WAL keeps it consistent
	q.Set("_busy_timeout", fmt.Sprint(busyTimeout))
	q.Set("_foreign_keys", "on")
	q.Set("_txlock", "immediate") // writers queue on BEGIN, never fail on lock upgrade
	return "file:" + path + "?" + q.Encode()
}

// Close stops a background load of the vector signs and closes the database.
func (s *DB) Close() error {
	s.loader.stop()
	return s.closePools()
}

// Path is the database file's path.
func (s *DB) Path() string { return s.path }

// SQL exposes the connection pool for diagnostics (the CLI's doctor command and
// tests); everything else goes through the Store methods.
func (s *DB) SQL() *sql.DB { return s.db }

// write runs fn in one IMMEDIATE transaction and commits it.
func (s *DB) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin write: %w", err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// writeBestEffort is write on the best-effort pool: when another process
// holds the write lock for longer than BestEffortBusyTimeout it fails with
// SQLite's "database is locked" instead of waiting.
func (s *DB) writeBestEffort(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.bestEffort.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin best-effort write: %w", err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// isUniqueViolation reports a UNIQUE constraint failure.
func isUniqueViolation(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.ExtendedCode == sqlite3.ErrConstraintUnique
}
