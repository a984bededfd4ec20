// Package sqlite is the SQLite implementation of memory.Store: one database file
// shared by every Recall process on the machine (one server per editor window plus
// the hooks). Keywords are searched with FTS5, vectors with sqlite-vec's vec0.
package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"

	sqlite_vec "github.com/asg017/sqlite-vec-go-bindings/cgo"
	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/spool"
	"github.com/recall-mcp/recall/storage"
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
	// Shared holds the port methods whose steps both engines share, run
	// in this database's transactions (shared_tx.go).
	storage.Shared

	db *sql.DB
	// bestEffort is a second pool on the same file whose connections give up
	// on a held write lock after BestEffortBusyTimeout and commit without
	// waiting for the disk (synchronous=NORMAL, see recordsSync): it carries
	// the writes a reader makes in passing, which may be lost but must not
	// block, and the hooks' records. A short-lived process has none (see
	// beginBestEffort).
	bestEffort *sql.DB
	// syncMode is the synchronous setting of db's connections.
	syncMode string
	// walSync syncs the records' commits to disk soon after, off the hooks'
	// path; nil in a short-lived process (see Options.ShortLived).
	walSync *walSyncer
	path    string
	signs   *signIndex
	loader  signLoader // loads signs in the background; Close stops it
	log     *slog.Logger

	// spool holds the hooks' writes that met another process's write lock
	// (see spooled.go); every process drains it, only hooks add to it.
	spool         *spool.Spool
	spoolWhenBusy bool
	shortLived    bool        // see Options.ShortLived
	lockSeen      atomic.Bool // a hook's write met the lock: the next ones do not wait for it
	// keptToolCalls completes the tool calls a hook kept in the spool
	// without opening the database (see ResolveKeptToolCalls).
	keptToolCalls atomic.Pointer[KeptToolCallResolver]

	checkpointing atomic.Bool    // a checkpoint is running
	checkpoints   sync.WaitGroup // Close waits for it

	matchCounts atomic.Int64 // FTS5 expressions matchesUpTo counted, for tests
}

var _ memory.Store = (*DB)(nil)

var loadVec sync.Once

// driverName is go-sqlite3 with a connect hook for the settings the DSN cannot
// carry.
const driverName = "sqlite3_recall"

// MmapSize is how much of the file each connection maps into memory: none.
// Mapped, every page a process ever read stayed in its resident memory (a
// server searching 100k memories grew to 200-400 MB of file pages), and each
// write by any connection made every other connection of the process drop its
// mapping and fault its pages in again on the next read (SQLite unmaps when
// the file changed): at 100k memories a warm hybrid search cost 22 ms of CPU
// mapped, 14 ms not, and 36 against 26 ms in one namespace; a fresh process's
// first search costs the same either way. Mapping paid off for scans of every
// vector, which searches no longer make above exactScanBelow vectors.
const MmapSize = 0

// JournalSizeLimit is the size SQLite truncates the WAL to when a checkpoint
// has emptied it; without it the file keeps its largest size forever.
const JournalSizeLimit = 32 << 20

// CheckpointAt is the WAL size after a commit that starts a checkpoint of our
// own. SQLite's automatic checkpoints copy pages back but cannot restart the
// WAL while any reader still uses it, and with a server per editor window and
// hooks reading all the time some reader always does: the WAL grew to hundreds
// of megabytes. A TRUNCATE checkpoint waits (busy timeout) for those readers
// to move on, then empties the file.
const CheckpointAt = 8 << 20

func init() {
	sql.Register(driverName, &sqlite3.SQLiteDriver{
		ConnectHook: func(c *sqlite3.SQLiteConn) error {
			// Migrations recompute content hashes in SQL with the domain's rule.
			if err := c.RegisterFunc("recall_content_hash", memory.ContentHash, true); err != nil {
				return err
			}
			_, err := c.Exec(fmt.Sprintf("PRAGMA mmap_size = %d; PRAGMA journal_size_limit = %d", MmapSize, JournalSizeLimit), nil)
			return err
		},
	})
}

