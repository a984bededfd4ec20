package sqlite

import (
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// recordsSync: how durable the hooks' records are.
//
// The hooks' records (journal entries, tool calls, file activity, sessions,
// summary requests, and what the spool applies of them) and the access counts
// are committed with synchronous=NORMAL: the commit is in the WAL, in the
// operating system's hands, when the hook answers, but not yet on the disk.
// Such a commit survives a crash of the hook, of recall serve or of Claude
// Code; the database stays consistent on a power cut or an OS crash, which
// can only roll back the last commits. Memories, edges and the change log are
// written with the configured mode (RECALL_SYNC, FULL by default: synced
// before the write is acknowledged), and a later FULL commit syncs the WAL
// with every record before it.
//
// A FULL commit costs a prompt hook two or three fsyncs (the WAL, the first
// time a process syncs it its directory, then the access counts' commit): on
// a quiet disk a few milliseconds of a 10 ms goal, under load tens. What a
// NORMAL record can lose is narrow: the events of the last seconds before a
// power cut, which Claude Code's own transcript (that the history indexer
// reads) keeps too. A long-lived process (recall serve answering the hooks)
// also closes that window: walSyncer syncs the WAL soon after the commit
// (syncGather, one fsync for a burst of hooks), off the hook's path, so its
// answer does not wait for the disk but the record is on it within a tenth
// of a second. A hook process exits right after
// answering and leaves the sync to the next FULL commit, a checkpoint or the
// operating system.

// walSyncer syncs a database's WAL to disk in the background: one fsync for
// however many commits asked while the previous one ran.
type walSyncer struct {
	path string // the -wal file
	log  *slog.Logger
	kick chan struct{}
	stop chan struct{}
	done chan struct{}
	once sync.Once

	last   os.FileInfo  // the WAL file last synced, to sync its directory once
	synced atomic.Int64 // syncs made, for tests
}

func newWALSyncer(dbPath string, log *slog.Logger) *walSyncer {
	w := &walSyncer{path: dbPath + "-wal", log: log,
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go w.run()
	return w
}

// soon asks for a sync of what is committed now; it never waits. Nil does
// nothing (a short-lived process).
func (w *walSyncer) soon() {
	if w == nil {
		return
	}
	select {
	case w.kick <- struct{}{}:
	default: // a sync is asked for already and will cover this commit
	}
}

// close syncs what was asked for and stops.
func (w *walSyncer) close() {
	if w == nil {
		return
	}
	w.once.Do(func() { close(w.stop) })
	<-w.done
}

// syncGather is how long the syncer lets commits gather before it syncs
// them: Claude Code runs tools side by side and their hooks come in bursts,
// which one fsync covers. A record is on the disk this much later (it is in
// the operating system's hands at once).
const syncGather = 50 * time.Millisecond

func (w *walSyncer) run() {
	defer close(w.done)
	for {
		select {
		case <-w.kick:
			stopping := false
			select {
			case <-time.After(syncGather):
			case <-w.stop:
				stopping = true
			}
			select {
			case <-w.kick: // committed while gathering: this sync covers it
			default:
			}
			w.sync()
			if stopping {
				return
			}
		case <-w.stop:
			select {
			case <-w.kick:
				w.sync()
			default:
			}
			return
		}
	}
}

// sync fsyncs the WAL, and its directory when the file is new (SQLite syncs
// the directory of a WAL it creates only on its own first sync, which a NORMAL
// commit never makes). fsync works on the file, whichever descriptor asks.
// SQLite locks the -shm file, never the -wal, so opening and closing a
// descriptor of it here releases no lock of SQLite's.
func (w *walSyncer) sync() {
	f, err := os.Open(w.path)
	if errors.Is(err, fs.ErrNotExist) {
		return // checkpointed and removed: everything is in the database file
	}
	if err != nil {
		w.log.Warn("WAL not synced; the last hook records reach the disk with the next sync", "path", w.path, "err", err)
		return
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		w.log.Warn("WAL not synced; the last hook records reach the disk with the next sync", "path", w.path, "err", err)
		return
	}
	w.synced.Add(1)
	fi, err := f.Stat()
	if err != nil || (w.last != nil && os.SameFile(fi, w.last)) {
		return
	}
	if dir, err := os.Open(filepath.Dir(w.path)); err == nil {
		if err := dir.Sync(); err == nil {
			w.last = fi
		}
		dir.Close()
	}
}
