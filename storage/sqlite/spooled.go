package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/recall-mcp/recall/capture/journal"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/spool"
)

// The hooks' writes and the spool. A hook lives for one event and must answer
// within seconds; when another process holds the write lock (an import, a
// reindex, a migration) for longer than that, waiting loses the answer and, once
// the hook gives up, the write too. So with Options.SpoolWhenBusy the writes a
// hook makes wait BestEffortBusyTimeout at most, and behind the lock they are
// kept in the spool beside the database; the next hook that gets the lock and
// recall serve apply them.

// The kinds of spooled writes: one per hook write.
const (
	spoolJournal      = "journal_entry"   // journal.Entry
	spoolFileActivity = "file_activity"   // memory.FileActivity
	spoolSession      = "session"         // memory.Session
	spoolSummary      = "summary_request" // summaryRequest
	spoolToolCall     = "tool_call"       // toolCall
	// SpoolKeptToolCall is a tool call a post-tool-use hook kept without
	// opening the database; what it holds is the hook's to say, and a
	// KeptToolCallResolver makes it a toolCall when it is applied.
	SpoolKeptToolCall = "kept_tool_call"
)

// KeptToolCallResolver makes a tool call kept in the spool (SpoolKeptToolCall,
// its data as the hook wrote it) into the entry and file touch to write,
// with what only the database knows filled in. Its error is the write's: a
// passing one (the database busy) keeps the write for the next drain.
// written are the journal entries the same drain writes before it, in the
// same transaction (oldest first): its turn may depend on them.
type KeptToolCallResolver func(ctx context.Context, data json.RawMessage, written []*journal.Entry) (*journal.Entry, *memory.FileActivity, error)

// ResolveKeptToolCalls sets how this process applies the tool calls hooks
// kept in the spool. A process without one leaves them, and the writes after
// them, for a process that has one (every recall command that opens the
// database for its services sets it).
func (s *DB) ResolveKeptToolCalls(r KeptToolCallResolver) { s.keptToolCalls.Store(&r) }

// hookDrainBudget bounds what a hook applies from the spool before its own
// write: it has an answer to give; recall serve does the rest.
var hookDrainBudget = spool.Budget{Files: 20, Time: 50 * time.Millisecond}

// hookWrite runs one of the hooks' writes, on the best-effort pool: committed
// without waiting for the disk (see recordsSync). Without SpoolWhenBusy (recall
// serve answering a hook) it waits for the write lock as long as an ordinary
// write and asks for the WAL's sync in the background. With it, writes
// waiting in the spool go first (a write never overtakes them); then fn runs,
// and when the lock is held data is spooled under kind instead. Once a write
// of this process met the lock the next ones are spooled without waiting
// again (see writeBestEffort).
func (s *DB) hookWrite(ctx context.Context, kind string, data any, fn func(tx *sql.Tx) error) error {
	once := ""
	if id := spool.WriteID(ctx); id != "" {
		once = id + "/" + kind
		fn = appliedOnce(ctx, once, hookWriteIDs, fn)
	}
	if !s.spoolWhenBusy {
		err := s.writePatiently(ctx, fn)
		if isBusy(err) || outOfTime(ctx, err) {
			// recall serve answers a hook before its writes: behind a
			// writer that outlasts the event's time (an import, a
			// migration) the write is kept in the spool for the server's
			// drain, as the hook itself would have kept it.
			w, serr := s.spool.AddOnce(kind, once, data)
			if serr != nil {
				return fmt.Errorf("%w; the spool %s could not take it either: %s", err, s.spool.Dir(), fileTrouble(serr))
			}
			s.log.Info("database busy with another writer past the hook's time; write kept in the spool for later", "kind", kind, "id", w.ID, "spool", s.spool.Dir())
			return nil
		}
		if err != nil {
			return err
		}
		s.walSync.soon()
		s.checkpointIfLarge()
		return nil
	}
	if !s.lockSeen.Load() && s.spoolCaughtUp(ctx) {
		err := s.writeBestEffort(ctx, fn) // marks lockSeen when busy
		if err == nil {
			s.checkpointIfLarge()
		}
		if !isBusy(err) && !outOfTime(ctx, err) {
			return err
		}
	}
	w, err := s.spool.AddOnce(kind, once, data)
	if err != nil {
		// The spool cannot take it (a full disk, a read-only directory): wait
		// for the database rather than lose the write.
		s.log.Warn("the spool cannot keep a write; waiting for the database instead", "kind", kind, "spool", s.spool.Dir(), "err", err)
		werr := s.writePatiently(ctx, fn)
		if werr == nil {
			return nil
		}
		lost := fmt.Errorf("%s not kept: the spool %s could not take it (%s) and the database could not either (%s)",
			kind, s.spool.Dir(), fileTrouble(err), fileTrouble(werr))
		// Lost: said where a person will see it (stats, doctor, the next
		// session's start), not only on this hook's stderr.
		if rerr := s.spool.RecordLost(kind, fmt.Sprintf("the spool: %s; the database: %s", fileTrouble(err), fileTrouble(werr))); rerr != nil {
			return errors.Join(lost, rerr)
		}
		return lost
	}
	why := "database busy with another writer"
	if ctx.Err() != nil {
		why = "the hook's time ran out"
	}
	s.log.Info(why+"; write kept in the spool for later", "kind", kind, "id", w.ID, "spool", s.spool.Dir())
	return nil
}

