package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/spool"
)

// openHookDB opens path as a hook does: its writes spool behind a lock.
func openHookDB(t *testing.T, path string) *DB {
	t.Helper()
	db, err := OpenWith(context.Background(), path, Options{SpoolWhenBusy: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// lockWrites takes the write lock of db's file from another connection and
// returns the function that lets it go.
func lockWrites(t *testing.T, db *DB) (release func()) {
	t.Helper()
	ctx := context.Background()
	conn, err := db.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	done := false
	release = func() {
		if !done {
			done = true
			conn.ExecContext(ctx, `ROLLBACK`)
			conn.Close()
		}
	}
	t.Cleanup(release)
	return release
}

func count(t *testing.T, db *DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.SQL().QueryRowContext(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// hookWrites makes one of each write a hook makes, each well within the busy
// timeout a write waiting for the lock would sit out (half of it: a loaded
// machine's own delays stay far below).
func hookWrites(t *testing.T, db *DB, at time.Time) {
	t.Helper()
	ctx := context.Background()
	for what, write := range map[string]func() error{
		"journal entry": func() error {
			_, err := db.AddEntry(ctx, &capture.Entry{Kind: capture.KindPrompt, Namespace: "project:shop", SessionID: "s1",
				Title: "how are orders cached?", Body: "how are orders cached?", CreatedAt: at})
			return err
		},
		"file activity": func() error {
			_, err := db.AddFileActivity(ctx, &memory.FileActivity{FilePath: "/src/shop/orders.go", Action: memory.ActionEdit,
				SessionID: "s1", ProjectRoot: "/src/shop", FileType: "go", CreatedAt: at})
			return err
		},
		"session start": func() error {
			return db.UpsertSession(ctx, &memory.Session{ID: "s1", Namespace: "project:shop", Cwd: "/src/shop", StartedAt: at})
		},
		"summary request": func() error { return db.QueueSummary(ctx, "s1", "Stop", "turn-1") },
	} {
		start := time.Now()
		if err := write(); err != nil {
			t.Fatalf("%s behind a writer: %v", what, err)
		}
		if d := time.Since(start); d > BusyTimeout*time.Millisecond/2 {
			t.Fatalf("%s took %s behind a writer: it waited for the lock", what, d)
		}
	}
}

// spoolCopies keeps a copy of every spooled file, to put back with putBack:
// a drainer that stops between a commit and removing a file leaves it to be
// read again.
func spoolCopies(t *testing.T, db *DB) map[string][]byte {
	t.Helper()
	copies := map[string][]byte{}
	files, _ := filepath.Glob(filepath.Join(db.SpoolDir(), "*.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		copies[f] = b
	}
	return copies
}

func putBack(t *testing.T, copies map[string][]byte) {
	t.Helper()
	for f, b := range copies {
		if err := os.WriteFile(f, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// rows counts what the hook writes left in the database.
func rows(t *testing.T, db *DB) map[string]int {
	return map[string]int{
		"journal":       count(t, db, `SELECT count(*) FROM journal WHERE session_id = 's1'`),
		"file_activity": count(t, db, `SELECT count(*) FROM file_activity WHERE file_path = '/src/shop/orders.go'`),
		"sessions":      count(t, db, `SELECT count(*) FROM sessions WHERE id = 's1'`),
		"summary_jobs":  count(t, db, `SELECT count(*) FROM jobs WHERE kind = 'summary' AND subject = 's1'`),
	}
}

func TestHookWritesBehindALockAreSpooledAndAppliedOnce(t *testing.T) {
	ctx := context.Background()
	server := openTest(t)
	hook := openHookDB(t, server.Path())
	release := lockWrites(t, server)

	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	hookWrites(t, hook, at)
	if pending, failed, err := server.SpoolCounts(); err != nil || pending != 4 || failed != 0 {
		t.Fatalf("spool holds %d (%d failed), %v; want the 4 writes", pending, failed, err)
	}
	release()
	for table, n := range rows(t, server) {
		if n != 0 {
			t.Fatalf("%s has %d rows before the spool was drained", table, n)
		}
	}

	// A drainer that stops between a commit and removing the file leaves it
	// to be applied again: keep a copy of every file and put it back after.
	copies := spoolCopies(t, server)
	res, err := server.DrainSpool(ctx, spool.Budget{})
	if err != nil || res != (spool.Result{Applied: 4}) {
		t.Fatalf("DrainSpool = %+v, %v; want 4 applied", res, err)
	}
	putBack(t, copies)
	if res, err := server.DrainSpool(ctx, spool.Budget{}); err != nil || res != (spool.Result{Applied: 4}) {
		t.Fatalf("second DrainSpool = %+v, %v", res, err)
	}
	for table, n := range rows(t, server) {
		if n != 1 {
			t.Errorf("%s has %d rows after draining twice, want 1", table, n)
		}
	}

	// What was spooled is what the hook wrote, times included.
	es, err := server.SessionEntries(ctx, "s1", 0, 10)
	if err != nil || len(es) != 1 || es[0].Title != "how are orders cached?" || !es[0].CreatedAt.Equal(at) {
		t.Fatalf("journal after drain: %+v, %v", es, err)
	}
	sess, err := server.GetSession(ctx, "s1")
	if err != nil || !sess.StartedAt.Equal(at) || sess.Cwd != "/src/shop" {
		t.Fatalf("session after drain: %+v, %v", sess, err)
	}
	files2, err := server.RecentFiles(ctx, "/src/shop", time.Time{}, 10)
	if err != nil || len(files2) != 1 || files2[0].LastAction != memory.ActionEdit || !files2[0].LastAccessed.Equal(at) {
		t.Fatalf("file activity after drain: %+v, %v", files2, err)
	}
}

// A hook whose time ran out before its write (a slow machine, a large
// transcript) keeps the write in the spool instead of losing it with its
// answer; the next drain applies it.
func TestAHookWriteOutOfTimeIsSpooledNotLost(t *testing.T) {
	server := openTest(t)
	hook := openHookDB(t, server.Path())
	late, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := hook.AddEntry(late, &capture.Entry{Kind: capture.KindPrompt, SessionID: "s1", Title: "written too late"}); err != nil {
		t.Fatalf("a write out of time should be spooled, not fail: %v", err)
	}
	if pending, _, err := server.SpoolCounts(); err != nil || pending != 1 {
		t.Fatalf("spool holds %d, %v; want the late write", pending, err)
	}
	ctx := context.Background()
	if res, err := server.DrainSpool(ctx, spool.Budget{}); err != nil || res != (spool.Result{Applied: 1}) {
		t.Fatalf("DrainSpool = %+v, %v", res, err)
	}
	es, err := server.SessionEntries(ctx, "s1", 0, 10)
	if err != nil || len(es) != 1 || es[0].Title != "written too late" {
		t.Fatalf("journal after drain: %+v, %v", es, err)
	}
}

func TestAHookWriteDoesNotOvertakeTheSpool(t *testing.T) {
	ctx := context.Background()
	server := openTest(t)
	release := lockWrites(t, server)
	first := openHookDB(t, server.Path())
	if _, err := first.AddEntry(ctx, &capture.Entry{Kind: capture.KindPrompt, SessionID: "s1", Title: "first"}); err != nil {
		t.Fatal(err)
	}
	release()

	// The next hook (a new process) finds the lock free: it applies the
	// spooled entry before its own.
	next := openHookDB(t, server.Path())
	id, err := next.AddEntry(ctx, &capture.Entry{Kind: capture.KindPrompt, SessionID: "s1", Title: "second"})
	if err != nil || id == 0 {
		t.Fatalf("AddEntry with the lock free = %d, %v; want a row", id, err)
	}
	es, err := server.SessionEntries(ctx, "s1", 0, 10)
	if err != nil || len(es) != 2 || es[0].Title != "first" || es[1].Title != "second" {
		t.Fatalf("journal = %+v, %v; want first then second", es, err)
	}
	if pending, _, _ := server.SpoolCounts(); pending != 0 {
		t.Fatalf("%d writes left in the spool", pending)
	}
}

func TestAHookWriteBehindALockWaitsOnlyOnce(t *testing.T) {
	ctx := context.Background()
	server := openTest(t)
	release := lockWrites(t, server)
	hook := openHookDB(t, server.Path())
	add := func(i int) {
		t.Helper()
		if _, err := hook.AddEntry(ctx, &capture.Entry{Kind: capture.KindPrompt, SessionID: "s1", Title: "prompt"}); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	start := time.Now()
	add(0)
	if d := time.Since(start); d < BestEffortBusyTimeout*time.Millisecond {
		t.Fatalf("the first write behind the lock took %s: it did not wait for it", d)
	}
	// The lock is let go. A write or a piece of bookkeeping that tried the
	// database again (waiting for the lock in the hook's every later write)
	// would now get through; none does: the hook waited once and spools the
	// rest. (Timing the later writes instead says the same on an idle machine
	// only.)
	release()
	for i := 1; i < 5; i++ {
		add(i)
	}
	if pending, _, _ := server.SpoolCounts(); pending != 5 {
		t.Fatalf("spool holds %d writes, want 5: a later write tried the database", pending)
	}
	if _, err := hook.BindProject(ctx, "/src/shop", []string{"project:shop"}); !isBusy(err) {
		t.Fatalf("BindProject after a write met the lock: %v, want busy without trying", err)
	}
	if err := hook.TouchMemories(ctx, []string{"mem_1"}, time.Now()); !isBusy(err) {
		t.Fatalf("TouchMemories after a write met the lock: %v, want busy without trying", err)
	}
	if n := count(t, server, `SELECT COUNT(*) FROM journal`); n != 0 {
		t.Fatalf("%d journal entries reached the database; all five should wait in the spool", n)
	}
}

func TestASpooledWriteThatCannotApplyIsMovedAside(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	sp := spool.New(db.SpoolDir(), nil)
	if _, err := sp.Add(spoolJournal, capture.Entry{Kind: capture.KindPrompt, SessionID: "s1"}); err != nil { // no title
		t.Fatal(err)
	}
	if _, err := sp.Add("a_kind_from_the_future", map[string]string{"x": "y"}); err != nil {
		t.Fatal(err)
	}
	if _, err := sp.Add(spoolJournal, capture.Entry{Kind: capture.KindPrompt, SessionID: "s1", Title: "kept"}); err != nil {
		t.Fatal(err)
	}
	res, err := db.DrainSpool(ctx, spool.Budget{})
	if err != nil || res != (spool.Result{Applied: 1, Failed: 2}) {
		t.Fatalf("DrainSpool = %+v, %v; want 1 applied, 2 moved aside", res, err)
	}
	pending, failed, err := db.SpoolCounts()
	if err != nil || pending != 0 || failed != 2 {
		t.Fatalf("SpoolCounts = %d pending, %d failed, %v", pending, failed, err)
	}
	reasons, _ := filepath.Glob(filepath.Join(db.SpoolDir(), "failed", "*.reason"))
	var all string
	for _, r := range reasons {
		b, _ := os.ReadFile(r)
		all += string(b)
	}
	if !strings.Contains(all, "title") || !strings.Contains(all, "a_kind_from_the_future") {
		t.Fatalf("reasons moved aside say %q", all)
	}
	if st, err := db.Stats(ctx); err != nil || st.SpooledWrites != 0 || st.FailedSpooledWrites != 2 {
		t.Fatalf("Stats: %+v, %v", st, err)
	}
}

func TestRecordToolCallWritesEntryAndTouchTogether(t *testing.T) {
	ctx := context.Background()
	server := openTest(t)
	hook := openHookDB(t, server.Path())
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	call := func() (*capture.Entry, *memory.FileActivity) {
		return &capture.Entry{Kind: capture.KindObservation, Namespace: "project:shop", SessionID: "s1", ToolName: "Edit",
				Title: "Edit: orders.go", Body: "tool: Edit", CreatedAt: at},
			&memory.FileActivity{FilePath: "/src/shop/orders.go", Action: memory.ActionEdit,
				SessionID: "s1", ProjectRoot: "/src/shop", FileType: "go", CreatedAt: at}
	}

	e, a := call()
	if err := hook.RecordToolCall(ctx, e, a); err != nil {
		t.Fatal(err)
	}
	if e.ID == 0 || a.ID == 0 {
		t.Errorf("ids not set: entry %d, touch %d", e.ID, a.ID)
	}
	if got := rows(t, server); got["journal"] != 1 || got["file_activity"] != 1 {
		t.Fatalf("after one tool call: %v", got)
	}

	// A bad touch fails the whole write: no entry without its touch.
	e, a = call()
	a.Action = "chmod"
	if err := hook.RecordToolCall(ctx, e, a); err == nil {
		t.Fatal("a touch with an unknown action was accepted")
	}
	if got := rows(t, server); got["journal"] != 1 {
		t.Fatalf("a refused tool call left an entry: %v", got)
	}

	// Behind a writer both go to the spool as one write, applied together.
	release := lockWrites(t, server)
	e, a = call()
	if err := hook.RecordToolCall(ctx, e, a); err != nil {
		t.Fatal(err)
	}
	if pending, _, err := server.SpoolCounts(); err != nil || pending != 1 {
		t.Fatalf("spool holds %d, %v; want the tool call as one write", pending, err)
	}
	release()
	if res, err := server.DrainSpool(ctx, spool.Budget{}); err != nil || res != (spool.Result{Applied: 1}) {
		t.Fatalf("DrainSpool = %+v, %v", res, err)
	}
	if got := rows(t, server); got["journal"] != 2 || got["file_activity"] != 2 {
		t.Fatalf("after the spooled tool call: %v", got)
	}
	es, err := server.SessionEntries(ctx, "s1", 0, 10)
	if err != nil || len(es) != 2 || !es[1].CreatedAt.Equal(at) || es[1].ToolName != "Edit" {
		t.Fatalf("journal after drain: %+v, %v", es, err)
	}
}

// A hook that does again the work a server began and never answered for
// writes under the same id: the tool call is recorded once, directly or
// through the spool.
func TestHookWritesUnderOneWriteIDApplyOnce(t *testing.T) {
	ctx := spool.WithWriteID(context.Background(), "hook-0123")
	server := openTest(t)
	hook := openHookDB(t, server.Path())
	call := func() (*capture.Entry, *memory.FileActivity) {
		return &capture.Entry{Kind: capture.KindObservation, Namespace: "project:shop", SessionID: "s1", ToolName: "Edit", Title: "Edit: orders.go"},
			&memory.FileActivity{FilePath: "/src/shop/orders.go", Action: memory.ActionEdit, SessionID: "s1"}
	}
	e, a := call()
	if err := server.RecordToolCall(ctx, e, a); err != nil { // the server, before it stopped answering
		t.Fatal(err)
	}
	e, a = call()
	if err := hook.RecordToolCall(ctx, e, a); err != nil { // the hook, doing it again
		t.Fatal(err)
	}
	release := lockWrites(t, server)
	e, a = call()
	if err := hook.RecordToolCall(ctx, e, a); err != nil { // and once more behind a writer
		t.Fatal(err)
	}
	release()
	if _, err := server.DrainSpool(context.Background(), spool.Budget{}); err != nil {
		t.Fatal(err)
	}
	if got := rows(t, server); got["journal"] != 1 || got["file_activity"] != 1 {
		t.Fatalf("one tool call under one write id gave %v, want one of each", got)
	}
	e, a = call()
	if err := hook.RecordToolCall(spool.WithWriteID(context.Background(), "hook-4567"), e, a); err != nil {
		t.Fatal(err)
	}
	if _, err := server.DrainSpool(context.Background(), spool.Budget{}); err != nil { // the hook met the lock once: it spools
		t.Fatal(err)
	}
	if got := rows(t, server); got["journal"] != 2 {
		t.Fatalf("another write id is another tool call: %v", got)
	}
}

// A spooled file that could not be removed (a directory made read-only, say)
// is read again by every later drain: the record that it was applied outlives
// later writes and their applications, for 30 days from its spooling.
func TestASpooledWriteIsAppliedOnceHoweverLateItIsReadAgain(t *testing.T) {
	ctx := context.Background()
	server := openTest(t)
	hook := openHookDB(t, server.Path())
	release := lockWrites(t, server)
	hookWrites(t, hook, time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC))
	release()
	copies := spoolCopies(t, server)
	if res, err := server.DrainSpool(ctx, spool.Budget{}); err != nil || res.Applied != 4 {
		t.Fatalf("DrainSpool = %+v, %v", res, err)
	}
	// A month passes; another write is spooled and applied meanwhile.
	if _, err := server.SQL().Exec(`UPDATE spool_applied SET applied_at = '2000-01-01T00:00:00.000000000Z'`); err != nil {
		t.Fatal(err)
	}
	release = lockWrites(t, server)
	if _, err := hook.AddEntry(ctx, &capture.Entry{Kind: capture.KindPrompt, Namespace: "global", SessionID: "s2", Title: "later"}); err != nil {
		t.Fatal(err)
	}
	release()
	if res, err := server.DrainSpool(ctx, spool.Budget{}); err != nil || res.Applied != 1 {
		t.Fatalf("DrainSpool of the later write = %+v, %v", res, err)
	}
	// The files that could not be removed are read again.
	putBack(t, copies)
	if _, err := server.DrainSpool(ctx, spool.Budget{}); err != nil {
		t.Fatal(err)
	}
	for table, n := range rows(t, server) {
		if n != 1 {
			t.Errorf("%s has %d rows after the files were read again, want 1", table, n)
		}
	}
}

// When the spool cannot take a write (here its directory is a file; a full
// disk or a read-only directory do the same), the hook waits for the database
// instead of dropping the write, and says what went wrong when it cannot.
func TestAWriteTheSpoolCannotTakeWaitsForTheDatabase(t *testing.T) {
	ctx := context.Background()
	server := openTest(t)
	if err := os.WriteFile(server.SpoolDir(), []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	hook := openHookDB(t, server.Path())
	release := lockWrites(t, server)
	go func() { time.Sleep(300 * time.Millisecond); release() }()
	if _, err := hook.AddEntry(ctx, &capture.Entry{Kind: capture.KindPrompt, Namespace: "global", SessionID: "s1", Title: "kept"}); err != nil {
		t.Fatalf("write behind a lock with no spool: %v", err)
	}
	if es, _ := server.SessionEntries(ctx, "s1", 0, 10); len(es) != 1 {
		t.Fatalf("entries %+v, want the write kept", es)
	}

}

// A write neither the spool nor the database takes is lost, and said so where
// a person looks: stats, and the losses the next session start tells.
func TestAWriteKeptNowhereIsRecordedAsLost(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	server := openTest(t)
	if err := os.WriteFile(server.SpoolDir(), []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	hook := openHookDB(t, server.Path())
	release := lockWrites(t, server)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	_, err := hook.AddEntry(ctx, &capture.Entry{Kind: capture.KindPrompt, Namespace: "global", SessionID: "s1", Title: "lost"})
	cancel()
	release()
	if err == nil || !strings.Contains(err.Error(), "not kept") {
		t.Fatalf("a write kept nowhere: err = %v", err)
	}
	st, err := server.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.LostWrites != 1 || !strings.Contains(st.LastLostWrite, "journal_entry") || !strings.Contains(st.LastLostWrite, "not a directory") {
		t.Fatalf("stats: %d lost, last %q", st.LostWrites, st.LastLostWrite)
	}
	l, err := server.UnreportedLosses()
	if err != nil || len(l.Lost) != 1 {
		t.Fatalf("unreported losses %+v, %v", l, err)
	}
	server.MarkLossesReported(time.Now())
	if l, _ := server.UnreportedLosses(); len(l.Lost) != 0 {
		t.Fatalf("told twice: %+v", l)
	}
}

// A full disk or a read-only place is named as such, never as a busy database.
func TestFileTroubleNamesTheCause(t *testing.T) {
	for err, want := range map[error]string{
		&os.PathError{Op: "write", Path: "/x", Err: syscall.ENOSPC}: "the disk is full",
		sqlite3.Error{Code: sqlite3.ErrFull}:                        "the disk is full",
		&os.PathError{Op: "open", Path: "/x", Err: syscall.EROFS}:   "read-only",
		sqlite3.Error{Code: sqlite3.ErrBusy}:                        "another process holds the write lock",
	} {
		if got := fileTrouble(err); !strings.HasPrefix(got, want) && !strings.Contains(got, want) {
			t.Errorf("fileTrouble(%v) = %q, want it to say %q", err, got, want)
		}
	}
}

// recall serve writes a hook's records after answering it: behind a writer
// that outlasts the event's time its write goes to the spool, under the
// event's write id, and the server's drain applies it once the lock is free.
func TestServerHookWriteBehindALongWriterIsSpooled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "recall.db")
	db, err := OpenWith(context.Background(), path, Options{}) // a server's: no SpoolWhenBusy
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	release := lockWrites(t, db)
	ctx, cancel := context.WithTimeout(spool.WithWriteID(context.Background(), "hook-1"), 300*time.Millisecond)
	defer cancel()
	if _, err := db.AddEntry(ctx, &capture.Entry{Kind: capture.KindPrompt, Namespace: "project:shop", SessionID: "s1",
		Title: "how are orders cached?", Body: "how are orders cached?", CreatedAt: time.Now()}); err != nil {
		t.Fatalf("a write behind a writer past its time was lost: %v", err)
	}
	if n, _, _ := db.SpoolCounts(); n != 1 {
		t.Fatalf("%d writes spooled; want the one", n)
	}
	release()
	if _, err := db.DrainSpool(context.Background(), spool.Budget{}); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT count(*) FROM journal WHERE session_id = 's1'`); n != 1 {
		t.Fatalf("%d entries after the drain; want 1", n)
	}
}

// A hook working alone keeps every tool call in the spool, so the ids of
// applied files cannot be kept for good: those spooled more than 30 days ago
// go when a later write is applied; younger ones and the other families'
// (a team client's write ids, a hook event's) stay.
func TestSpooledWriteIDsAreKeptThirtyDays(t *testing.T) {
	ctx := context.Background()
	server := openTest(t)
	hook := openHookDB(t, server.Path())
	now := time.Now()
	old := spool.IDBefore(now.Add(-31*24*time.Hour)) + "-1-aaaaaaaa"
	young := spool.IDBefore(now.Add(-29*24*time.Hour)) + "-1-bbbbbbbb"
	others := []string{"client:ann:42", "hook-0123"}
	for _, id := range append([]string{old, young}, others...) {
		if _, err := server.SQL().Exec(`INSERT INTO spool_applied (id, applied_at) VALUES (?, ?)`, id, formatTime(now)); err != nil {
			t.Fatal(err)
		}
	}
	release := lockWrites(t, server)
	if _, err := hook.AddEntry(ctx, &capture.Entry{Kind: capture.KindPrompt, Namespace: "global", SessionID: "s1", Title: "later"}); err != nil {
		t.Fatal(err)
	}
	release()
	if res, err := server.DrainSpool(ctx, spool.Budget{}); err != nil || res.Applied != 1 {
		t.Fatalf("DrainSpool = %+v, %v", res, err)
	}
	kept := map[string]bool{}
	rs, err := server.SQL().Query(`SELECT id FROM spool_applied`)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	for rs.Next() {
		var id string
		if err := rs.Scan(&id); err != nil {
			t.Fatal(err)
		}
		kept[id] = true
	}
	if kept[old] {
		t.Errorf("the id of a write spooled 31 days ago is still kept: %v", kept)
	}
	for _, id := range append([]string{young}, others...) {
		if !kept[id] {
			t.Errorf("%s was pruned: %v", id, kept)
		}
	}
	if len(kept) != 4 { // young, others and the write just applied
		t.Errorf("spool_applied holds %d ids, want 4: %v", len(kept), kept)
	}
}
