package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// VectorAgreement reads the record (zero when none is kept yet).
func (s *DB) VectorAgreement(ctx context.Context) (memory.Agreement, error) {
	a, err := statements(s.pool).Agreement(ctx)
	return a, s.unreachable(err)
}

// RecordVectorAgreement counts searches in the record, in order, in one
// write. The write is a compare-and-swap (the new record replaces the one it
// was computed from, else it is computed again from the newer one), so
// searches of several servers at once each count, without a lock and in two
// round trips (a fresh process's first search pays for this one). Best
// effort: after a few lost races it gives up, as TouchMemories does, rather
// than slow a search down.
func (s *DB) RecordVectorAgreement(ctx context.Context, searches ...memory.AgreementSearch) error {
	if len(searches) == 0 {
		return nil
	}
	for range 4 {
		v, err := getMeta(ctx, s.pool, storage.MetaVectorAgreement)
		if err != nil {
			return s.unreachable(err)
		}
		next, err := memory.AddToStoredAgreement(v, searches)
		if err != nil {
			return err
		}
		// Committed without waiting for the disk: a count lost in a crash
		// only fades the record a little less. A missing record is "" here.
		b := &pgx.Batch{}
		b.Queue(`SELECT set_config('synchronous_commit', 'off', true)`)
		var swapped bool
		b.Queue(`INSERT INTO meta (key, value) VALUES ($1, $3)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE meta.value = $2`, storage.MetaVectorAgreement, v, next).
			Exec(func(tag pgconn.CommandTag) error {
				swapped = tag.RowsAffected() == 1
				return nil
			})
		if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
			return s.unreachable(err)
		}
		if swapped {
			return nil
		}
	}
	return errors.New("vector agreement not recorded: other servers rewrote the record at each try (best effort)")
}

// forgetAgreement drops the record, for a new embedding space.
func forgetAgreement(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, `DELETE FROM meta WHERE key = $1`, storage.MetaVectorAgreement)
	return err
}

// ForgetVectorAgreement drops the record, as a new embedding model does.
func (s *DB) ForgetVectorAgreement(ctx context.Context) error {
	return s.write(ctx, func(tx pgx.Tx) error { return forgetAgreement(ctx, tx) })
}
