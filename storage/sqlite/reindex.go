package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// A reindex writes its vectors to reindex_vectors, never to memory_vectors:
// the database keeps searching the old vectors until FinishReindex swaps the new
// ones in, all at once, in one transaction.

// ReindexPending returns up to limit memories without a vector staged for the
// reindex in progress, in storage order, skipping those in skip.
func (s *DB) ReindexPending(ctx context.Context, limit int, skip []string) ([]*memory.Memory, error) {
	ms, err := queryMemories(ctx, s.db, `SELECT `+memoryColumns+` FROM memories m
		LEFT JOIN reindex_vectors r ON r.seq = m.seq AND r.content_hash = m.content_hash
		WHERE r.seq IS NULL AND m.id NOT IN (SELECT value FROM json_each(?))
		ORDER BY m.seq LIMIT ?`, jsonList(skip), limit)
	if err != nil {
		return nil, fmt.Errorf("reindex pending: %w", err)
	}
	return ms, nil
}

// FinishReindex swaps the staged vectors in: it recreates the vector table in
// the reindex's space, moves every staged vector there, marks the memories
// without one pending, records the new space and forgets the reindex. It
// returns how many memories got a vector.
func (s *DB) FinishReindex(ctx context.Context) (int, error) {
	var moved int
	err := s.write(ctx, func(tx *sql.Tx) error {
		space, err := statements(tx).ReindexTarget(ctx)
		if err != nil {
			return err
		}
		if err := startSpace(ctx, tx, space); err != nil {
			return err
		}
		if moved, err = moveStaged(ctx, tx); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM reindex_vectors`); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM meta WHERE key IN (?, ?)`, storage.MetaReindexModel, storage.MetaReindexDim)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("finish reindex: %w", err)
	}
	return moved, nil
}

// moveStaged stores every staged vector whose memory content is unchanged, a
// page at a time, so a large database is never held in memory.
func moveStaged(ctx context.Context, tx *sql.Tx) (int, error) {
	const page = 256
	moved := 0
	var after int64
	for {
		rows, err := tx.QueryContext(ctx, `SELECT r.seq, r.embedding FROM reindex_vectors r
			JOIN memories m ON m.seq = r.seq AND m.content_hash = r.content_hash
			WHERE r.seq > ? ORDER BY r.seq LIMIT ?`, after, page)
		if err != nil {
			return moved, err
		}
		var seqs []int64
		var vecs [][]float32
		for rows.Next() {
			var seq int64
			var blob []byte
			if err := rows.Scan(&seq, &blob); err != nil {
				rows.Close()
				return moved, err
			}
			seqs, vecs = append(seqs, seq), append(vecs, decodeVector(blob))
		}
		if err := rows.Close(); err != nil {
			return moved, err
		}
		for i, seq := range seqs {
			if err := putVector(ctx, tx, seq, vecs[i]); err != nil {
				return moved, err
			}
		}
		moved += len(seqs)
		if len(seqs) < page {
			return moved, nil
		}
		after = seqs[len(seqs)-1]
	}
}

// jsonList encodes strings as a JSON array for json_each.
func jsonList(xs []string) string {
	if xs == nil {
		xs = []string{}
	}
	b, _ := json.Marshal(xs)
	return string(b)
}
