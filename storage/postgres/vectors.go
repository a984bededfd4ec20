package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// maxIndexedDimension is the largest dimension pgvector's HNSW index takes
// for the vector type; larger vectors are searched exactly.
const maxIndexedDimension = 2000

func vector(v []float32) pgvector.Vector { return pgvector.NewVector(v) }

// iterativeScan reports whether the server's pgvector has hnsw.iterative_scan
// (0.8 and later).
func (s *DB) iterativeScan(context.Context) (bool, error) { return s.hasIterative, nil }

func getMeta(ctx context.Context, q querier, key string) (string, error) {
	return statements(q).Meta(ctx, key)
}

func setMeta(ctx context.Context, q querier, key, value string) error {
	return statements(q).SetMeta(ctx, key, value)
}

const (
	metaEmbedModel = storage.MetaEmbedModel
	metaEmbedDim   = storage.MetaEmbedDim
)

func embeddingSpace(ctx context.Context, q querier) (memory.EmbeddingSpace, error) {
	rows, err := q.Query(ctx, `SELECT key, value FROM meta WHERE key IN ($1, $2)`, firstUse, metaEmbedModel, metaEmbedDim)
	if err != nil {
		return memory.EmbeddingSpace{}, err
	}
	defer rows.Close()
	var sp memory.EmbeddingSpace
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return sp, err
		}
		if k == metaEmbedModel {
			sp.Model = v
		} else if v != "" {
			if sp.Dimension, err = strconv.Atoi(v); err != nil {
				return sp, fmt.Errorf("stored embedding dimension %q: %w", v, err)
			}
		}
	}
	return sp, rows.Err()
}

// EmbeddingSpace reports the model and dimension of the stored vectors.
// The dimension is kept for the vector searches and stores that follow.
func (s *DB) EmbeddingSpace(ctx context.Context) (memory.EmbeddingSpace, error) {
	sp, err := embeddingSpace(ctx, s.pool)
	if err != nil {
		return sp, fmt.Errorf("read embedding space: %w", err)
	}
	s.dimension.Store(int64(sp.Dimension))
	return sp, nil
}

// lockSpace reads the embedding space with its rows locked until the
// transaction ends: of two processes setting the space at once, the second
// sees what the first set.
func lockSpace(ctx context.Context, tx pgx.Tx) (memory.EmbeddingSpace, error) {
	if _, err := tx.Exec(ctx, `SELECT 1 FROM meta WHERE key IN ($1, $2) FOR UPDATE`, metaEmbedModel, metaEmbedDim); err != nil {
		return memory.EmbeddingSpace{}, err
	}
	return embeddingSpace(ctx, tx)
}

// setDimension gives the vector column its dimension and its HNSW index,
// dropping every vector (they belong to the space being replaced).
func setDimension(ctx context.Context, tx pgx.Tx, dim int) error {
	d := strconv.Itoa(dim)
	stmts := []string{
		`DROP INDEX IF EXISTS memories_embedding`,
		`UPDATE memories SET embedding = NULL, embedding_staged = NULL, embedding_pending = true
			WHERE embedding IS NOT NULL OR embedding_staged IS NOT NULL`,
		`ALTER TABLE memories ALTER COLUMN embedding TYPE vector(` + d + `)`,
		`DELETE FROM memory_chunks`,
		// The fusion's record judged the vectors being replaced.
		`DELETE FROM meta WHERE key = '` + storage.MetaVectorAgreement + `'`,
	}
	if dim <= maxIndexedDimension {
		stmts = append(stmts, `CREATE INDEX memories_embedding ON memories USING hnsw (embedding vector_cosine_ops)`)
	}
	for _, q := range stmts {
		if _, err := tx.Exec(ctx, q); err != nil {
			return fmt.Errorf("set vector dimension %d: %w", dim, err)
		}
	}
	return setMeta(ctx, tx, metaEmbedDim, d)
}

func (t sharedTx) LockSpace(ctx context.Context) (memory.EmbeddingSpace, error) {
	return lockSpace(ctx, t.tx)
}

func (t sharedTx) SetDimension(ctx context.Context, dim int) error {
	return setDimension(ctx, t.tx, dim)
}

// StartSpace: the vector column takes the space's dimension (setDimension
// empties it), with the space locked against a first vector stored meanwhile.
func (t sharedTx) StartSpace(ctx context.Context, space memory.EmbeddingSpace) error {
	if _, err := lockSpace(ctx, t.tx); err != nil {
		return err
	}
	if err := setDimension(ctx, t.tx, space.Dimension); err != nil {
		return err
	}
	if err := setMeta(ctx, t.tx, metaEmbedModel, space.Model); err != nil {
		return err
	}
	_, err := t.tx.Exec(ctx, `UPDATE memories SET embedding_pending = true`)
	return err
}

// putVector stages the vector of the memory at seq (for the indexer, once
// the transaction committed: DB.staged) and clears its pending flag. Without
// a recorded space the first vector fixes the dimension.
func putVector(ctx context.Context, tx pgx.Tx, seq int64, vec []float32) error {
	sp, err := embeddingSpace(ctx, tx)
	if err != nil {
		return err
	}
	if err := storage.FitVector(ctx, newSharedTx(tx), sp, vec); err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `UPDATE memories SET embedding = NULL, embedding_staged = $1, embedding_pending = false WHERE seq = $2`, vector(vec), seq)
	if err != nil {
		return fmt.Errorf("store vector: %w", err)
	}
	return nil
}

