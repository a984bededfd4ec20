package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/recall-mcp/recall/keywords"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

const memoryColumns = storage.MemoryColumns

type scanner interface{ Scan(dest ...any) error }

// scanMemory reads a row selected with memoryColumns; it returns the row's seq too.
func scanMemory(r scanner) (*memory.Memory, int64, error) { return storage.ScanMemory(row{r}) }

// queryMemories reads the memories a query selecting memoryColumns finds.
func queryMemories(ctx context.Context, q querier, query string, args ...any) ([]*memory.Memory, error) {
	return statements(q).QueryMemories(ctx, query, args...)
}

// getMemory reads one memory and its seq, or an error wrapping ErrNotFound
// (also for a memory the principal in ctx may not see).
func getMemory(ctx context.Context, q querier, id string) (*memory.Memory, int64, error) {
	return statements(q).GetMemory(ctx, id, "")
}

// InsertMemory stores m with its vector (or as pending when vec is nil). The same
// content hash in the same namespace returns the stored memory and created false.
// A vector whose dimension differs from the recorded embedding space is refused
// (ErrEmbeddingMismatch) and nothing is stored; when no space is recorded yet the
// first vector fixes the dimension, with the model left unnamed until
// ResetEmbeddings names it.
func (s *DB) InsertMemory(ctx context.Context, m *memory.Memory, vec []float32) (*memory.Memory, bool, error) {
	if m == nil || m.ID == "" {
		return nil, false, memory.Invalidf("memory id", `""`, "a memory id")
	}
	if m.ContentHash == "" {
		m.ContentHash = memory.ContentHash(m.Content)
	}
	meta, err := memory.EncodeMetadata(m.Metadata)
	if err != nil {
		return nil, false, err
	}
	now := time.Now()
	created, updated, accessed := orNow(m.CreatedAt, now), orNow(m.UpdatedAt, now), orNow(m.AccessedAt, now)

	if err := memory.CheckWritable(ctx, m.Namespace); err != nil {
		return nil, false, err
	}
	author := m.Author
	if author == "" {
		author = memory.PrincipalFrom(ctx).Author()
	}

	var stored *memory.Memory
	var isNew bool
	err = s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO memories (id, content, content_hash, memory_type,
			namespace, importance, confidence, metadata, created_at, updated_at, accessed_at,
			access_count, embedding_pending, search_words, author, source)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)
			ON CONFLICT (namespace, content_hash) DO NOTHING`,
			m.ID, m.Content, m.ContentHash, string(m.Type), m.Namespace, m.Importance, m.Confidence,
			meta, formatTime(created), formatTime(updated), formatTime(accessed), m.AccessCount,
			keywords.SearchWords(m.Content), author, m.Source)
		if isUniqueViolation(err) {
			return fmt.Errorf("memory id %q is already taken: %w", m.ID, memory.ErrInvalid)
		}
		if err != nil {
			return fmt.Errorf("insert memory: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			stored, _, err = scanMemory(tx.QueryRowContext(ctx, `SELECT `+memoryColumns+
				` FROM memories m WHERE m.namespace = ? AND m.content_hash = ?`, m.Namespace, m.ContentHash))
			return err
		}
		isNew = true
		seq, err := res.LastInsertId()
		if err != nil {
			return err
		}
		if vec != nil {
			if err := putVector(ctx, tx, seq, vec); err != nil {
				return fmt.Errorf("memory %s: %w", m.ID, err)
			}
		}
		stored, _, err = getMemory(ctx, tx, m.ID)
		return err
	})
	if err != nil {
		return nil, false, err
	}
	return stored, isNew, nil
}

func orNow(t, now time.Time) time.Time {
	if t.IsZero() {
		return now
	}
	return t
}

// GetMemory returns one memory or an error wrapping ErrNotFound.
func (s *DB) GetMemory(ctx context.Context, id string) (*memory.Memory, error) {
	m, _, err := getMemory(ctx, s.db, id)
	return m, err
}

// GetMemories returns the memories that exist among ids, keyed by id.
func (s *DB) GetMemories(ctx context.Context, ids []string) (map[string]*memory.Memory, error) {
	out := make(map[string]*memory.Memory, len(ids))
	visible, vargs := visibleCond(ctx, "m")
	// Stay well below SQLite's limit on bound parameters.
	for start := 0; start < len(ids); start += 500 {
		chunk := ids[start:min(start+500, len(ids))]
		ms, err := queryMemories(ctx, s.db, `SELECT `+memoryColumns+` FROM memories m WHERE m.id IN (`+
			placeholders(len(chunk))+`) AND `+visible, append(anySlice(chunk), vargs...)...)
		if err != nil {
			return nil, fmt.Errorf("read memories: %w", err)
		}
		for _, m := range ms {
			out[m.ID] = m
		}
	}
	return out, nil
}

// TouchMemories sets the access time and increments the access count of the
// memories among ids that exist. It is best effort: behind another process's
// write lock it gives up after BestEffortBusyTimeout with an error, so that the
// read it follows is never held up.
func (s *DB) TouchMemories(ctx context.Context, ids []string, at time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	return s.writeBestEffort(ctx, func(tx *sql.Tx) error {
		for start := 0; start < len(ids); start += 500 {
			chunk := ids[start:min(start+500, len(ids))]
			args := append([]any{formatTime(at)}, anySlice(chunk)...)
			if _, err := tx.ExecContext(ctx, `UPDATE memories SET accessed_at = ?, access_count = access_count + 1
				WHERE id IN (`+placeholders(len(chunk))+`)`, args...); err != nil {
				return fmt.Errorf("touch memories: %w", err)
			}
		}
		return nil
	})
}
