package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/recall-mcp/recall/memory"
)

// metaVectorAgreement keeps memory.Agreement, the fusion's record of how often
// the vector side agreed with keywords, shared by every process of the file.
// A new embedding space (ResetEmbeddings, FinishReindex) starts it afresh: it
// judges a model.
const metaVectorAgreement = "vector_agreement"

// VectorAgreement reads the record (zero when none is kept yet).
func (s *DB) VectorAgreement(ctx context.Context) (memory.Agreement, error) {
	return readAgreement(ctx, s.db)
}

func readAgreement(ctx context.Context, q querier) (memory.Agreement, error) {
	var a memory.Agreement
	v, err := getMeta(ctx, q, metaVectorAgreement)
	if err != nil || v == "" {
		return a, err
	}
	if err := json.Unmarshal([]byte(v), &a); err != nil {
		return memory.Agreement{}, fmt.Errorf("vector agreement %q: %w", v, err)
	}
	return a, nil
}

// RecordVectorAgreement counts searches in the record in one write, best
// effort: behind another process's write lock it gives up, as TouchMemories
// does.
func (s *DB) RecordVectorAgreement(ctx context.Context, matched ...bool) error {
	if len(matched) == 0 {
		return nil
	}
	return s.writeBestEffort(ctx, func(tx *sql.Tx) error {
		a, err := readAgreement(ctx, tx)
		if err != nil {
			a = memory.Agreement{} // a record that does not read is started over
		}
		for _, m := range matched {
			a = a.Add(m)
		}
		b, err := json.Marshal(a)
		if err != nil {
			return err
		}
		return setMeta(ctx, tx, metaVectorAgreement, string(b))
	})
}

// forgetAgreement drops the record, for a new embedding space.
func forgetAgreement(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM meta WHERE key = ?`, metaVectorAgreement)
	return err
}

// ForgetVectorAgreement drops the record, as a new embedding model does (the
// evaluation changes its oracle's noise between runs on one file).
func (s *DB) ForgetVectorAgreement(ctx context.Context) error {
	return s.write(ctx, func(tx *sql.Tx) error { return forgetAgreement(ctx, tx) })
}
