package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sync"

	sqlite_vec "github.com/asg017/sqlite-vec-go-bindings/cgo"
	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/recall-mcp/recall/keywords"
)

// schemaVersion is the history index's own schema version (PRAGMA
// user_version of history.db), independent of the memory database's. It
// changes whenever what is stored for a message does: 2 indexes the keyword
// rules the memories use (package keywords); 3 keeps no <private> section nor
// secret (package privacy), not even in a file's fingerprint.
const schemaVersion = 3

// schema creates the current version. The index is derived from the
// transcripts: an index of another version is dropped and rebuilt from them,
// never migrated.
var schema = []string{
	`CREATE TABLE files (
		id INTEGER PRIMARY KEY,
		path TEXT NOT NULL UNIQUE,
		project_dir TEXT NOT NULL,   -- escaped directory name
		project TEXT NOT NULL DEFAULT '', -- the cwd the records name
		session_id TEXT NOT NULL DEFAULT '',
		agent_id TEXT NOT NULL DEFAULT '',
		size INTEGER NOT NULL DEFAULT 0,
		mtime INTEGER NOT NULL DEFAULT 0, -- unix nanoseconds
		offset INTEGER NOT NULL DEFAULT 0, -- bytes read: up to the last complete line
		head BLOB,                   -- SHA-256 of the first head_len bytes, to notice a rewritten file
		head_len INTEGER NOT NULL DEFAULT 0,
		messages INTEGER NOT NULL DEFAULT 0,
		malformed INTEGER NOT NULL DEFAULT 0
	)`,
	`CREATE TABLE messages (
		id INTEGER PRIMARY KEY,
		file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
		seq INTEGER NOT NULL,        -- position in its file
		uuid TEXT NOT NULL,
		session_id TEXT NOT NULL,
		role TEXT NOT NULL,
		ts INTEGER NOT NULL,         -- unix milliseconds, 0 when unknown
		text TEXT NOT NULL,
		embedded INTEGER NOT NULL DEFAULT 0 -- 1 once its vectors are stored
	)`,
	`CREATE INDEX messages_by_file ON messages(file_id, seq)`,
	`CREATE INDEX messages_by_session ON messages(session_id, uuid)`,
	`CREATE INDEX messages_by_time ON messages(ts)`,
	`CREATE INDEX messages_pending ON messages(embedded) WHERE embedded = 0`,
	`CREATE VIRTUAL TABLE messages_fts USING fts5(words, content='', contentless_delete=1, tokenize='` + keywords.Tokenizer + `')`,
	`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
}

var loadVec sync.Once

// driverName is go-sqlite3 with memory-mapped reads: a vector search reads
// every vector of the vec0 table, and through mmap those reads are page
// cache lookups instead of read system calls.
const driverName = "sqlite3_recall_history"

const mmapSize = 1 << 30

func init() {
	sql.Register(driverName, &sqlite3.SQLiteDriver{
		ConnectHook: func(c *sqlite3.SQLiteConn) error {
			_, err := c.Exec(fmt.Sprintf("PRAGMA mmap_size = %d", mmapSize), nil)
			return err
		},
	})
}

// Index is the history index: one SQLite file (history.db), shared by every
// Recall process; one of them updates it at a time (see Lock).
type Index struct {
	db   *sql.DB
	path string
}

// Open opens (creating if needed) the index at path, for searching (with
// memory-mapped reads) and updating.
func Open(ctx context.Context, path string) (*Index, error) {
	return open(ctx, path, driverName)
}

// OpenForIndexing opens the index without memory-mapped reads: pages of the
// index a long update touches would count as the indexer's resident memory
// (a gigabyte for a large history); without mmap it stays SQLite's page cache.
func OpenForIndexing(ctx context.Context, path string) (*Index, error) {
	return open(ctx, path, "sqlite3")
}

func open(ctx context.Context, path, driver string) (*Index, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create history index directory: %w", err)
	}
	if err := ownerOnly(path); err != nil {
		return nil, err
	}
	loadVec.Do(sqlite_vec.Auto)
	q := url.Values{}
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "NORMAL")
	q.Set("_busy_timeout", "10000")
	q.Set("_foreign_keys", "on")
	q.Set("_txlock", "immediate")
	db, err := sql.Open(driver, "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open history index %s: %w", path, err)
	}
	ix := &Index{db: db, path: path}
	if err := ix.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open history index %s: %w", path, err)
	}
	return ix, nil
}

// ownerOnly creates the index file readable by its owner alone (0600), as the
// memory database is: SQLite would create it 0644, and it holds the text of
// every conversation. SQLite gives its WAL and shared-memory files the same
// mode. An index made readable to others by an earlier version is tightened.
func ownerOnly(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open history index %s: %w; it lives beside the memory database (RECALL_SQLITE_PATH)", path, err)
	}
	fi, err := f.Stat()
	f.Close()
	if err != nil {
		return fmt.Errorf("open history index %s: %w", path, err)
	}
	if fi.Mode().Perm()&0o077 == 0 {
		return nil
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("make history index %s readable by its owner alone: %w", p, err)
		}
	}
	return nil
}

// Close closes the index.
func (ix *Index) Close() error { return ix.db.Close() }

// Path is the index file's path.
func (ix *Index) Path() string { return ix.path }

func (ix *Index) migrate(ctx context.Context) error {
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return err
	}
	if v == schemaVersion {
		return nil
	}
	if v > schemaVersion {
		return fmt.Errorf("the history index has schema version %d, newer than this recall's %d: upgrade recall, or delete the file to rebuild it", v, schemaVersion)
	}
	if v != 0 {
		// Another version's index: it is only a cache of the transcripts.
		// What it kept (text before privacy.Clean, say) is overwritten as its
		// pages are freed, not left in the file's free pages.
		if _, err := tx.ExecContext(ctx, `PRAGMA secure_delete = ON`); err != nil {
			return err
		}
		for _, t := range []string{"messages_fts", "vectors", "messages", "files", "meta"} {
			if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS `+t); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `PRAGMA secure_delete = OFF`); err != nil {
			return err
		}
	}
	for _, stmt := range schema {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("create history schema: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion)); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if v != 0 {
		// Best effort: the old pages in the file are overwritten now rather
		// than at the next automatic checkpoint.
		ix.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	}
	return nil
}

func (ix *Index) setMeta(ctx context.Context, key, value string) error {
	_, err := ix.db.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value)
	return err
}

func (ix *Index) meta(ctx context.Context, key string) (string, error) {
	var v string
	err := ix.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	if err == sql.ErrNoRows {
		return "", nil
	}
	return v, err
}
