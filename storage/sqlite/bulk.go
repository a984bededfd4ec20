package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/recall-mcp/recall/capture/journal"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// Import writes records in one transaction: all of them or, on error, none.
func (s *DB) Import(ctx context.Context, r memory.Records) (*memory.ImportResult, error) {
	var res *memory.ImportResult
	err := s.write(ctx, func(tx *sql.Tx) error {
		var ids map[string]string
		var err error
		if res, ids, err = writeRecords(ctx, tx, r); err != nil {
			return err
		}
		return writeVectors(ctx, tx, r, ids, res)
	})
	if err != nil {
		return nil, err
	}
	// One large write leaves a keyword index in many segments, which every
	// later search pays for (compact.go). The import is kept either way: a
	// merge that fails leaves a slower index, not a wrong one.
	for index, wrote := range map[string]bool{memoryIndex: res.Memories > 0, journalIndex: res.Journal > 0} {
		if !wrote {
			continue
		}
		if _, err := s.compactIndex(ctx, index, -mergeStepPages); err != nil {
			s.log.Warn("keyword index not merged after the import; searches stay slower until recall serve merges it", "index", index, "err", err)
		}
	}
	return res, nil
}

// writeRecords writes records inside tx (storage.Statements.WriteRecords),
// the memories and journal entries in this engine's SQL.
func writeRecords(ctx context.Context, tx *sql.Tx, r memory.Records) (*memory.ImportResult, map[string]string, error) {
	return statements(tx).WriteRecords(ctx, newSharedTx(tx), r)
}

// writeVectors stores the imported vectors of the memories this import
// wrote (ids: the id each is stored under), when they are of this store's embedding space or it has none yet
// (then theirs becomes it); otherwise the memories stay pending, to be
// embedded again, and res says why.
func writeVectors(ctx context.Context, tx *sql.Tx, r memory.Records, ids map[string]string, res *memory.ImportResult) error {
	if len(r.Vectors) == 0 {
		return nil
	}
	if ok, err := storage.TakeImportedSpace(ctx, newSharedTx(tx), r.Space, res); !ok {
		return err
	}
	for _, m := range r.Memories {
		vec, ok := r.Vectors[m.ID]
		if !ok || ids[m.ID] != m.ID {
			continue
		}
		// Only a memory written now and still waiting: one stored before
		// keeps its own vector.
		var seq int64
		err := tx.QueryRowContext(ctx, `SELECT seq FROM memories WHERE id = ? AND embedding_pending = 1`, m.ID).Scan(&seq)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return fmt.Errorf("vector of %s: %w", m.ID, err)
		}
		if err := putVector(ctx, tx, seq, vec); err != nil {
			return fmt.Errorf("vector of %s: %w", m.ID, err)
		}
		res.Vectors++
	}
	return nil
}

// ImportJournal writes journal entries, keeping their ids where free; an
// entry already stored (same kind, session, time and title) is left out.
func (t sharedTx) ImportJournal(ctx context.Context, es []journal.Entry, res *memory.ImportResult, p *memory.RecordCounter) error {
	tx := t.tx
	for _, e := range es {
		p.Step()
		created := formatTime(e.CreatedAt)
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM journal WHERE kind = ? AND session_id = ? AND created_at = ? AND title = ?`,
			string(e.Kind), e.SessionID, created, e.Title).Scan(&n); err != nil {
			return fmt.Errorf("journal entry %d: %w", e.ID, err)
		}
		if n > 0 {
			res.JournalExisting++
			continue
		}
		var taken int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM journal WHERE id = ?`, e.ID).Scan(&taken); err != nil {
			return fmt.Errorf("journal entry %d: %w", e.ID, err)
		}
		id := max(e.ID, 0)
		if taken > 0 {
			id = 0 // the entry gets the next id
		}
		if _, err := insertEntryAt(ctx, tx, &e, id); err != nil {
			return fmt.Errorf("journal entry: %w", err)
		}
		res.Journal++
	}
	return nil
}