// keptConnections is how many idle connections a long-lived process keeps
// open (database/sql keeps two): a server answering a prompt hook searches
// the journal beside the memories, whose keyword search may itself run on
// two connections (SearchKeyword), while its background work reads too; and
// every connection opened anew reads the whole schema again, 1-2 ms.
const keptConnections = 4

// Options tune how a database is opened.
type Options struct {
	// SyncNormal trades durability for speed: with WAL, synchronous=NORMAL
	// survives a crash of the process but may lose the last commits on power
	// loss or an OS crash. The default, FULL, syncs every commit.
	SyncNormal bool
	// SpoolWhenBusy is for the hooks, which must answer within seconds and
	// lose nothing: their writes (journal entries, file activity, sessions,
	// summary requests) wait at most BestEffortBusyTimeout for another
	// process's write lock and then go to the spool, to be applied later.
	SpoolWhenBusy bool
	// Logger receives what the spool did; slog.Default() when nil.
	Logger *slog.Logger
	// ShortLived is for a process that runs a few queries and exits (a hook):
	// its pages are cold, and keyword ranking reads fewer of them (see rankFTS);
	// it does not sync the hooks' records after committing them (see
	// recordsSync): it exits first.
	ShortLived bool
}

// Open opens (creating if needed) the database at path with the default
// options and brings its schema up to date.
func Open(ctx context.Context, path string) (*DB, error) {
	return OpenWith(ctx, path, Options{})
}

// OpenWith opens (creating if needed) the database at path and brings its
// schema up to date; a Python Recall database is backed up and converted in
// place. Every pooled connection gets WAL, a busy timeout, foreign
// keys, immediate write transactions and the sync mode from the DSN. A new
// file is readable by its owner alone (0600, in a 0700 directory): memories
// hold what people decided and prefer.
func OpenWith(ctx context.Context, path string, opts Options) (*DB, error) {
	if path == "" {
		return nil, memory.Invalidf("database path", `""`, "a file path")
	}
	if err := prepareFile(path); err != nil {
		return nil, err
	}
	// Every connection the process opens from now on gets the vec0 module.
	loadVec.Do(sqlite_vec.Auto)

	db, err := sql.Open(driverName, dsn(path, opts, BusyTimeout))
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	var quick *sql.DB
	if !opts.ShortLived {
		quick, err = sql.Open(driverName, dsn(path, Options{SyncNormal: true}, BestEffortBusyTimeout))
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("open database %s: %w", path, err)
		}
		db.SetMaxIdleConns(keptConnections)
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	s := &DB{db: db, bestEffort: quick, syncMode: syncMode(opts), path: path, signs: newSignIndex(), log: log,
		spool: spool.New(spool.DirFor(path), log), spoolWhenBusy: opts.SpoolWhenBusy, shortLived: opts.ShortLived}
	s.Shared = storage.Shared{Tx: writes{s}, Read: statements(s.db)}
	if !opts.ShortLived {
		s.walSync = newWALSyncer(path, log)
	}
	if s.upToDate(ctx) {
		return s, nil
	}
	if err := s.migratePython(ctx); err != nil {
		s.closePools()
		return nil, explainOpenError(path, err)
	}
	if err := s.migrate(ctx); err != nil {
		s.closePools()
		return nil, explainOpenError(path, err)
	}
	return s, nil
}

func (s *DB) closePools() error {
	s.walSync.close()
	var err error
	if s.bestEffort != nil {
		err = s.bestEffort.Close()
	}
	return errors.Join(err, s.db.Close())
}

// dsn puts every connection setting in the connection string, so that each
// connection database/sql opens gets them, not only the first one.
func dsn(path string, opts Options, busyTimeout int) string {
	q := url.Values{}
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", syncMode(opts))
	q.Set("_busy_timeout", fmt.Sprint(busyTimeout))
	q.Set("_foreign_keys", "on")
	q.Set("_txlock", "immediate") // writers queue on BEGIN, never fail on lock upgrade
	return "file:" + path + "?" + q.Encode()
}

