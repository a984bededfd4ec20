package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// An FTS5 index is a set of segments, and every keyword search looks each of
// its words up in every segment. Each commit that changes the indexed text
// adds a segment; FTS5's own merging (automerge) keeps up to three per level
// of size, so an index built a memory at a time, or by one large import,
// ends up with 10 to 25 segments at 10k to 100k memories. Merged into one,
// the prompt hook's keyword search took 1.6 instead of 4.3 ms at 10k
// memories and 3 instead of 7.6 ms at 100k, in a fresh process.

// memoryIndex is the keyword index of the memories, the one every prompt
// hook searches.
const memoryIndex = "memories_fts"

// journalIndex is the keyword index of the journal (past sessions).
const journalIndex = "journal_fts"

// mergeStepPages is how many pages of merged index one step of a merge
// writes, in one short write transaction (at 100k memories about 30 ms):
// a hook's write waits for it rather than going to the spool.
const mergeStepPages = 200

// maxMergeSteps bounds one merge, whatever the index does: 100k memories
// take five steps.
const maxMergeSteps = 1000

// CompactMemoryIndex merges the memories' keyword index into one segment
// when it has more, a bounded step at a time; it reports whether it merged
// anything. A running server calls it now and then.
func (s *DB) CompactMemoryIndex(ctx context.Context) (bool, error) {
	return s.compactIndex(ctx, memoryIndex)
}

// compactIndex merges the FTS5 table index into one segment, in steps of
// mergeStepPages, each its own write; it stops when one segment is left or
// a step found nothing to merge.
func (s *DB) compactIndex(ctx context.Context, index string) (bool, error) {
	merged := false
	for range maxMergeSteps {
		n, err := indexSegments(ctx, s.db, index)
		if err != nil || n <= 1 {
			return merged, err
		}
		var worked bool
		err = s.write(ctx, func(tx *sql.Tx) error {
			worked, err = mergeStep(ctx, tx, index)
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

// mergeStep merges segments of index, every level together (a negative
// 'merge'), writing about mergeStepPages pages; it reports whether there
// was anything to merge. FTS5 says so through the connection's count of
// changes: a 'merge' that did nothing changes fewer than two rows.
func mergeStep(ctx context.Context, tx *sql.Tx, index string) (bool, error) {
	changes := func() (int64, error) {
		var n int64
		err := tx.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&n)
		return n, err
	}
	before, err := changes()
	if err != nil {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+index+`(`+index+`, rank) VALUES ('merge', ?)`, -mergeStepPages); err != nil {
		return false, err
	}
	after, err := changes()
	return after-before >= 2, err
}
