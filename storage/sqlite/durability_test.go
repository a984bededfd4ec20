package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/capture/journal"
)

func pragma(t *testing.T, db *DB, name string) int64 {
	t.Helper()
	var v int64
	if err := db.SQL().QueryRow("PRAGMA " + name).Scan(&v); err != nil {
		t.Fatalf("PRAGMA %s: %v", name, err)
	}
	return v
}

func TestEveryConnectionIsDurableAndBoundsItsWAL(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	full, err := Open(ctx, filepath.Join(dir, "full.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	normal, err := OpenWith(ctx, filepath.Join(dir, "normal.db"), Options{SyncNormal: true})
	if err != nil {
		t.Fatal(err)
	}
	defer normal.Close()
	// Several connections at once, so that the pool opens more than one.
	conns := make([]interface{ Close() error }, 0, 3)
	for range 3 {
		c, err := full.SQL().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		var sync, limit int64
		if err := c.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&sync); err != nil {
			t.Fatal(err)
		}
		if err := c.QueryRowContext(ctx, "PRAGMA journal_size_limit").Scan(&limit); err != nil {
			t.Fatal(err)
		}
		if sync != 2 || limit != JournalSizeLimit {
			t.Errorf("connection: synchronous %d, journal_size_limit %d; want 2 (FULL) and %d", sync, limit, JournalSizeLimit)
		}
	}
	for _, c := range conns {
		c.Close()
	}
	if got := pragma(t, normal, "synchronous"); got != 1 {
		t.Errorf("SyncNormal: synchronous = %d, want 1 (NORMAL)", got)
	}
}

func TestACheckpointTruncatesTheWAL(t *testing.T) {
	db := openTest(t)
	for i := range 200 {
		mustInsert(t, db, newMemory(strings.Repeat("checkpointed ", 50)+string(rune('a'+i%26))+string(rune('a'+i/26)), "global", "pattern"), nil)
	}
	if walSize(db.Path()) == 0 {
		t.Fatal("the WAL is empty before the checkpoint: the test proves nothing")
	}
	if err := db.Checkpoint(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := walSize(db.Path()); n != 0 {
		t.Errorf("WAL after a checkpoint: %d bytes, want 0", n)
	}
}

func TestALargeWALIsCheckpointedAfterACommit(t *testing.T) {
	db := openTest(t)
	// A reader holding a snapshot keeps SQLite's own checkpoints from
	// restarting the WAL, as readers in other processes do.
	ctx := context.Background()
	reader, err := db.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	mustInsert(t, db, newMemory("there before the reader", "global", "pattern"), nil)
	var n int
	if _, err := reader.ExecContext(ctx, "BEGIN DEFERRED"); err != nil {
		t.Fatal(err)
	}
	if err := reader.QueryRowContext(ctx, "SELECT count(*) FROM memories").Scan(&n); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 1<<20)
	for i := 0; walSize(db.Path()) < CheckpointAt; i++ {
		if i > 100 {
			t.Fatal("the WAL never reached CheckpointAt")
		}
		mustInsert(t, db, newMemory(big+string(rune('a'+i)), "global", "pattern"), nil)
	}
	if size := walSize(db.Path()); size < CheckpointAt {
		t.Fatalf("WAL %.1f MB while a reader holds a snapshot: it should not have been truncated", mb(size))
	}
	if _, err := reader.ExecContext(ctx, "COMMIT"); err != nil { // the reader moves on
		t.Fatal(err)
	}
	mustInsert(t, db, newMemory("the commit that finds the WAL large", "global", "pattern"), nil)
	db.checkpoints.Wait()
	if size := walSize(db.Path()); size >= CheckpointAt {
		t.Errorf("WAL is %.1f MB after a commit found it over %d MB, want it truncated", mb(size), CheckpointAt>>20)
	}
}

func TestANewDatabaseIsPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "dir")
	path := filepath.Join(dir, "recall.db")
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	mustInsert(t, db, newMemory("private", "global", "pattern"), nil)
	for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600, path + "-wal": 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %o, want %o", filepath.Base(p), got, want)
		}
	}
	db.Close()
}

