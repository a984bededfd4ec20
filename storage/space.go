package storage

import (
	"context"
	"fmt"

	"github.com/recall-mcp/recall/memory"
)

// The meta keys of the embedding space: its model and its dimension.
const (
	MetaEmbedModel = "embedding_model"
	MetaEmbedDim   = "embedding_dimension"
)

// A SpaceTx is an engine's write transaction as the steps on the embedding
// space take it.
type SpaceTx interface {
	// LockSpace reads the recorded embedding space, held against another
	// writer's change until the transaction ends.
	LockSpace(ctx context.Context) (memory.EmbeddingSpace, error)
	// SetDimension records dim as the dimension of the vectors: their
	// column or table takes it, emptied.
	SetDimension(ctx context.Context, dim int) error
	// SetMeta writes a value of the meta table.
	SetMeta(ctx context.Context, key, value string) error
}

// ClaimEmbeddingSpace records space as the store's embedding space when none
// is recorded yet, and returns the space in force afterwards. Check and
// record happen in one write transaction holding the space, so when two
// processes store their first vectors at once the second sees the first's
// space instead of resetting it (ResetEmbeddings would drop the vectors the
// first one just wrote).
func (s Shared) ClaimEmbeddingSpace(ctx context.Context, space memory.EmbeddingSpace) (memory.EmbeddingSpace, error) {
	var out memory.EmbeddingSpace
	err := s.Tx.Write(ctx, func(tx Tx) error {
		var err error
		out, err = ClaimIn(ctx, tx, space)
		return err
	})
	return out, err
}

// ClaimIn records want in t as the embedding space when ClaimSpace says
// so, and returns the space in force.
func ClaimIn(ctx context.Context, t SpaceTx, want memory.EmbeddingSpace) (memory.EmbeddingSpace, error) {
	if err := memory.CheckDimension("embedding dimension", want.Dimension); err != nil {
		return want, err
	}
	cur, err := t.LockSpace(ctx)
	if err != nil {
		return cur, err
	}
	out, newDimension, newModel := ClaimSpace(cur, want)
	if newDimension {
		if err := t.SetDimension(ctx, want.Dimension); err != nil {
			return out, err
		}
	}
	if newModel {
		return out, t.SetMeta(ctx, MetaEmbedModel, want.Model)
	}
	return out, nil
}

// FitVector checks vec and that it fits sp, the space recorded when it was
// read; without one yet (sp.Dimension 0) the first vector's length becomes
// the dimension (the model stays unnamed), recorded in t.
func FitVector(ctx context.Context, t SpaceTx, sp memory.EmbeddingSpace, vec []float32) error {
	if err := memory.CheckVector(vec); err != nil {
		return err
	}
	if sp.Dimension == 0 {
		if err := memory.CheckDimension("vector length", len(vec)); err != nil {
			return err
		}
		var err error
		if sp, err = t.LockSpace(ctx); err != nil {
			return err
		}
		if sp.Dimension == 0 {
			if err := t.SetDimension(ctx, len(vec)); err != nil {
				return err
			}
			sp.Dimension = len(vec)
		}
	}
	return sp.Fits("vector", vec)
}

// ClaimSpace decides what claiming the embedding space want does when cur is
// the space recorded: a named space stays, and so do vectors of an unnamed
// model of another dimension (they are not ours). Otherwise want is the
// space in force: its dimension is recorded first when none is
// (setDimension), then its model (setModel).
func ClaimSpace(cur, want memory.EmbeddingSpace) (out memory.EmbeddingSpace, setDimension, setModel bool) {
	switch {
	case cur.Model != "":
		return cur, false, false
	case cur.Dimension == 0:
		return want, true, true
	case cur.Dimension != want.Dimension:
		return cur, false, false
	}
	return want, false, true
}

// TakeImportedSpace tells whether an import's vectors, made in space, are
// stored: when they fit the recorded space, or no model is named yet (space
// becomes the store's, replacing unnamed vectors). Otherwise res.VectorsLeft
// says why not.
func TakeImportedSpace(ctx context.Context, t SpaceTx, space memory.EmbeddingSpace, res *memory.ImportResult) (bool, error) {
	cur, err := t.LockSpace(ctx)
	if err != nil {
		return false, fmt.Errorf("import vectors: %w", err)
	}
	ok, why := memory.VectorsFit(space, cur)
	if !ok {
		res.VectorsLeft = why
		return false, nil
	}
	if cur.Model == "" {
		if err := t.SetDimension(ctx, space.Dimension); err != nil {
			return false, err
		}
		if err := t.SetMeta(ctx, MetaEmbedModel, space.Model); err != nil {
			return false, err
		}
	}
	return true, nil
}
