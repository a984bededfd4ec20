package storage

import (
	"context"
	"fmt"
	"strconv"

	"github.com/recall-mcp/recall/memory"
)

// Keys of the meta table naming the space a reindex in progress embeds into.
const (
	MetaReindexModel = "reindex_model"
	MetaReindexDim   = "reindex_dimension"
)

// A ReindexTx is an engine's write transaction as BeginReindex uses it.
type ReindexTx interface {
	// Meta reads a value of the meta table ("" when unset).
	Meta(ctx context.Context, key string) (string, error)
	// SetMeta writes a value of the meta table.
	SetMeta(ctx context.Context, key, value string) error
	// DropStaged drops every vector staged for a reindex.
	DropStaged(ctx context.Context) error
	// CountStaged counts the memories whose text has not changed since
	// their vector was staged.
	CountStaged(ctx context.Context) (int, error)
}

// BeginReindex records the space a reindex embeds into and returns how many
// memories already have a vector staged for it (by an earlier run that
// stopped). Vectors staged for another space are dropped. A reindex writes
// its vectors beside the ones searched until the engine's FinishReindex
// swaps them in, all at once.
func (s Shared) BeginReindex(ctx context.Context, space memory.EmbeddingSpace) (int, error) {
	if err := memory.CheckDimension("embedding dimension", space.Dimension); err != nil {
		return 0, err
	}
	var staged int
	err := s.Tx.Write(ctx, func(tx Tx) error {
		model, err := tx.Meta(ctx, MetaReindexModel)
		if err != nil {
			return err
		}
		dim, err := tx.Meta(ctx, MetaReindexDim)
		if err != nil {
			return err
		}
		if model != space.Model || dim != strconv.Itoa(space.Dimension) {
			if err := tx.DropStaged(ctx); err != nil {
				return err
			}
			if err := tx.SetMeta(ctx, MetaReindexModel, space.Model); err != nil {
				return err
			}
			if err := tx.SetMeta(ctx, MetaReindexDim, strconv.Itoa(space.Dimension)); err != nil {
				return err
			}
		}
		staged, err = tx.CountStaged(ctx)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("begin reindex: %w", err)
	}
	return staged, nil
}
