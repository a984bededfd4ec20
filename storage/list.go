package storage

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// MemoryColumns are the columns of memories (aliased m) ScanMemory reads.
const MemoryColumns = `m.seq, m.id, m.content, m.content_hash, m.memory_type, m.namespace,
	m.importance, m.confidence, m.metadata, m.created_at, m.updated_at, m.accessed_at,
	m.access_count, m.embedding_pending, m.author, m.source`

// ScanMemory reads a row selected with MemoryColumns through an engine's
// SQL (times in UTC); it returns the row's seq too.
func ScanMemory(row Row) (*memory.Memory, int64, error) {
	var (
		m    memory.Memory
		seq  int64
		typ  string
		meta []byte
	)
	if err := row.Scan(&seq, &m.ID, &m.Content, &m.ContentHash, &typ, &m.Namespace,
		&m.Importance, &m.Confidence, &meta, &m.CreatedAt, &m.UpdatedAt, &m.AccessedAt,
		&m.AccessCount, &m.EmbeddingPending, &m.Author, &m.Source); err != nil {
		return nil, 0, err
	}
	m.Type = memory.Type(typ)
	var err error
	if m.Metadata, err = memory.DecodeMetadata(meta); err != nil {
		return nil, 0, fmt.Errorf("memory %s: %w", m.ID, err)
	}
	return &m, seq, nil
}

// QueryMemories reads the memories a query selecting MemoryColumns finds.
func (s Statements) QueryMemories(ctx context.Context, query string, args ...any) ([]*memory.Memory, error) {
	return QueryAll(ctx, s.SQL, func(r Row) (*memory.Memory, error) {
		m, _, err := ScanMemory(r)
		return m, err
	}, query, args...)
}

// GetMemory reads one memory and its seq, or an error wrapping ErrNotFound
// (also for a memory the principal in ctx may not see). lock ends the
// statement: PostgreSQL's " FOR UPDATE" locks the row until the
// transaction ends; "" for none (SQLite's writer holds the whole database).
func (s Statements) GetMemory(ctx context.Context, id, lock string) (*memory.Memory, int64, error) {
	m, seq, err := ScanMemory(s.SQL.QueryRow(ctx, `SELECT `+MemoryColumns+` FROM memories m WHERE m.id = $1`+lock, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, memory.NotFound("memory", id)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read memory %s: %w", id, err)
	}
	if err := memory.CheckVisible(ctx, m); err != nil {
		return nil, 0, err
	}
	return m, seq, nil
}

// ListMemories lists memories by filter, order and page; ties are broken by
// insertion order so pages never overlap.
func (s Shared) ListMemories(ctx context.Context, q memory.ListQuery) ([]*memory.Memory, error) {
	order := cmp.Or(q.OrderBy, memory.OrderCreatedAt)
	if _, err := memory.ParseOrderBy(string(order)); err != nil {
		return nil, err
	}
	dir := "ASC"
	if q.Descending {
		dir = "DESC"
	}
	limit := int64(math.MaxInt64) // no limit
	if q.Limit > 0 {
		limit = int64(q.Limit)
	}
	var p Params
	query := `SELECT ` + MemoryColumns + ` FROM memories m WHERE ` + WhereFilter(ctx, q.Filter, &p, s.Read.SQL) +
		` ORDER BY m.` + string(order) + ` ` + dir + `, m.seq ` + dir + ` LIMIT ` + p.Add(limit) + ` OFFSET ` + p.Add(max(q.Offset, 0))
	ms, err := s.Read.QueryMemories(ctx, query, p...)
	if err != nil {
		return nil, fmt.Errorf("list memories: %w", err)
	}
	return ms, nil
}

// CountMemories counts memories by filter.
func (s Shared) CountMemories(ctx context.Context, f memory.Filter) (int, error) {
	var p Params
	var n int
	if err := s.Read.SQL.QueryRow(ctx, `SELECT count(*) FROM memories m WHERE `+WhereFilter(ctx, f, &p, s.Read.SQL), p...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count memories: %w", err)
	}
	return n, nil
}

// WriteMemory writes m's changed fields over memory id (its metadata encoded
// as meta); when its content changed, its vectors wait to be made again
// (pending; the old vector stays searchable until then, as during a
// reindex) and its parts' vectors go. Another memory of its namespace with
// its content already is a *memory.DuplicateError.
func (s Statements) WriteMemory(ctx context.Context, id string, m *memory.Memory, meta string, contentChanged bool) error {
	p := Params{m.Content, m.ContentHash, string(m.Type), m.Namespace, m.Importance, m.Confidence, meta,
		m.UpdatedAt, m.AccessedAt, m.AccessCount}
	words := s.SQL.SearchWords(m.Content, &p)
	_, err := s.SQL.Exec(ctx, `UPDATE memories SET content = $1, content_hash = $2, memory_type = $3,
		namespace = $4, importance = $5, confidence = $6, metadata = $7, updated_at = $8, accessed_at = $9,
		access_count = $10, search_words = `+words+`, embedding_pending = embedding_pending OR `+p.Add(contentChanged)+`
		WHERE id = `+p.Add(id), p...)
	if s.SQL.Taken(err) {
		return &memory.DuplicateError{MemoryID: id, Namespace: m.Namespace}
	}
	if err != nil {
		return fmt.Errorf("update memory %s: %w", id, err)
	}
	if contentChanged {
		if _, err := s.SQL.Exec(ctx, `DELETE FROM memory_chunks WHERE seq = (SELECT seq FROM memories WHERE id = $1)`, id); err != nil {
			return fmt.Errorf("update memory %s: %w", id, err)
		}
	}
	return nil
}

// InsertImported writes an imported memory (metadata encoded as meta) as it
// comes, pending its vector, unless its id or its content in its namespace
// is stored already (inserted false).
func (s Statements) InsertImported(ctx context.Context, m *memory.Memory, meta string) (inserted bool, err error) {
	p := Params{m.ID, m.Content, m.ContentHash, string(m.Type), m.Namespace, m.Importance, m.Confidence, meta,
		m.CreatedAt, orTime(m.UpdatedAt, m.CreatedAt), orTime(m.AccessedAt, m.CreatedAt), m.AccessCount}
	words := s.SQL.SearchWords(m.Content, &p)
	n, err := s.SQL.Exec(ctx, `INSERT INTO memories (id, content, content_hash, memory_type,
		namespace, importance, confidence, metadata, created_at, updated_at, accessed_at,
		access_count, embedding_pending, search_words, author, source)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, TRUE, `+words+`, `+p.Add(m.Author)+`, `+p.Add(m.Source)+`)
		ON CONFLICT DO NOTHING`, p...)
	return n == 1, err
}

// orTime is t, or fallback when t is unset.
func orTime(t, fallback time.Time) time.Time {
	if t.IsZero() {
		return fallback
	}
	return t
}
