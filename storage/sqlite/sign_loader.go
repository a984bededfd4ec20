package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"sync"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// exactScanBelow is the number of stored vectors under which vector search
// always runs sqlite-vec's exact scan: that small, reading every vector costs
// less than keeping a copy of the signs current. Above it the steps of
// SearchVector are far cheaper: at 10k memories a warm hybrid recall took 43 ms
// of CPU with the exact scan and 13 ms by signs and codes (BenchmarkHybridRecall,
// a loaded machine).
var exactScanBelow = 2_000

// catchUpInline is how many changed rows a search reads into the copy of the
// signs itself; a copy further behind (or not loaded yet) is loaded in the
// background while the search runs the exact scan. Reading all signs takes most
// of a second at 100k vectors: a short-lived process such as the prompt hook
// would pay that on every prompt, a server only once.
var catchUpInline = 5_000

// signCandidates returns the n candidates of a search by sign bits (see
// signIndex.candidates: wide of them by Hamming distance first), or ok false
// when the search should run the exact scan instead.
func (s *DB) signCandidates(ctx context.Context, vec []float32, f memory.Filter, wide, n int) (seqs []int64, ok bool, err error) {
	x := s.signs
	x.mu.Lock()
	defer x.mu.Unlock()
	var behind int
	fromSnapshot := false
	if len(x.seqs) == 0 && !x.snapshotTried {
		// An empty copy starts from the file's snapshot when there is one
		// (counting the rows changed since version 0 would read the whole
		// version index first: 100k entries).
		x.snapshotTried = true
		behind, fromSnapshot = s.readSnapshot(ctx, x)
	}
	if !fromSnapshot {
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM vector_signs WHERE version > ?`, x.version).Scan(&behind); err != nil {
			return nil, false, err
		}
	}
	total := len(x.seqs) + behind // at most: some rows are updates or removals
	first := !x.searched
	x.searched = true
	switch {
	case behind > catchUpInline:
		s.loader.start(s.db, x, total)
		return nil, false, nil
	case total < exactScanBelow && !first:
		return nil, false, nil
	}
	// Here the copy is current, or behind by few enough rows to read now. A
	// process's first search takes this path even in a small database: the exact
	// scan's first run reads whole vec0 chunks (room for 1024 vectors each) from
	// a cold file, about 11 ms at 200 vectors, which the prompt hook, one search
	// per process, would pay on every prompt; ranking candidates reads only theirs.
	if err := x.sync(ctx, s.db); err != nil {
		return nil, false, err
	}
	if len(x.seqs) >= exactScanBelow && x.version-x.snapshot > snapshotLag {
		s.loader.writeSnapshot(s.db, x)
	}
	return x.candidates(vec, f, memory.PrincipalFrom(ctx), wide, n), true, nil
}

// readSnapshot fills the empty copy x from the file's snapshot when one is
// there and no more than catchUpInline rows behind, and returns how many rows
// changed since it. The caller holds x.mu.
func (s *DB) readSnapshot(ctx context.Context, x *signIndex) (behind int, ok bool) {
	if len(x.seqs) > 0 {
		return 0, false
	}
	v, err := snapshotVersion(ctx, s.db)
	if err != nil || v == 0 {
		return 0, false
	}
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM vector_signs WHERE version > ?`, v).Scan(&behind); err != nil || behind > catchUpInline {
		return 0, false
	}
	fresh := newSignIndex()
	if ok, err := fresh.readSnapshot(ctx, s.db); err != nil || !ok {
		if err != nil {
			slog.Warn("read the vector sign snapshot", "err", err)
		}
		return 0, false
	}
	x.take(fresh)
	return behind, true
}

// signLoader reads a whole new copy of the signs in one background goroutine at
// a time, and stops it when the database closes.
type signLoader struct {
	mu      sync.Mutex
	running bool
	closed  bool
	cancel  context.CancelFunc
	done    sync.WaitGroup
}

// start loads a fresh copy of about size rows and hands it to x, unless a load
// is already running or the database is closing.
func (l *signLoader) start(db *sql.DB, x *signIndex, size int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.running || l.closed {
		return
	}
	l.run(func(ctx context.Context) {
		fresh := newSignIndex()
		if err := fresh.load(ctx, db, size); err != nil {
			if ctx.Err() == nil {
				slog.Warn("load vector signs", "err", err)
			}
		} else {
			// Written down, so the next process reads it instead.
			if fresh.version > 0 {
				if dict, data, err := fresh.encodeSnapshot(); err != nil {
					slog.Warn("encode the vector sign snapshot", "err", err)
				} else if err := writeSnapshot(ctx, db, fresh.version, fresh.words, dict, data); err != nil {
					slog.Warn("write the vector sign snapshot", "err", err)
				} else {
					fresh.snapshot = fresh.version
				}
			}
			x.adopt(fresh)
		}
	})
}

