package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Vectors are staged, then indexed. Putting a 1024-d vector into the HNSW
// graph costs the server milliseconds of CPU (about 6 ms on 2 cores), which
// capped acknowledged stores near 300 a second. So a store keeps its vector
// in memories.embedding_staged (no index: the row costs what a row costs)
// and is acknowledged; the indexer moves staged vectors into the indexed
// column (memories.embedding) one memory at a time, in the background of the
// process that stored them. Nothing waits on it and nothing is lost: the
// vector is committed with the memory, and a vector search ranks the staged
// ones exactly beside the index's (vectorSQL), so a memory is found by its
// vector the moment it is stored. A memory has at most one of the two.
//
// Who indexes: every process that staged a vector runs the indexer, which
// takes any staged vector of the database (FOR UPDATE SKIP LOCKED: several
// processes share the work, none waits on another); a process closing
// indexes first what it staged itself (a CLI call, a hook), so vectors do not
// pile up where no server runs.

// indexPoll is how often a running indexer looks for vectors other
// processes staged and left (a process killed before it indexed them).
const indexPoll = 10 * time.Second

// indexer is the background indexing of one open store.
type indexer struct {
	start sync.Once
	wake  chan struct{}
	stop  context.CancelFunc
	done  chan struct{}

	mu  sync.Mutex
	own map[int64]bool // seqs this process staged and may not have indexed yet
}

// staged records that this process staged the vector of seq and wakes the
// indexer, starting it on first use.
func (s *DB) staged(seq int64) {
	ix := &s.index
	ix.mu.Lock()
	if ix.own == nil {
		ix.own = map[int64]bool{}
	}
	ix.own[seq] = true
	ix.mu.Unlock()
	ix.start.Do(func() {
		ix.wake = make(chan struct{}, 1)
		ix.done = make(chan struct{})
		ctx, stop := context.WithCancel(context.Background())
		ix.stop = stop
		go s.indexLoop(ctx)
	})
	select {
	case ix.wake <- struct{}{}:
	default: // already woken
	}
}

// indexLoop indexes staged vectors until none is left, then waits for the
// next stage of this process or indexPoll.
func (s *DB) indexLoop(ctx context.Context) {
	defer close(s.index.done)
	wait := indexPoll
	for {
		seq, err := s.indexOne(ctx, nil)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			s.log.Warn("indexing a stored vector failed; it stays searchable and is tried again", "err", err)
			wait = min(2*wait, 5*time.Minute)
		case seq != 0:
			s.index.forget(seq)
			continue
		default:
			s.index.forgetAll() // none staged: whatever this process staged is indexed
			wait = indexPoll
		}
		select {
		case <-ctx.Done():
			return
		case <-s.index.wake:
		case <-time.After(wait):
		}
	}
}

func (ix *indexer) forget(seq int64) {
	ix.mu.Lock()
	delete(ix.own, seq)
	ix.mu.Unlock()
}

func (ix *indexer) forgetAll() {
	ix.mu.Lock()
	clear(ix.own)
	ix.mu.Unlock()
}

// closeIndexer stops the background indexing and indexes what this process
// staged and nobody indexed yet, for at most a few seconds: what is left
// stays staged (searchable) for the next indexer.
func (s *DB) closeIndexer() {
	ix := &s.index
	if ix.stop == nil {
		return
	}
	ix.stop()
	<-ix.done
	ix.mu.Lock()
	own := make([]int64, 0, len(ix.own))
	for seq := range ix.own {
		own = append(own, seq)
	}
	ix.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for len(own) > 0 {
		seq, err := s.indexOne(ctx, own)
		if err != nil {
			s.log.Warn("stored vectors left staged for the next indexer", "err", err)
			return
		}
		if seq == 0 {
			return
		}
		ix.forget(seq)
	}
}

// indexOne moves one staged vector into the indexed column (of the seqs in
// only, when given) and returns its seq, or 0 when none is staged. A vector
// of another dimension than the column's (the embedding space changed while
// it was stored) is dropped and its memory marked pending, to be embedded
// again in the new space. Committed without waiting for the disk: lost in a
// crash, the vector is still staged and indexed again.
func (s *DB) indexOne(ctx context.Context, only []int64) (int64, error) {
	pick := `SELECT seq FROM memories WHERE embedding_staged IS NOT NULL ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED`
	args := []any{}
	if only != nil {
		pick = `SELECT seq FROM memories WHERE embedding_staged IS NOT NULL AND seq = ANY($1) ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED`
		args = append(args, only)
	}
	var seq int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `WITH one AS (`+pick+`),
			space AS (SELECT value::int AS dim FROM meta WHERE key = 'embedding_dimension')
			UPDATE memories m SET
				embedding = CASE WHEN vector_dims(m.embedding_staged) = space.dim THEN m.embedding_staged END,
				embedding_pending = vector_dims(m.embedding_staged) <> space.dim,
				embedding_staged = NULL
			FROM one, space WHERE m.seq = one.seq RETURNING m.seq`, args...).Scan(&seq)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, s.unreachable(fmt.Errorf("index a stored vector: %w", err))
	}
	return seq, nil
}

// CountStagedVectors counts the vectors stored but not yet in the vector
// index (searched exactly meanwhile).
func (s *DB) CountStagedVectors(ctx context.Context) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM memories WHERE embedding_staged IS NOT NULL`).Scan(&n); err != nil {
		return 0, s.unreachable(fmt.Errorf("count staged vectors: %w", err))
	}
	return n, nil
}
