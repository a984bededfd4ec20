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
	// StageVector keeps memory id's vector for the reindex (none for a
	// memory deleted meanwhile).
	StageVector(ctx context.Context, id string, vec []float32) error
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

// StageVectors keeps the vectors of a reindex in progress, by memory id, in
// one transaction, until the engine's FinishReindex swaps them in. Memories
// deleted meanwhile are skipped.
func (s Shared) StageVectors(ctx context.Context, vecs map[string][]float32) error {
	return s.Tx.Write(ctx, func(tx Tx) error {
		for id, vec := range vecs {
			if err := memory.CheckVector(vec); err != nil {
				return fmt.Errorf("memory %s: %w", id, err)
			}
			if err := tx.StageVector(ctx, id, vec); err != nil {
				return fmt.Errorf("stage vector of %s: %w", id, err)
			}
		}
		return nil
	})
}

// StageVector keeps memory id's vector for the reindex (none for a memory
// deleted meanwhile).
func (s Statements) StageVector(ctx context.Context, id string, vec []float32) error {
	_, err := s.SQL.Exec(ctx, `INSERT INTO reindex_vectors (seq, content_hash, embedding)
		SELECT seq, content_hash, $1 FROM memories WHERE id = $2
		ON CONFLICT (seq) DO UPDATE SET content_hash = excluded.content_hash, embedding = excluded.embedding`,
		s.SQL.Vector(vec), id)
	return err
}

// MetaVectorAgreement is the key of the meta table that keeps
// memory.Agreement, the fusion's record of how often the vector side agreed
// with keywords, shared by every process of the store. A new embedding space
// starts it afresh: it judges a model.
const MetaVectorAgreement = "vector_agreement"

// Agreement reads the fusion's agreement record (zero when none is kept
// yet).
func (s Statements) Agreement(ctx context.Context) (memory.Agreement, error) {
	v, err := s.Meta(ctx, MetaVectorAgreement)
	if err != nil {
		return memory.Agreement{}, err
	}
	return memory.DecodeAgreement(v)
}

// ReindexTarget is the space the reindex in progress embeds into; an error
// when none is in progress.
func (s Statements) ReindexTarget(ctx context.Context) (memory.EmbeddingSpace, error) {
	model, err := s.Meta(ctx, MetaReindexModel)
	if err != nil {
		return memory.EmbeddingSpace{}, err
	}
	dimText, err := s.Meta(ctx, MetaReindexDim)
	if err != nil {
		return memory.EmbeddingSpace{}, err
	}
	dim, err := strconv.Atoi(dimText)
	if model == "" || err != nil {
		return memory.EmbeddingSpace{}, fmt.Errorf("no reindex in progress")
	}
	return memory.EmbeddingSpace{Model: model, Dimension: dim}, nil
}
