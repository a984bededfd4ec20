package sqlite

import (
	"context"
	"database/sql"
	"strconv"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// ClaimEmbeddingSpace records space as the database's embedding space when none
// is recorded yet, and returns the space in force afterwards. Check and record
// happen in one IMMEDIATE transaction, so when two processes store their first
// vectors at once the second sees the first's space instead of resetting it
// (ResetEmbeddings would drop the vectors the first one just wrote).
func (s *DB) ClaimEmbeddingSpace(ctx context.Context, space memory.EmbeddingSpace) (memory.EmbeddingSpace, error) {
	var out memory.EmbeddingSpace
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		out, err = storage.ClaimIn(ctx, newSharedTx(tx), space)
		return err
	})
	return out, err
}

// LockSpace: the write transaction holds the whole database.
func (t sharedTx) LockSpace(ctx context.Context) (memory.EmbeddingSpace, error) {
	return embeddingSpace(ctx, t.tx)
}

// SetDimension makes the vector table anew for vectors of dim.
func (t sharedTx) SetDimension(ctx context.Context, dim int) error {
	if err := createVectorTable(ctx, t.tx, dim); err != nil {
		return err
	}
	return setMeta(ctx, t.tx, metaEmbedDim, strconv.Itoa(dim))
}
