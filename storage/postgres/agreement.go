package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/memory"
)

// metaVectorAgreement keeps memory.Agreement, the fusion's record of how often
// the vector side agreed with keywords, shared by every process and server of
// the database (a prompt hook is one search per process). A new embedding
// space (ResetEmbeddings, FinishReindex, a first dimension) starts it afresh:
// it judges a model.
const metaVectorAgreement = "vector_agreement"

// VectorAgreement reads the record (zero when none is kept yet).
func (s *DB) VectorAgreement(ctx context.Context) (memory.Agreement, error) {
	a, err := readAgreement(ctx, s.pool)
	return a, s.unreachable(err)
}

func readAgreement(ctx context.Context, q querier) (memory.Agreement, error) {
	v, err := getMeta(ctx, q, metaVectorAgreement)
	if err != nil {
		return memory.Agreement{}, err
	}
	return memory.DecodeAgreement(v)
}

// RecordVectorAgreement counts searches in the record, in order, in one
// write. The row is locked for the read-modify-write, so searches of several
// servers at once each count; best effort: behind another's lock for more
// than a moment it gives up, as TouchMemories does, rather than slow a search
// down.
func (s *DB) RecordVectorAgreement(ctx context.Context, searches ...memory.AgreementSearch) error {
	if len(searches) == 0 {
		return nil
	}
	return s.write(ctx, func(tx pgx.Tx) error {
		// Best effort, and committed without waiting for the disk: a count
		// lost in a crash only fades the record a little less.
		if _, err := tx.Exec(ctx, `SELECT set_config('lock_timeout', '100ms', true), set_config('synchronous_commit', 'off', true)`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO meta (key, value) VALUES ($1, '') ON CONFLICT (key) DO NOTHING`, metaVectorAgreement); err != nil {
			return err
		}
		var v string
		if err := tx.QueryRow(ctx, `SELECT value FROM meta WHERE key = $1 FOR UPDATE`, metaVectorAgreement).Scan(&v); err != nil {
			return err
		}
		next, err := memory.AddToStoredAgreement(v, searches)
		if err != nil {
			return err
		}
		return setMeta(ctx, tx, metaVectorAgreement, next)
	})
}

// forgetAgreement drops the record, for a new embedding space.
func forgetAgreement(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, `DELETE FROM meta WHERE key = $1`, metaVectorAgreement)
	return err
}

// ForgetVectorAgreement drops the record, as a new embedding model does.
func (s *DB) ForgetVectorAgreement(ctx context.Context) error {
	return s.write(ctx, func(tx pgx.Tx) error { return forgetAgreement(ctx, tx) })
}