// The hooks' records are committed without waiting for the disk, memories
// with the configured mode; a long-lived process syncs the records' WAL right
// after, a hook process (ShortLived) leaves that to the next sync.
func TestHookRecordsCommitBeforeTheDiskSyncAndMemoriesAfter(t *testing.T) {
	ctx := context.Background()
	server := openTest(t)
	var records, memories int64
	if err := server.bestEffort.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&records); err != nil {
		t.Fatal(err)
	}
	if err := server.db.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&memories); err != nil {
		t.Fatal(err)
	}
	if records != 1 || memories != 2 {
		t.Fatalf("synchronous: records %d, memories %d; want 1 (NORMAL) and 2 (FULL)", records, memories)
	}

	before := server.walSync.synced.Load()
	if _, err := server.AddEntry(ctx, &journal.Entry{Kind: journal.KindPrompt, SessionID: "s1", Title: "how are orders cached?"}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); server.walSync.synced.Load() == before; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("recall serve's record was never synced to disk")
		}
	}

	hook, err := OpenWith(ctx, server.Path(), Options{SpoolWhenBusy: true, ShortLived: true})
	if err != nil {
		t.Fatal(err)
	}
	defer hook.Close()
	if hook.walSync != nil {
		t.Error("a hook's process syncs its records after answering: it should exit instead")
	}
	if _, err := hook.AddEntry(ctx, &journal.Entry{Kind: journal.KindPrompt, SessionID: "s1", Title: "and for how long?"}); err != nil {
		t.Fatal(err)
	}
	if n := count(t, server, `SELECT COUNT(*) FROM journal`); n != 2 {
		t.Fatalf("the server reads %d journal entries; want both records, committed", n)
	}
}

// A hook's process (ShortLived) makes its records on the one connection it
// reads with, set for the write as the best-effort pool's are (no wait for
// the disk, a short wait for the lock) and set back after: a second
// connection would read the whole schema again.
func TestAHookWritesItsRecordsOnItsOneConnection(t *testing.T) {
	ctx := context.Background()
	path := openTest(t).Path()
	hook, err := OpenWith(ctx, path, Options{SpoolWhenBusy: true, ShortLived: true})
	if err != nil {
		t.Fatal(err)
	}
	defer hook.Close()
	if _, err := hook.LastCapture(ctx, "s1"); err != nil { // a read first, as post-tool-use's
		t.Fatal(err)
	}
	var sync, busy int64
	if err := hook.writeBestEffort(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&sync); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&busy)
	}); err != nil {
		t.Fatal(err)
	}
	if sync != 1 || busy != BestEffortBusyTimeout {
		t.Errorf("the record's write: synchronous %d, busy_timeout %d; want 1 (NORMAL) and %d", sync, busy, BestEffortBusyTimeout)
	}
	if _, err := hook.AddEntry(ctx, &journal.Entry{Kind: journal.KindPrompt, SessionID: "s1", Title: "how are orders cached?"}); err != nil {
		t.Fatal(err)
	}
	if n := hook.db.Stats().OpenConnections; n != 1 {
		t.Errorf("the hook opened %d connections; want 1", n)
	}
	if err := hook.db.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&sync); err != nil {
		t.Fatal(err)
	}
	if err := hook.db.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&busy); err != nil {
		t.Fatal(err)
	}
	if sync != 2 || busy != BusyTimeout {
		t.Errorf("after the write: synchronous %d, busy_timeout %d; want the pool's 2 (FULL) and %d back", sync, busy, BusyTimeout)
	}
}

// A hook's process (ShortLived) empties the WAL before it exits once the WAL
// has grown past ShortLivedCheckpointAt, and leaves a smaller one alone: the
// next process then has no WAL to read before its first query.
func TestAHookEmptiesALargeWALBeforeItExits(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "recall.db")
	seed, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	seed.Close() // the schema, then no process has the database open
	walSize := func() int64 {
		fi, err := os.Stat(path + "-wal")
		if errors.Is(err, fs.ErrNotExist) {
			return 0
		}
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}

	hook, err := OpenWith(ctx, path, Options{SpoolWhenBusy: true, ShortLived: true})
	if err != nil {
		t.Fatal(err)
	}
	defer hook.Close()
	if _, err := hook.AddEntry(ctx, &journal.Entry{Kind: journal.KindPrompt, SessionID: "s1", Title: "how are orders cached?"}); err != nil {
		t.Fatal(err)
	}
	small := walSize()
	if small == 0 || small >= ShortLivedCheckpointAt {
		t.Fatalf("one record left a WAL of %d bytes; want some, under %d", small, ShortLivedCheckpointAt)
	}
	if err := hook.CheckpointIfDue(ctx); err != nil {
		t.Fatal(err)
	}
	if got := walSize(); got != small {
		t.Fatalf("a WAL of %d bytes became %d: it was not due for a checkpoint", small, got)
	}

	body := strings.Repeat("orders are cached for five minutes ", 1000)
	for walSize() < ShortLivedCheckpointAt {
		if _, err := hook.AddEntry(ctx, &journal.Entry{Kind: journal.KindPrompt, SessionID: "s1", Title: "a long prompt", Body: body}); err != nil {
			t.Fatal(err)
		}
	}
	if err := hook.CheckpointIfDue(ctx); err != nil {
		t.Fatal(err)
	}
	if got := walSize(); got != 0 {
		t.Fatalf("the WAL holds %d bytes after the hook's checkpoint; want it emptied", got)
	}
	if n := count(t, hook, `SELECT COUNT(*) FROM journal`); n < 2 {
		t.Fatalf("%d journal entries after the checkpoint; want every record kept", n)
	}
}
