package sqlite

import (
	"context"
	"database/sql"
	"strconv"

	"github.com/recall-mcp/recall/memory"
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
		switch {
		case cur.Model != "":
			out = cur
			return nil
		case cur.Dimension == 0:
			if err := createVectorTable(ctx, tx, space.Dimension); err != nil {
				return err
			}
			if err := setMeta(ctx, tx, metaEmbedDim, strconv.Itoa(space.Dimension)); err != nil {
				return err
			}
		case cur.Dimension != space.Dimension:
			// Vectors of an unnamed model are here already; they are not ours.
			out = cur
			return nil
		}
		out = space
		return setMeta(ctx, tx, metaEmbedModel, space.Model)
	})
	return out, err
}
