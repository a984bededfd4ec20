package sqlite

import (
	"context"
	"database/sql"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// VectorAgreement reads the record (zero when none is kept yet).
func (s *DB) VectorAgreement(ctx context.Context) (memory.Agreement, error) {
	return statements(s.db).Agreement(ctx)
}

// RecordVectorAgreement counts searches in the record in one write, best
// effort: behind another process's write lock it gives up, as TouchMemories
// does.
func (s *DB) RecordVectorAgreement(ctx context.Context, searches ...memory.AgreementSearch) error {
	if len(searches) == 0 {
		return nil
	}
	return s.writeBestEffort(ctx, func(tx *sql.Tx) error {
		v, err := getMeta(ctx, tx, storage.MetaVectorAgreement)
		if err != nil {
			return err
		}
		next, err := memory.AddToStoredAgreement(v, searches)
		if err != nil {
			return err
		}
		return setMeta(ctx, tx, storage.MetaVectorAgreement, next)
	})
}

// forgetAgreement drops the record, for a new embedding space.
func forgetAgreement(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM meta WHERE key = ?`, storage.MetaVectorAgreement)
	return err
}

// ForgetVectorAgreement drops the record, as a new embedding model does (the
// evaluation changes its oracle's noise between runs on one file).
func (s *DB) ForgetVectorAgreement(ctx context.Context) error {
	return s.write(ctx, func(tx *sql.Tx) error { return forgetAgreement(ctx, tx) })
}