// outOfTime says whether a write failed because the hook's time ran out (a
// slow machine, a large transcript): the write itself was fine, so it is kept
// in the spool for the next hook rather than lost with the hook's answer.
func outOfTime(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() != nil
}

// writePatiently makes a hook's write that is not spooled (recall serve's, or
// one the spool could not take), waiting for the write lock in short tries: up
// to BusyTimeout, and no longer than ctx allows (a hook has an answer to give;
// SQLite's own wait ignores ctx).
func (s *DB) writePatiently(ctx context.Context, fn func(tx *sql.Tx) error) error {
	deadline := time.Now().Add(BusyTimeout * time.Millisecond)
	for {
		err := s.tryWrite(ctx, fn)
		if !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%w (gave up waiting: %v)", err, ctx.Err())
		}
	}
}

// tryWrite runs fn in one write transaction on a best-effort connection,
// which waits BestEffortBusyTimeout at most for the write lock.
func (s *DB) tryWrite(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, done, err := s.beginBestEffort(ctx)
	if err != nil {
		return fmt.Errorf("begin write: %w", err)
	}
	defer done()
	return commit(tx, fn)
}

// fileTrouble says in words what kept a write from a file or the database: a
// full disk and a read-only place are named as such, never as "busy".
func fileTrouble(err error) string {
	var se sqlite3.Error
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.As(err, &se) && se.Code == sqlite3.ErrFull:
		return "the disk is full: " + err.Error()
	case errors.Is(err, syscall.EROFS), errors.Is(err, fs.ErrPermission), errors.As(err, &se) && se.Code == sqlite3.ErrReadonly:
		return "the place is read-only: " + err.Error()
	case isBusy(err):
		return "another process holds the write lock: " + err.Error()
	}
	return err.Error()
}

// spoolCaughtUp applies, within hookDrainBudget, what waits in the spool and
// reports whether nothing is left. An empty spool costs one directory read.
func (s *DB) spoolCaughtUp(ctx context.Context) bool {
	if n, err := s.spool.Pending(); err != nil || n == 0 {
		return true // an unreadable spool must not stop the write itself
	}
	res, _ := s.DrainSpool(ctx, hookDrainBudget) // a busy drain marks lockSeen
	if res.Applied > 0 {
		s.log.Debug("applied spooled writes", "applied", res.Applied, "left", res.Left)
	}
	return res.Left == 0
}

// DrainSpool applies the writes the hooks left in the spool, oldest first,
// within b (zero: all of them). A write applied before is not applied again.
// Behind another writer it stops and returns the busy error; the writes left
// wait for the next drain.
func (s *DB) DrainSpool(ctx context.Context, b spool.Budget) (spool.Result, error) {
	return s.spool.DrainBatched(ctx, s.applySpooledBatch, s.applySpooled, b, spoolBatch)
}

// spoolBatch is how many spooled writes a drain commits at once: a turn's
// kept tool calls in one commit rather than one each (each commit writes the
// journal's and its keyword index's pages to the log again).
const spoolBatch = 64

