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
	if err := memory.CheckDimension("embedding dimension", space.Dimension); err != nil {
		return space, err
	}
	var out memory.EmbeddingSpace
	err := s.write(ctx, func(tx *sql.Tx) error {
		cur, err := embeddingSpace(ctx, tx)
		if err != nil {
			return err
		}
		var newDimension, newModel bool
		out, newDimension, newModel = storage.ClaimSpace(cur, space)
		if newDimension {
			if err := createVectorTable(ctx, tx, space.Dimension); err != nil {
				return err
			}
			if err := setMeta(ctx, tx, metaEmbedDim, strconv.Itoa(space.Dimension)); err != nil {
				return err
			}
		}
		if !newModel {
			return nil
		}
		return setMeta(ctx, tx, metaEmbedModel, space.Model)
	})
	return out, err
}
