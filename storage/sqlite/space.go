package sqlite

import (
	"context"
	"strconv"

	"github.com/recall-mcp/recall/memory"
)

// The embedding space's steps of storage.Shared (ClaimEmbeddingSpace) and
// of storing a vector (storage.FitVector).

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