// SetEmbedding stores the vector of a memory and clears EmbeddingPending.
func (s *DB) SetEmbedding(ctx context.Context, id string, vec []float32) error {
	var seq int64
	err := s.write(ctx, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `SELECT seq FROM memories WHERE id = $1`, id).Scan(&seq)
		if errors.Is(err, pgx.ErrNoRows) {
			return memory.NotFound("memory", id)
		}
		if err != nil {
			return err
		}
		if err := putVector(ctx, tx, seq, vec); err != nil {
			return fmt.Errorf("memory %s: %w", id, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.staged(seq)
	return nil
}

// PendingEmbeddings returns up to limit memories that still lack a vector,
// oldest first.
func (s *DB) PendingEmbeddings(ctx context.Context, limit int) ([]*memory.Memory, error) {
	if limit <= 0 {
		limit = 100
	}
	ms, err := queryMemories(ctx, s.pool, `SELECT `+memoryColumns+` FROM memories m
		WHERE m.embedding_pending ORDER BY m.seq LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("pending embeddings: %w", err)
	}
	return ms, nil
}

// CountPendingEmbeddings counts the memories that still lack a vector.
func (s *DB) CountPendingEmbeddings(ctx context.Context) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM memories WHERE embedding_pending`, firstUse).Scan(&n); err != nil {
		return 0, fmt.Errorf("count pending embeddings: %w", err)
	}
	return n, nil
}

// Embedding returns the stored vector of a memory, or nil when it has none.
func (s *DB) Embedding(ctx context.Context, id string) ([]float32, error) {
	var v *pgvector.Vector
	var pending bool
	p := params{id}
	err := s.pool.QueryRow(ctx, `SELECT coalesce(m.embedding_staged, m.embedding), m.embedding_pending FROM memories m WHERE m.id = $1 AND `+
		visibleCond(ctx, "m", &p), p...).Scan(&v, &pending)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && (v == nil || pending)) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read vector of %s: %w", id, err)
	}
	return v.Slice(), nil
}

// UnchunkedLongMemories returns up to limit memories with a vector whose
// content is longer than minBytes and whose later parts have no vectors yet,
// skipping those in skip.
func (s *DB) UnchunkedLongMemories(ctx context.Context, minBytes, limit int, skip []string) ([]*memory.Memory, error) {
	if skip == nil {
		skip = []string{}
	}
	ms, err := queryMemories(ctx, s.pool, `SELECT `+memoryColumns+` FROM memories m
		WHERE NOT m.embedding_pending AND octet_length(m.content) > $1
			AND NOT EXISTS (SELECT 1 FROM memory_chunks c WHERE c.seq = m.seq)
			AND NOT (m.id = ANY($2))
		ORDER BY m.seq LIMIT $3`, minBytes, skip, limit)
	if err != nil {
		return nil, fmt.Errorf("long memories: %w", err)
	}
	return ms, nil
}

// SetChunkEmbeddings replaces the vectors of a memory's later parts.
func (s *DB) SetChunkEmbeddings(ctx context.Context, id string, vecs [][]float32) error {
	return s.write(ctx, func(tx pgx.Tx) error {
		_, seq, err := getMemory(ctx, tx, id, false)
		if err != nil {
			return err
		}
		sp, err := embeddingSpace(ctx, tx)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM memory_chunks WHERE seq = $1`, seq); err != nil {
			return err
		}
		for i, vec := range vecs {
			if err := sp.Takes("part vector", vec); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO memory_chunks (seq, part, embedding) VALUES ($1, $2, $3)`,
				seq, i+1, vector(vec)); err != nil {
				return fmt.Errorf("store part vector: %w", err)
			}
		}
		return nil
	})
}

// ReindexPending lists memories still without a staged vector, except skip.
func (s *DB) ReindexPending(ctx context.Context, limit int, skip []string) ([]*memory.Memory, error) {
	if skip == nil {
		skip = []string{}
	}
	ms, err := queryMemories(ctx, s.pool, `SELECT `+memoryColumns+` FROM memories m
		LEFT JOIN reindex_vectors r ON r.seq = m.seq AND r.content_hash = m.content_hash
		WHERE r.seq IS NULL AND NOT (m.id = ANY($1))
		ORDER BY m.seq LIMIT $2`, skip, limit)
	if err != nil {
		return nil, fmt.Errorf("reindex pending: %w", err)
	}
	return ms, nil
}

// MoveStaged: in one statement, cast to the new dimension.
func (t sharedTx) MoveStaged(ctx context.Context, dim int) (int, error) {
	tag, err := t.tx.Exec(ctx, `UPDATE memories m SET embedding = r.embedding::vector(`+strconv.Itoa(dim)+`), embedding_pending = false
		FROM reindex_vectors r WHERE r.seq = m.seq AND r.content_hash = m.content_hash`)
	return int(tag.RowsAffected()), err
}