// SpoolCounts says how many spooled writes wait to be applied and how many
// were moved aside because they never can be.
func (s *DB) SpoolCounts() (pending, failed int, err error) {
	if pending, err = s.spool.Pending(); err != nil {
		return 0, 0, err
	}
	failed, err = s.spool.Failed()
	return pending, failed, err
}

// SpoolDir is where the spooled writes are.
func (s *DB) SpoolDir() string { return s.spool.Dir() }

// LostRecords are the files recording hook writes that were kept nowhere.
func (s *DB) LostRecords() []string { return s.spool.LostRecords() }

// UnreportedLosses are the hook writes lost, and the spooled writes set aside
// as never applicable, since the last MarkLossesReported.
func (s *DB) UnreportedLosses() (spool.Losses, error) { return s.spool.Unreported() }

// MarkLossesReported records that the losses until at were told.
func (s *DB) MarkLossesReported(at time.Time) { s.spool.MarkReported(at) }

// applySpooled applies one spooled write, once: its id goes into
// spool_applied in the same transaction, and an id found there is skipped.
func (s *DB) applySpooled(ctx context.Context, w spool.Write) error {
	return s.applySpooledBatch(ctx, []spool.Write{w})
}

// applySpooledBatch applies spooled writes in one transaction, each once (see
// applySpooled).
func (s *DB) applySpooledBatch(ctx context.Context, ws []spool.Write) error {
	var fns []func(tx *sql.Tx) error
	var written []*journal.Entry // the batch's entries, for the kept tool calls after them
	for _, w := range ws {
		fn, e, err := s.keptToolCall(ctx, w, written)
		if fn == nil && err == nil {
			fn, e, err = spooledWrite(ctx, w)
		}
		if err != nil {
			if spool.IsLater(err) {
				return err
			}
			return fmt.Errorf("spooled %s: %w", w.Kind, err)
		}
		// The file's own id marks it applied for good; a hook event's id
		// (Once) also keeps the same write, made by a server for that
		// event, from being made twice.
		if w.Once != "" {
			fn = appliedOnce(ctx, w.Once, hookWriteIDs, fn)
		}
		fns = append(fns, appliedOnce(ctx, w.ID, spoolWriteIDs, fn))
		if e != nil {
			written = append(written, e)
		}
	}
	err := s.writeBestEffort(ctx, func(tx *sql.Tx) error {
		if err := pruneSpoolWriteIDs(ctx, tx); err != nil {
			return err
		}
		for _, fn := range fns {
			if err := fn(tx); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil && passing(ctx, err) {
		return spool.Later(err)
	}
	if err != nil {
		return fmt.Errorf("spooled %s: %w", ws[len(ws)-1].Kind, err)
	}
	return nil
}

// keptToolCall is the write of a tool call a hook kept without opening the
// database (resolved by the process's KeptToolCallResolver); nil for writes
// of other kinds.
func (s *DB) keptToolCall(ctx context.Context, w spool.Write, written []*journal.Entry) (func(tx *sql.Tx) error, *journal.Entry, error) {
	if w.Kind != SpoolKeptToolCall {
		return nil, nil, nil
	}
	resolve := s.keptToolCalls.Load()
	if resolve == nil {
		return nil, nil, spool.Later(errors.New("this process cannot complete a kept tool call; the next hook or recall serve will"))
	}
	e, a, err := (*resolve)(ctx, w.Data, written)
	if err != nil {
		if passing(ctx, err) {
			return nil, nil, spool.Later(err)
		}
		return nil, nil, err
	}
	if e == nil && a == nil {
		return func(*sql.Tx) error { return nil }, nil, nil
	}
	fn, err := toolCallWrite(ctx, &toolCall{Entry: e, Activity: a})
	return fn, e, err
}

// appliedIDs is a family of ids in spool_applied and how long they are kept.
type appliedIDs struct {
	prune string // deletes the family's rows applied before ?; "" keeps them
	kept  time.Duration
}

var (
	// spoolWriteIDs are the spool's files, kept spoolIDsKept (pruned once
	// a drain's batch, not once a file: see pruneSpoolWriteIDs).
	spoolWriteIDs = appliedIDs{}
	// hookWriteIDs name the writes of one hook event (spool.WithWriteID,
	// "hook-..."): they only matter while a hook may redo what a server did
	// not answer for, seconds, and are pruned by their key range, so that a
	// hook's write never scans the table.
	hookWriteIDs = appliedIDs{`DELETE FROM spool_applied WHERE id >= 'hook-' AND id < 'hook.' AND applied_at < ?`, time.Hour}
)

// spoolIDsKept is how long the ids of applied spool files are kept. A file is
// removed right after its commit, but one that cannot be removed (a directory
// made read-only, say) is read again by every drain: its id must still be
// there then. They are not kept for good because a hook working alone keeps
// every tool call in the spool, one short row each, hundreds a day; a file
// left unremovable for a month may be applied twice (a tool call listed
// twice), which is not a loss.
const spoolIDsKept = 30 * 24 * time.Hour

// pruneSpoolWriteIDs deletes the ids of files spooled more than spoolIDsKept
// ago. The ids begin with their spooling time (spool.IDBefore) and sort
// before any other family's ("client:...", "hook-..."), so they go by key
// range.
func pruneSpoolWriteIDs(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM spool_applied WHERE id < ?`, spool.IDBefore(time.Now().Add(-spoolIDsKept)))
	return err
}

// appliedOnce wraps fn so that it runs once under id: the id goes into
// spool_applied in the same transaction, and an id found there is skipped.
func appliedOnce(ctx context.Context, id string, family appliedIDs, fn func(tx *sql.Tx) error) func(tx *sql.Tx) error {
	return func(tx *sql.Tx) error {
		now := time.Now()
		res, err := tx.ExecContext(ctx, `INSERT INTO spool_applied (id, applied_at) VALUES (?, ?)
			ON CONFLICT (id) DO NOTHING`, id, formatTime(now))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err // applied before
		}
		if family.prune != "" {
			if _, err := tx.ExecContext(ctx, family.prune, formatTime(now.Add(-family.kept))); err != nil {
				return err
			}
		}
		return fn(tx)
	}
}

// passing reports a failure that says nothing about the write itself (the
// lock is held, the disk is full, the drain was cancelled): it is tried again
// later rather than moved aside.
func passing(ctx context.Context, err error) bool {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code {
	case sqlite3.ErrBusy, sqlite3.ErrLocked, sqlite3.ErrFull, sqlite3.ErrIoErr, sqlite3.ErrReadonly, sqlite3.ErrCantOpen, sqlite3.ErrInterrupt:
		return true
	}
	return false
}

// spooledWrite decodes a spooled write into the statement that applies it,
// with the journal entry it writes (nil for none).
func spooledWrite(ctx context.Context, w spool.Write) (func(tx *sql.Tx) error, *journal.Entry, error) {
	switch w.Kind {
	case spoolJournal:
		var e journal.Entry
		if err := json.Unmarshal(w.Data, &e); err != nil {
			return nil, nil, err
		}
		if err := checkEntry(&e); err != nil {
			return nil, nil, err
		}
		return func(tx *sql.Tx) error { _, err := insertEntry(ctx, tx, &e); return err }, &e, nil
	case spoolFileActivity:
		var a memory.FileActivity
		if err := json.Unmarshal(w.Data, &a); err != nil {
			return nil, nil, err
		}
		insert, err := fileActivityInsert(ctx, &a)
		if err != nil {
			return nil, nil, err
		}
		return func(tx *sql.Tx) error { _, err := insert(tx); return err }, nil, nil
	case spoolToolCall:
		var c toolCall
		if err := json.Unmarshal(w.Data, &c); err != nil {
			return nil, nil, err
		}
		fn, err := toolCallWrite(ctx, &c)
		return fn, c.Entry, err
	case spoolSession:
		var sess memory.Session
		if err := json.Unmarshal(w.Data, &sess); err != nil {
			return nil, nil, err
		}
		return func(tx *sql.Tx) error { return upsertSession(ctx, tx, &sess) }, nil, nil
	case spoolSummary:
		var r summaryRequest
		if err := json.Unmarshal(w.Data, &r); err != nil {
			return nil, nil, err
		}
		return func(tx *sql.Tx) error { return queueSummary(ctx, tx, &r) }, nil, nil
	}
	return nil, nil, fmt.Errorf("unknown kind %q: written by a newer recall?", w.Kind)
}