// syncMode is the synchronous setting opts ask for: FULL, an acknowledged
// write survives power loss; or NORMAL, it survives a crash of the process
// (WAL keeps the database consistent either way).
func syncMode(opts Options) string {
	if opts.SyncNormal {
		return "NORMAL"
	}
	return "FULL"
}

// Close stops a background load of the vector signs, waits for a running
// checkpoint and closes the database.
func (s *DB) Close() error {
	s.loader.stop()
	s.checkpoints.Wait()
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
	if err := commit(tx, fn); err != nil {
		return err
	}
	s.checkpointIfLarge()
	return nil
}

// commit runs fn in tx and commits what it did; on fn's error nothing is
// kept.
func commit(tx *sql.Tx, fn func(tx *sql.Tx) error) error {
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// checkpointIfLarge starts a TRUNCATE checkpoint in the background when the
// WAL has grown past CheckpointAt; one runs at a time per process. A
// short-lived process leaves it to CheckpointIfDue: a checkpoint in the
// background would die with the process.
func (s *DB) checkpointIfLarge() {
	if s.shortLived {
		return
	}
	if s.walSize() < CheckpointAt || !s.checkpointing.CompareAndSwap(false, true) {
		return
	}
	s.checkpoints.Go(func() {
		defer s.checkpointing.Store(false)
		_ = s.Checkpoint(context.Background())
	})
}

// ShortLivedCheckpointAt is the WAL size past which a short-lived process
// empties the WAL before it exits (CheckpointIfDue).
//
// Every process that opens the database while no other has it open reads
// the whole WAL first, to rebuild the index of its pages, about 2 µs a page:
// with hooks alone (no recall serve) that is every hook. It also forgets
// which pages were already copied back, so SQLite's own checkpoint, passive,
// past 1000 pages, could never restart the WAL: from there every hook's
// commit copied the whole WAL into the database again, and the WAL grew to
// CheckpointAt, where the background checkpoint of a hook's process died with
// the process more often than not. Emptied at 1 MB (about 250 pages, twenty
// hooks' records), a hook reads 125 pages on average, and one hook in twenty
// pays the checkpoint: two syncs and a few hundred page writes, a few
// milliseconds.
const ShortLivedCheckpointAt = 1 << 20

// CheckpointIfDue empties the WAL when it has grown past
// ShortLivedCheckpointAt, for a short-lived process about to exit (a hook,
// after its answer is written). It waits for no one: when another process
// holds the write lock or still reads pages of the WAL, it copies what it can
// and leaves the rest to the next one.
func (s *DB) CheckpointIfDue(ctx context.Context) error {
	if s.walSize() < ShortLivedCheckpointAt {
		return nil
	}
	return s.checkpoint(ctx, 0)
}

// walSize is the size of the database's WAL file in bytes, 0 when there is
// none (or it cannot be read: nothing to checkpoint then).
func (s *DB) walSize() int64 {
	fi, err := os.Stat(s.path + "-wal")
	if err != nil {
		return 0
	}
	return fi.Size()
}

// checkpointWait bounds how long a checkpoint waits for readers, in
// milliseconds. While it waits it holds the write lock, so it must give up
// well before a writer's busy timeout would fail a store.
const checkpointWait = 2000

// Checkpoint copies the WAL into the database file and truncates the WAL,
// waiting up to checkpointWait for readers of older snapshots to finish.
func (s *DB) Checkpoint(ctx context.Context) error {
	return s.checkpoint(ctx, checkpointWait)
}

// checkpoint is Checkpoint waiting up to wait milliseconds for other
// processes' locks.
func (s *DB) checkpoint(ctx context.Context, wait int) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA busy_timeout = %d", wait)); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	// The connection goes back to the pool: give it its usual timeout back.
	defer conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf("PRAGMA busy_timeout = %d", BusyTimeout))
	var busy, logFrames, done int
	if err := conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &done); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if busy != 0 {
		return errors.New("checkpoint: readers or writers kept the WAL busy; it is retried after a later commit")
	}
	return nil
}

