// Package spool keeps the writes a hook could not make because another process
// held the database's write lock. A hook lives for one event and must answer
// within seconds, so it cannot wait for a long import or migration to finish;
// dropping the write would lose what the agent did. Instead the write goes to
// a directory beside the database, one small JSON file per write, and is
// applied later, in order, by whoever next gets the lock (the next hook or
// recall serve).
//
// The package knows files, not SQL: the caller says how to apply a write and
// which failures are worth another try (Later).
package spool

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Write is one spooled write.
type Write struct {
	// ID is unique and sorts by the time the write was spooled; it is also
	// the file's name without ".json". Applying the same ID twice must have no
	// more effect than applying it once: a drainer may stop between applying
	// a write and removing its file.
	ID string `json:"id"`
	// Once, when set, is the id the write is applied once under instead of
	// ID: the write id of the hook that spooled it (WithWriteID), which a
	// server may have applied already.
	Once string          `json:"once,omitempty"`
	Kind string          `json:"kind"` // what Data is; the applier's vocabulary
	At   time.Time       `json:"at"`   // when it was spooled
	Data json.RawMessage `json:"data"`
}

// Budget bounds one drain; zero fields mean no bound.
type Budget struct {
	Files int           // apply at most this many writes
	Time  time.Duration // start no write after this long
}

// Result says what a drain did.
type Result struct {
	Applied int // applied and removed
	Failed  int // moved aside to failed/
	Left    int // still waiting (a bound was reached, or the database was busy)
}

// Spool is a directory of pending writes. Any number of processes may add to
// and drain the same directory at once.
type Spool struct {
	dir string
	log *slog.Logger

	mu   sync.Mutex
	last int64 // the last ID's time, so IDs of one process always increase
}

const (
	fileExt    = ".json"
	tempPrefix = ".tmp-" // a write being made; never read, since it may be partial
	failedDir  = "failed"
	// staleTemp is the age past which a temporary file is taken to be left by
	// a writer that died before renaming it: writing one takes milliseconds.
	staleTemp = time.Hour
)

// DirFor is the spool directory of the database at dbPath.
func DirFor(dbPath string) string { return dbPath + ".spool" }

// ServerName names this machine's files of the database server at dbURL (a
// PostgreSQL database): "recall-db-" and a digest of the URL without its
// password, so that two databases on one machine never share them and a
// changed password keeps them.
func ServerName(dbURL string) string {
	key := dbURL
	if u, err := url.Parse(dbURL); err == nil && u.User != nil {
		u.User = url.User(u.User.Username())
		key = u.String()
	}
	sum := sha256.Sum256([]byte(key))
	return "recall-db-" + hex.EncodeToString(sum[:6])
}

// DirForServer is the spool directory, in dir (where this machine's Recall
// files are), of the database server at dbURL.
func DirForServer(dir, dbURL string) string { return filepath.Join(dir, ServerName(dbURL)+".spool") }

// New returns the spool in dir; the directory is created by the first Add.
func New(dir string, log *slog.Logger) *Spool {
	if log == nil {
		log = slog.Default()
	}
	return &Spool{dir: dir, log: log}
}

// Dir is the spool's directory.
func (s *Spool) Dir() string { return s.dir }

// Add spools a write of the given kind and returns it. The file appears whole
// or not at all (written beside, synced, then renamed), so a drainer never
// reads half a write, and it is synced before Add returns: a spooled write
// survives a crash as a committed one does.
func (s *Spool) Add(kind string, data any) (Write, error) {
	return s.AddOnce(kind, "", data)
}

// AddOnce is Add for a write to be applied once under the id once (see
// Write.Once).
func (s *Spool) AddOnce(kind, once string, data any) (Write, error) {
	return s.add(kind, once, data, true)
}

// AddUnsynced is AddOnce without waiting for the disk: the file appears whole
// or not at all, and survives a crash of the process, but like a record the
// hooks commit without a sync (synchronous=NORMAL) it may be lost with the
// machine (a power cut, an operating-system crash). It costs a file's create
// and rename, tens of microseconds, where AddOnce's two syncs cost
// milliseconds.
func (s *Spool) AddUnsynced(kind, once string, data any) (Write, error) {
	return s.add(kind, once, data, false)
}

func (s *Spool) add(kind, once string, data any, synced bool) (Write, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return Write{}, fmt.Errorf("spool %s: %w", kind, err)
	}
	now := time.Now().UTC()
	w := Write{ID: s.nextID(now), Once: once, Kind: kind, At: now, Data: raw}
	body, err := json.Marshal(w)
	if err != nil {
		return Write{}, fmt.Errorf("spool %s: %w", kind, err)
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return Write{}, fmt.Errorf("spool %s: %w", kind, err)
	}
	if err := writeAtomic(s.dir, w.ID+fileExt, body, synced); err != nil {
		return Write{}, fmt.Errorf("spool %s: %w", kind, err)
	}
	return w, nil
}

