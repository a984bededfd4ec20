package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/recall-mcp/recall/memory"
)

// UnchunkedLongMemories returns up to limit memories with a vector whose
// content is longer than minBytes and whose later parts have no vectors yet,
// skipping those in skip.
func (s *DB) UnchunkedLongMemories(ctx context.Context, minBytes, limit int, skip []string) ([]*memory.Memory, error) {
	ms, err := queryMemories(ctx, s.db, `SELECT `+memoryColumns+` FROM memories m
		WHERE m.embedding_pending = 0 AND length(m.content) > ?
			AND NOT EXISTS (SELECT 1 FROM memory_chunks c WHERE c.seq = m.seq)
			AND m.id NOT IN (SELECT value FROM json_each(?))
		ORDER BY m.seq LIMIT ?`, minBytes, jsonList(skip), limit)
	if err != nil {
		return nil, fmt.Errorf("long memories: %w", err)
	}
	return ms, nil
}

// SetChunkEmbeddings replaces the vectors of a memory's later parts. They
// must have the dimension of the stored vectors.
func (s *DB) SetChunkEmbeddings(ctx context.Context, id string, vecs [][]float32) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, seq, err := getMemory(ctx, tx, id)
		if err != nil {
			return err
		}
		sp, err := embeddingSpace(ctx, tx)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM memory_chunks WHERE seq = ?`, seq); err != nil {
			return err
		}
		for i, vec := range vecs {
			if err := sp.Takes("part vector", vec); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO memory_chunks (seq, part, embedding) VALUES (?, ?, ?)`,
				seq, i+1, encodeVector(vec)); err != nil {
				return fmt.Errorf("store part vector: %w", err)
			}
		}
		return nil
	})
}

// SearchChunks ranks memories by the cosine similarity of their best later
// part to vec, best first (Hit.Score = 1 - distance).
func (s *DB) SearchChunks(ctx context.Context, vec []float32, f memory.Filter, limit int) ([]memory.Hit, error) {
	sp, err := embeddingSpace(ctx, s.db)
	if err != nil || sp.Dimension == 0 || len(vec) != sp.Dimension {
		return nil, err
	}
	where, args := whereFilter(ctx, f)
	return queryHits(ctx, s, chunksQuery(where), append(append([]any{encodeVector(vec)}, args...), limit))
}

// chunksQuery ranks the memories with parts that pass where by their best
// part. CROSS JOIN keeps memory_chunks the outer loop: few memories have
// parts, and the planner would otherwise walk every memory looking for them.
func chunksQuery(where string) string {
	return `SELECT m.id, min(vec_distance_cosine(c.embedding, ?)) AS distance
		FROM memory_chunks c CROSS JOIN memories m ON m.seq = c.seq
		WHERE ` + where + ` GROUP BY m.id ORDER BY distance LIMIT ?`
}

// dropChunks forgets every part vector (their space is being replaced).
func dropChunks(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM memory_chunks`)
	return err
}
