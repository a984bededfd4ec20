package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// An FTS5 index is a set of segments, and every keyword search looks each of
// its words up in every segment. Each commit that changes the indexed text
// adds a segment, and FTS5 merges in proportion to what a commit wrote, so
// after small commits hardly at all: 12 memories stored one by one leave 12
// segments, every hook's record adds one to the journal's, and one large
// import leaves 25 at 100k memories. Merged into one, the prompt hook's
// keyword search took 1.6 instead of 4.3 ms at 10k memories and 3 instead
// of 7.6 ms at 100k, in a fresh process; the prompt hook's statement over a
// journal of 21 entries in 6 segments, 0.32 ms, took 0.07 in one.

// memoryIndex is the keyword index of the memories, the one every prompt
// hook searches.
const memoryIndex = "memories_fts"

// journalIndex is the keyword index of the journal (past sessions).
const journalIndex = "journal_fts"

// mergeStepPages is how many pages of merged index one step of a merge
// writes, in one short write transaction (at 100k memories about 30 ms):
// a hook's write waits for it rather than going to the spool.
const mergeStepPages = 200

// hookMergePages bounds the merge a prompt hook's record makes in the
// journal's keyword index: the few small segments since its last prompt.
const hookMergePages = 16

// maxMergeSteps bounds one merge, whatever the index does: 100k memories
// take five steps.
const maxMergeSteps = 1000

// CompactMemoryIndex merges the memories' keyword index into one segment
// when it has more, a bounded step at a time; it reports whether it merged
// anything. A running server calls it now and then.
func (s *DB) CompactMemoryIndex(ctx context.Context) (bool, error) {
	return s.compactIndex(ctx, memoryIndex, -mergeStepPages)
}

// MergeJournalIndex merges the small segments of the journal's keyword index
// (every hook's record adds one, and FTS5 merges so little after a write
// that small it leaves ten or more), leaving the large ones as they are: a
// few hundred microseconds, where merging the whole journal would rewrite
// all of it. It reports whether it merged anything. A running server calls
// it every half minute.
func (s *DB) MergeJournalIndex(ctx context.Context) (bool, error) {
	return s.compactIndex(ctx, journalIndex, mergeStepPages)
}

// compactIndex merges segments of the FTS5 table index in 'merge' steps of
// pages (see mergeStep), each its own write; it stops when one segment is
// left or a step found nothing to merge.
func (s *DB) compactIndex(ctx context.Context, index string, pages int) (bool, error) {
	merged := false
	for range maxMergeSteps {
		n, err := indexSegments(ctx, s.db, index)
		if err != nil || n <= 1 {
			return merged, err
		}
		var worked bool
		err = s.write(ctx, func(tx *sql.Tx) error {
			worked, err = mergeStep(ctx, tx, index, pages)
			return err
		})
		if err != nil {
			return merged, fmt.Errorf("merge keyword index %s: %w", index, err)
		}
		if !worked {
			return merged, nil
		}
		merged = true
	}
	return merged, nil
}

// indexSegments counts the segments of the FTS5 table index: each has rows
// in its %_idx table (one per leaf page it starts).
func indexSegments(ctx context.Context, q querier, index string) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(DISTINCT segid) FROM `+index+`_idx`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count segments of keyword index %s: %w", index, err)
	}
	return n, nil
}

// mergeStep runs one 'merge' of index writing about |pages| pages: with
// pages negative every segment is merged together, whatever its level; with
// pages positive only levels holding several segments are (FTS5's usermerge,
// four). It reports whether there was anything to merge: FTS5 says so
// through the connection's count of changes, a 'merge' that did nothing
// changes fewer than two rows.
func mergeStep(ctx context.Context, tx *sql.Tx, index string, pages int) (bool, error) {
	changes := func() (int64, error) {
		var n int64
		err := tx.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&n)
		return n, err
	}
	before, err := changes()
	if err != nil {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+index+`(`+index+`, rank) VALUES ('merge', ?)`, pages); err != nil {
		return false, err
	}
	after, err := changes()
	return after-before >= 2, err
}