// writeBestEffort is write on the best-effort pool: when another process
// holds the write lock for longer than BestEffortBusyTimeout it fails with
// SQLite's "database is locked" instead of waiting. In a hook's process
// (SpoolWhenBusy) it waits once: after a write met the lock the next ones fail
// at once, since a hook lives for one event and a lock held for 100 ms is a
// long writer's.
func (s *DB) writeBestEffort(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if s.spoolWhenBusy && s.lockSeen.Load() {
		return errLockSeen
	}
	tx, done, err := s.beginBestEffort(ctx)
	if s.spoolWhenBusy && isBusy(err) {
		s.lockSeen.Store(true)
	}
	if err != nil {
		return fmt.Errorf("begin best-effort write: %w", err)
	}
	defer done()
	return commit(tx, fn)
}

// beginBestEffort begins a write on a best-effort connection (see
// DB.bestEffort); done gives the connection back once the transaction is
// over. A long-lived process takes one from its pool of them. A short-lived
// one makes its few writes on a connection of its one pool, set so for the
// write and set back after: a second pool would open a second connection,
// and each connection reads the whole schema (0.7 ms of a 10 ms hook).
func (s *DB) beginBestEffort(ctx context.Context) (tx *sql.Tx, done func(), err error) {
	if s.bestEffort != nil {
		tx, err := s.bestEffort.BeginTx(ctx, nil)
		return tx, func() {}, err
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA busy_timeout = %d; PRAGMA synchronous = NORMAL", BestEffortBusyTimeout)); err != nil {
		conn.Close()
		return nil, nil, err
	}
	done = func() {
		_, err := conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf("PRAGMA busy_timeout = %d; PRAGMA synchronous = %s", BusyTimeout, s.syncMode))
		if err != nil {
			// Not back to the pool with the best-effort settings.
			conn.Raw(func(any) error { return driver.ErrBadConn })
		}
		conn.Close()
	}
	tx, err = conn.BeginTx(ctx, nil)
	if err != nil {
		done()
		return nil, nil, err
	}
	return tx, done, nil
}

// errLockSeen is the busy error of a hook's write not tried because an earlier
// one met the lock.
var errLockSeen = fmt.Errorf("best-effort write not tried: an earlier write of this hook found %w", sqlite3.Error{Code: sqlite3.ErrBusy})

// isBusy reports SQLite's "database is locked": another connection holds the
// write lock and the busy timeout ran out.
func isBusy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked)
}

// isUniqueViolation reports a UNIQUE constraint failure, a PRIMARY KEY's
// among them (SQLite tells those apart; PostgreSQL does not).
func isUniqueViolation(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.ExtendedCode == sqlite3.ErrConstraintUnique || se.ExtendedCode == sqlite3.ErrConstraintPrimaryKey)
}

// prepareFile creates the database's directory (0700) and file (0600) when
// they are missing, so that SQLite, which would create the file 0644, never
// does.
func prepareFile(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create database directory %s: %w; set RECALL_SQLITE_PATH to a writable place", dir, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
			return fmt.Errorf("database %s cannot be opened for writing (%w): the file or its directory is read-only; fix the permissions or set RECALL_SQLITE_PATH to a writable place", path, err)
		}
		return fmt.Errorf("open database %s: %w", path, err)
	}
	return f.Close()
}

// explainOpenError says why SQLite could not open a database whose file is
// writable: it keeps its WAL and shared-memory files beside the database and
// must create them, and a read-only directory fails with "unable to open
// database file", which names no cause.
func explainOpenError(path string, err error) error {
	dir := filepath.Dir(path)
	probe, perr := os.CreateTemp(dir, ".recall-write-check-*")
	if perr != nil {
		return fmt.Errorf("database directory %s is read-only (%v): SQLite must create %s-wal and %s-shm there; fix its permissions or set RECALL_SQLITE_PATH to a writable place", dir, perr, filepath.Base(path), filepath.Base(path))
	}
	probe.Close()
	os.Remove(probe.Name())
	return fmt.Errorf("open database %s: %w", path, err)
}
