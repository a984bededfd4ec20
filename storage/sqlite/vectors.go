package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// VectorChunk is the number of vectors per vec0 chunk (see createVectorTable).
const VectorChunk = 8

// The vec0 table memory_vectors holds one vector per memory, keyed by
// memories.seq. Its dimension is part of its definition, so it is created when the
// embedding space is first known and recreated by ResetEmbeddings. Namespace, type
// and importance are copied into vec0 metadata columns so that KNN filters on them
// inside the scan instead of starving the result; triggers keep the copies and
// deletions in step with memories.
//
// The table keeps its vectors in chunks of VectorChunk; a chunk is one blob,
// stored as a chain of overflow pages that SQLite walks from its start to reach
// a vector. With sqlite-vec's default of 1024 vectors (4 MB at 1024 dimensions)
// looking up the 20 vectors a prompt's candidates need walked some ten thousand
// pages, most of them not yet mapped in a fresh process: 15 to 30 ms of page
// faults on every prompt hook at 10k memories. Chunks of 64 bounded the walk to
// 64 pages, still 32 on average: ranking the 1000 candidates of a search took
// 70-110 ms in a fresh process at 20k memories. Chunks of 8 (8 pages at most)
// rank them in 12-14 ms; the exact scan reads the same bytes either way.
func createVectorTable(ctx context.Context, tx *sql.Tx, dim int) error {
	stmts := []string{
		`DROP TRIGGER IF EXISTS memories_vec_delete`,
		`DROP TRIGGER IF EXISTS memories_vec_update`,
		`DROP TABLE IF EXISTS memory_vectors`,
		`CREATE VIRTUAL TABLE memory_vectors USING vec0 (
			embedding float[` + strconv.Itoa(dim) + `] distance_metric=cosine,
			namespace text,
			memory_type text,
			importance float,
			chunk_size=` + strconv.Itoa(VectorChunk) + `
		)`,
		`CREATE TRIGGER memories_vec_delete AFTER DELETE ON memories BEGIN
			DELETE FROM memory_vectors WHERE rowid = old.seq;
		END`,
		`CREATE TRIGGER memories_vec_update AFTER UPDATE OF namespace, memory_type, importance ON memories BEGIN
			UPDATE memory_vectors SET namespace = new.namespace, memory_type = new.memory_type,
				importance = new.importance WHERE rowid = new.seq;
		END`,
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("create vector table: %w", err)
		}
	}
	return nil
}

func embeddingSpace(ctx context.Context, q querier) (memory.EmbeddingSpace, error) {
	model, err := getMeta(ctx, q, metaEmbedModel)
	if err != nil {
		return memory.EmbeddingSpace{}, err
	}
	dimText, err := getMeta(ctx, q, metaEmbedDim)
	if err != nil {
		return memory.EmbeddingSpace{}, err
	}
	dim := 0
	if dimText != "" {
		if dim, err = strconv.Atoi(dimText); err != nil {
			return memory.EmbeddingSpace{}, fmt.Errorf("stored embedding dimension %q: %w", dimText, err)
		}
	}
	return memory.EmbeddingSpace{Model: model, Dimension: dim}, nil
}

// EmbeddingSpace reports the model and dimension of the stored vectors.
func (s *DB) EmbeddingSpace(ctx context.Context) (memory.EmbeddingSpace, error) {
	sp, err := embeddingSpace(ctx, s.db)
	if err != nil {
		return sp, fmt.Errorf("read embedding space: %w", err)
	}
	return sp, nil
}

// StartSpace makes space the database's embedding space: a fresh vector
// table of its dimension, no signs, parts' vectors or agreement record of
// the old one, the space recorded, and every memory pending.
func (t sharedTx) StartSpace(ctx context.Context, space memory.EmbeddingSpace) error {
	tx := t.tx
	if err := createVectorTable(ctx, tx, space.Dimension); err != nil {
		return err
	}
	if err := dropAllSigns(ctx, tx); err != nil {
		return err
	}
	if err := dropChunks(ctx, tx); err != nil {
		return err
	}
	if err := forgetAgreement(ctx, tx); err != nil {
		return err
	}
	if err := setMeta(ctx, tx, metaEmbedModel, space.Model); err != nil {
		return err
	}
	if err := setMeta(ctx, tx, metaEmbedDim, strconv.Itoa(space.Dimension)); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `UPDATE memories SET embedding_pending = 1`)
	return err
}