// run runs work in the background as the one running load or write, which
// Close cancels and waits for; the caller holds l.mu.
func (l *signLoader) run(work func(ctx context.Context)) {
	ctx, cancel := context.WithCancel(context.Background())
	l.running, l.cancel = true, cancel
	l.done.Add(1)
	go func() {
		defer l.done.Done()
		defer cancel()
		work(ctx)
		l.mu.Lock()
		l.running = false
		l.mu.Unlock()
	}()
}

// writeSnapshot writes x down as the file's snapshot in the background,
// unless a load or another write is running or the database is closing.
func (l *signLoader) writeSnapshot(db *sql.DB, x *signIndex) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.running || l.closed {
		return
	}
	// Encoded now, under the caller's lock on x: a copy of 15 MB at 100k.
	dict, data, err := x.encodeSnapshot()
	if err != nil {
		slog.Warn("encode the vector sign snapshot", "err", err)
		return
	}
	version, words := x.version, x.words
	x.snapshot = version // tried once per lag, whatever the outcome
	l.run(func(ctx context.Context) {
		if err := writeSnapshot(ctx, db, version, words, dict, data); err != nil && ctx.Err() == nil {
			slog.Warn("write the vector sign snapshot", "err", err)
		}
	})
}

// stop cancels a running load and waits for it to end.
func (l *signLoader) stop() {
	l.mu.Lock()
	l.closed = true
	if l.running {
		l.cancel()
	}
	l.mu.Unlock()
	l.done.Wait()
}

// wait returns once no load is running (for tests and benchmarks).
func (l *signLoader) wait() { l.done.Wait() }

// adopt takes fresh's contents unless x has meanwhile caught up further.
func (x *signIndex) adopt(fresh *signIndex) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if fresh.version < x.version {
		return
	}
	x.take(fresh)
}

// take replaces x's contents by fresh's. The caller holds x.mu.
func (x *signIndex) take(fresh *signIndex) {
	x.version, x.words, x.slot, x.seqs, x.signs = fresh.version, fresh.words, fresh.slot, fresh.seqs, fresh.signs
	x.live, x.namespaces, x.types, x.importance = fresh.live, fresh.namespaces, fresh.types, fresh.importance
	x.names, x.nameIDs, x.snapshot = fresh.names, fresh.nameIDs, fresh.snapshot
}

// knnVectorSearch is sqlite-vec's exact scan: namespace, type and importance are
// vec0 metadata columns, so the scan itself skips rows that fail them; superseded
// memories and those the principal may not see are removed after it, so it
// asks for that many more (hidden).
func (s *DB) knnVectorSearch(ctx context.Context, vec []float32, f memory.Filter, limit, hidden int) ([]memory.Hit, error) {
	knnWhere := "embedding MATCH ? AND k = ?"
	args := []any{encodeVector(vec), min(limit+hidden, storage.MaxKNN)}
	if len(f.Namespaces) > 0 {
		knnWhere += " AND namespace IN (" + placeholders(len(f.Namespaces)) + ")"
		args = append(args, anySlice(f.Namespaces)...)
	}
	if len(f.Types) > 0 {
		knnWhere += " AND memory_type IN (" + placeholders(len(f.Types)) + ")"
		for _, t := range f.Types {
			args = append(args, string(t))
		}
	}
	if f.MinImportance > 0 {
		knnWhere += " AND importance >= ?"
		args = append(args, f.MinImportance)
	}
	// Others' private memories are removed after the scan too (vec0's
	// metadata conditions cannot say "not user: but mine").
	post, postArgs := visibleCond(ctx, "m")
	if !f.IncludeSuperseded {
		cond, sargs := notSupersededFor(ctx)
		post += " AND " + cond
		postArgs = append(postArgs, sargs...)
	}
	query := `WITH knn AS MATERIALIZED (
			SELECT rowid, distance FROM memory_vectors WHERE ` + knnWhere + `
		)
		SELECT m.id, knn.distance FROM knn JOIN memories m ON m.seq = knn.rowid
		WHERE ` + post + ` ORDER BY knn.distance, m.seq LIMIT ?`
	hits, err := queryHits(ctx, s, query, append(append(args, postArgs...), limit))
	if err != nil {
		return nil, fmt.Errorf("exact scan: %w", err)
	}
	return hits, nil
}