// NewID is a fresh write id, as Add gives one: a caller that tries a write
// elsewhere first keeps it, if it must, with AddOnce under that id.
func (s *Spool) NewID() string { return s.nextID(time.Now().UTC()) }

// nextID is a name that sorts by time across processes (fixed-width
// nanoseconds first) and cannot collide (process id and random bytes after).
func (s *Spool) nextID(now time.Time) string {
	s.mu.Lock()
	t := max(now.UnixNano(), s.last+1)
	s.last = t
	s.mu.Unlock()
	var r [4]byte
	_, _ = rand.Read(r[:])
	return fmt.Sprintf("%020d-%d-%s", t, os.Getpid(), hex.EncodeToString(r[:]))
}

// IDBefore is a bound for the ids of writes spooled before t: an id begins
// with its spooling time in nanoseconds, zero-padded to 20 digits, so those
// ids, and only those, sort before it.
func IDBefore(t time.Time) string { return fmt.Sprintf("%020d", t.UnixNano()) }

// writeAtomic writes name in dir through a temporary file and a rename, synced
// to the disk (the file and the rename) when synced.
func writeAtomic(dir, name string, body []byte, synced bool) error {
	f, err := os.CreateTemp(dir, tempPrefix+"*") // 0600
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(body)
	if err == nil && synced {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if !synced {
		return nil
	}
	// The rename itself must survive a crash too.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// Pending counts the writes waiting to be applied. A spool never written to
// has none.
func (s *Spool) Pending() (int, error) {
	names, err := s.list()
	return len(names), err
}

// Failed counts the writes moved aside because they could not be applied.
func (s *Spool) Failed() (int, error) {
	names, err := listWrites(filepath.Join(s.dir, failedDir))
	return len(names), err
}

// list returns the pending writes' file names, oldest first.
func (s *Spool) list() ([]string, error) { return listWrites(s.dir) }

func listWrites(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read spool: %w", err)
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); e.Type().IsRegular() && strings.HasSuffix(n, fileExt) && !strings.HasPrefix(n, ".") {
			names = append(names, n)
		}
	}
	slices.Sort(names) // ReadDir sorts already; the order is the contract
	return names, nil
}

// Apply applies one write to the database. An error wrapped with Later leaves
// the write in place for the next drain (and ends this one: later writes must
// not overtake it); any other error is permanent and moves the write aside.
type Apply func(ctx context.Context, w Write) error

type laterError struct{ err error }

func (e laterError) Error() string { return e.err.Error() }
func (e laterError) Unwrap() error { return e.err }

// Later marks err as passing (the database is busy, the context ended): the
// write is kept and tried again.
func Later(err error) error {
	if err == nil {
		return nil
	}
	return laterError{err}
}

// IsLater reports whether err was marked with Later.
func IsLater(err error) bool {
	var l laterError
	return errors.As(err, &l)
}

// Drain applies the pending writes oldest first, removing each once applied,
// until none is left, a bound of b is reached, or apply says Later (whose
// error it returns). A write that cannot be read or applied for good is moved
// to failed/ with a warning: it is neither retried forever nor deleted.
func (s *Spool) Drain(ctx context.Context, apply Apply, b Budget) (Result, error) {
	names, err := s.list()
	if err != nil || len(names) == 0 {
		return Result{}, err
	}
	s.removeStaleTemps()
	return s.drainNames(ctx, names, apply, b)
}