// putVector stores the vector of the memory at seq and clears its pending flag.
// Without a recorded space the first vector fixes the dimension (model unnamed).
func putVector(ctx context.Context, tx *sql.Tx, seq int64, vec []float32) error {
	sp, err := embeddingSpace(ctx, tx)
	if err != nil {
		return err
	}
	if err := storage.FitVector(ctx, newSharedTx(tx), sp, vec); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM memory_vectors WHERE rowid = ?`, seq); err != nil {
		return fmt.Errorf("replace vector: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO memory_vectors (rowid, embedding, namespace, memory_type, importance)
		SELECT seq, ?, namespace, memory_type, importance FROM memories WHERE seq = ?`, encodeVector(vec), seq); err != nil {
		return fmt.Errorf("store vector: %w", err)
	}
	if err := putSigns(ctx, tx, seq, vec); err != nil {
		return err
	}
	if err := putCode(ctx, tx, seq, vec); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE memories SET embedding_pending = 0 WHERE seq = ?`, seq)
	return err
}

// encodeVector is the little-endian float32 blob vec0 reads.
func encodeVector(vec []float32) []byte {
	b := make([]byte, 4*len(vec))
	for i, f := range vec {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// SetEmbedding stores the vector of a memory and clears EmbeddingPending.
func (s *DB) SetEmbedding(ctx context.Context, id string, vec []float32) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, seq, err := getMemory(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := putVector(ctx, tx, seq, vec); err != nil {
			return fmt.Errorf("memory %s: %w", id, err)
		}
		return nil
	})
}

// PendingEmbeddings returns up to limit memories that still lack a vector,
// oldest first.
func (s *DB) PendingEmbeddings(ctx context.Context, limit int) ([]*memory.Memory, error) {
	if limit <= 0 {
		limit = 100
	}
	ms, err := queryMemories(ctx, s.db, `SELECT `+memoryColumns+` FROM memories m
		WHERE m.embedding_pending = 1 ORDER BY m.seq LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("pending embeddings: %w", err)
	}
	return ms, nil
}

// Embedding returns the stored vector of a memory, or nil when it has none
// (pending, or no vector stored at all yet).
func (s *DB) Embedding(ctx context.Context, id string) ([]float32, error) {
	sp, err := embeddingSpace(ctx, s.db)
	if err != nil {
		return nil, fmt.Errorf("read vector: %w", err)
	}
	if sp.Dimension == 0 {
		return nil, nil
	}
	var blob []byte
	visible, vargs := visibleCond(ctx, "m")
	err = s.db.QueryRowContext(ctx, `SELECT v.embedding FROM memories m
		JOIN memory_vectors v ON v.rowid = m.seq WHERE m.id = ? AND `+visible, append([]any{id}, vargs...)...).Scan(&blob)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read vector of %s: %w", id, err)
	}
	return decodeVector(blob), nil
}

// decodeVector reads the little-endian float32 blob encodeVector writes.
func decodeVector(b []byte) []float32 {
	vec := make([]float32, len(b)/4)
	for i := range vec {
		vec[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return vec
}

// CountPendingEmbeddings counts the memories that still lack a vector (a read
// of the partial index memories_pending).
func (s *DB) CountPendingEmbeddings(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM memories WHERE embedding_pending = 1`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count pending embeddings: %w", err)
	}
	return n, nil
}

// rechunkVectors rebuilds a vector table made with sqlite-vec's default chunk
// size (1024 vectors) with VectorChunk, keeping every row.
func rechunkVectors(ctx context.Context, tx *sql.Tx) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE name = 'memory_vectors'`).Scan(&n); err != nil || n == 0 {
		return err
	}
	sp, err := embeddingSpace(ctx, tx)
	if err != nil {
		return err
	}
	if sp.Dimension == 0 {
		return nil
	}
	stmts := []string{
		`DROP TABLE IF EXISTS temp.rechunk_vectors`,
		`CREATE TEMP TABLE rechunk_vectors AS
			SELECT rowid AS seq, embedding, namespace, memory_type, importance FROM memory_vectors`,
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("rechunk vectors: %w", err)
		}
	}
	if err := createVectorTable(ctx, tx, sp.Dimension); err != nil {
		return err
	}
	for _, q := range []string{
		`INSERT INTO memory_vectors (rowid, embedding, namespace, memory_type, importance)
			SELECT seq, embedding, namespace, memory_type, importance FROM temp.rechunk_vectors ORDER BY seq`,
		`DROP TABLE temp.rechunk_vectors`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("rechunk vectors: %w", err)
		}
	}
	return nil
}