// drainNames is Drain of the writes names, oldest first.
func (s *Spool) drainNames(ctx context.Context, names []string, apply Apply, b Budget) (Result, error) {
	var res Result
	start := time.Now()
	for i, name := range names {
		if ctx.Err() != nil || (b.Files > 0 && i >= b.Files) || (b.Time > 0 && time.Since(start) > b.Time) {
			res.Left = len(names) - i
			return res, nil
		}
		w, err := s.read(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue // another drainer got to it first
		}
		if err == nil {
			err = apply(ctx, w)
		}
		switch {
		case err == nil:
			if err := os.Remove(filepath.Join(s.dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				// Applied: a second application is harmless (see Write.ID).
				s.log.Warn("spooled write applied but its file not removed", "file", name, "err", err)
			}
			res.Applied++
		case IsLater(err):
			res.Left = len(names) - i
			return res, err
		default:
			s.moveAside(name, err)
			res.Failed++
		}
	}
	return res, nil
}

// ApplyBatch applies several writes, oldest first, all of them or none (one
// transaction). Its error says nothing of which write failed: the batch is
// then applied again one write at a time.
type ApplyBatch func(ctx context.Context, ws []Write) error

// DrainBatched is Drain that applies up to size writes at a time with batch,
// so that a drain of many small writes commits once rather than once each.
// The files of a batch are removed once it is applied. A batch that fails is
// applied again one write at a time with apply, as Drain does: a write that
// cannot be applied is moved aside alone, and Later keeps it and the rest.
func (s *Spool) DrainBatched(ctx context.Context, batch ApplyBatch, apply Apply, b Budget, size int) (Result, error) {
	var res Result
	names, err := s.list()
	if err != nil || len(names) == 0 {
		return res, err
	}
	s.removeStaleTemps()
	start := time.Now()
	for i := 0; i < len(names); {
		if ctx.Err() != nil || (b.Files > 0 && i >= b.Files) || (b.Time > 0 && time.Since(start) > b.Time) {
			res.Left = len(names) - i
			return res, nil
		}
		n := min(size, len(names)-i)
		if b.Files > 0 {
			n = min(n, b.Files-i)
		}
		var ws []Write
		var unread bool
		for _, name := range names[i : i+n] {
			w, err := s.read(name)
			if errors.Is(err, fs.ErrNotExist) {
				continue // another drainer got to it first
			}
			if err != nil {
				unread = true // the one-at-a-time drain moves it aside
				break
			}
			ws = append(ws, w)
		}
		if !unread && len(ws) > 0 {
			err := batch(ctx, ws)
			if IsLater(err) {
				res.Left = len(names) - i
				return res, err
			}
			if err == nil {
				for _, w := range ws {
					if err := os.Remove(filepath.Join(s.dir, w.ID+fileExt)); err != nil && !errors.Is(err, fs.ErrNotExist) {
						s.log.Warn("spooled write applied but its file not removed", "file", w.ID+fileExt, "err", err)
					}
				}
				res.Applied += len(ws)
				i += n
				continue
			}
		} else if !unread {
			i += n // all taken by another drainer
			continue
		}
		// One at a time: the batch's bad write alone is moved aside.
		one, err := s.drainNames(ctx, names[i:i+n], apply, Budget{})
		res.Applied += one.Applied
		res.Failed += one.Failed
		if err != nil || one.Left > 0 {
			res.Left = one.Left + len(names) - (i + n)
			return res, err
		}
		i += n
	}
	return res, nil
}

// read decodes one spooled file.
func (s *Spool) read(name string) (Write, error) {
	body, err := os.ReadFile(filepath.Join(s.dir, name))
	if err != nil {
		return Write{}, err
	}
	var w Write
	if err := json.Unmarshal(body, &w); err != nil {
		return Write{}, fmt.Errorf("decode spooled write: %w", err)
	}
	if w.ID != strings.TrimSuffix(name, fileExt) || w.Kind == "" {
		return Write{}, fmt.Errorf("spooled write %s names id %q and kind %q: want its file's name and a kind", name, w.ID, w.Kind)
	}
	return w, nil
}

// moveAside moves a write that will never apply to failed/, with the reason
// beside it, so that it stops holding up the writes after it and can still be
// looked at.
func (s *Spool) moveAside(name string, why error) {
	failed := filepath.Join(s.dir, failedDir)
	err := os.MkdirAll(failed, 0o700)
	if err == nil {
		err = os.Rename(filepath.Join(s.dir, name), filepath.Join(failed, name))
	}
	if errors.Is(err, fs.ErrNotExist) {
		return // another drainer moved or applied it
	}
	if err != nil {
		s.log.Error("spooled write cannot be applied nor moved aside", "file", name, "reason", why, "err", err)
		return
	}
	_ = os.WriteFile(filepath.Join(failed, strings.TrimSuffix(name, fileExt)+".reason"), []byte(why.Error()+"\n"), 0o600)
	s.log.Warn("spooled write cannot be applied; moved aside", "file", filepath.Join(failed, name), "reason", why)
}

// removeStaleTemps removes temporary files whose writer died before renaming
// them: they were never a write.
func (s *Spool) removeStaleTemps() {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), tempPrefix) {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > staleTemp {
			os.Remove(filepath.Join(s.dir, e.Name()))
			s.log.Info("removed a spool file left half-written", "file", e.Name())
		}
	}
}

// writeIDKey carries a write id in a context.
type writeIDKey struct{}

// WithWriteID names the writes made under ctx: a store applies a write under
// one id once, so that a hook that does again the work a server began (and
// never answered for) does not write it twice.
func WithWriteID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, writeIDKey{}, id)
}

// WriteID is the id WithWriteID put in ctx, or "".
func WriteID(ctx context.Context) string {
	id, _ := ctx.Value(writeIDKey{}).(string)
	return id
}
