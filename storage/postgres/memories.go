package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// params collects the arguments of a statement and names them $1, $2, ...
type params []any

func (p *params) add(v any) string {
	*p = append(*p, v)
	return "$" + strconv.Itoa(len(*p))
}

const memoryColumns = `m.seq, m.id, m.content, m.content_hash, m.memory_type, m.namespace,
	m.importance, m.confidence, m.metadata, m.created_at, m.updated_at, m.accessed_at,
	m.access_count, m.embedding_pending, m.author, m.source`

// scanMemory reads a row selected with memoryColumns; it returns the row's seq too.
func scanMemory(row pgx.Row) (*memory.Memory, int64, error) {
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
	m.CreatedAt, m.UpdatedAt, m.AccessedAt = m.CreatedAt.UTC(), m.UpdatedAt.UTC(), m.AccessedAt.UTC()
	var err error
	if m.Metadata, err = memory.DecodeMetadata(meta); err != nil {
		return nil, 0, fmt.Errorf("memory %s: %w", m.ID, err)
	}
	return &m, seq, nil
}

func queryMemories(ctx context.Context, q querier, query string, args ...any) ([]*memory.Memory, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return storage.ReadAll(rows, func() (*memory.Memory, error) {
		m, _, err := scanMemory(rows)
		return m, err
	})
}

// getMemory reads one memory and its seq, or an error wrapping ErrNotFound.
// forUpdate locks the row until the transaction ends.
func getMemory(ctx context.Context, q querier, id string, forUpdate bool) (*memory.Memory, int64, error) {
	lock := ""
	if forUpdate {
		lock = " FOR UPDATE"
	}
	m, seq, err := scanMemory(q.QueryRow(ctx, `SELECT `+memoryColumns+` FROM memories m WHERE m.id = $1`+lock, id))
	if errors.Is(err, pgx.ErrNoRows) {
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

func orNow(t, now time.Time) time.Time {
	if t.IsZero() {
		return now
	}
	return t
}

// InsertMemory stores m with its vector (or as pending when vec is nil). The
// same content hash in the same namespace returns the stored memory and
// created false: the unique index decides, so two servers storing the same
// text at once store it once.
func (s *DB) InsertMemory(ctx context.Context, m *memory.Memory, vec []float32) (*memory.Memory, bool, error) {
	if m == nil || m.ID == "" {
		return nil, false, memory.Invalidf("memory id", `""`, "a memory id")
	}
	if m.ContentHash == "" {
		m.ContentHash = memory.ContentHash(m.Content)
	}
	if err := memory.CheckWritable(ctx, m.Namespace); err != nil {
		return nil, false, err
	}
	meta, err := memory.EncodeMetadata(m.Metadata)
	if err != nil {
		return nil, false, err
	}
	if vec != nil {
		if err := memory.CheckVector(vec); err != nil {
			return nil, false, err
		}
	}
	if vec != nil && s.dimension.Load() == 0 {
		// A fresh process learns the space once; its stores are then one
		// statement each.
		if sp, err := embeddingSpace(ctx, s.pool); err == nil && sp.Model != "" {
			s.dimension.Store(int64(sp.Dimension))
		}
	}
	if vec == nil || int64(len(vec)) == s.dimension.Load() {
		stored, isNew, err := s.insertMemory(ctx, m, meta, vec)
		return stored, isNew, s.unreachable(err)
	}
	now := time.Now()
	var stored *memory.Memory
	var isNew bool
	var stagedSeq int64
	err = s.writeChanged(ctx, func(tx pgx.Tx) error {
		var seq int64
		err := tx.QueryRow(ctx, `INSERT INTO memories (id, content, content_hash, memory_type,
			namespace, importance, confidence, metadata, created_at, updated_at, accessed_at,
			access_count, embedding_pending, search_words, author, source)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, true, to_tsvector('`+stemmed+`', $13), $14, $15)
			ON CONFLICT (namespace, content_hash) DO NOTHING RETURNING seq`,
			m.ID, m.Content, m.ContentHash, string(m.Type), m.Namespace, m.Importance, m.Confidence,
			meta, orNow(m.CreatedAt, now), orNow(m.UpdatedAt, now), orNow(m.AccessedAt, now), m.AccessCount,
			memoryWords(m.Content), memory.AuthorOr(ctx, m.Author), m.Source).Scan(&seq)
		if isUniqueViolation(err, "") {
			return fmt.Errorf("memory id %q is already taken: %w", m.ID, memory.ErrInvalid)
		}
		if errors.Is(err, pgx.ErrNoRows) {
			stored, _, err = scanMemory(tx.QueryRow(ctx, `SELECT `+memoryColumns+
				` FROM memories m WHERE m.namespace = $1 AND m.content_hash = $2`, m.Namespace, m.ContentHash))
			return err
		}
		if err != nil {
			return fmt.Errorf("insert memory: %w", err)
		}
		isNew = true
		if vec != nil {
			if err := putVector(ctx, tx, seq, vec); err != nil {
				return fmt.Errorf("memory %s: %w", m.ID, err)
			}
			stagedSeq = seq
		}
		stored, _, err = getMemory(ctx, tx, m.ID, false)
		return err
	})
	if err != nil {
		return nil, false, err
	}
	if stagedSeq != 0 {
		s.staged(stagedSeq)
	}
	if vec != nil {
		s.dimension.Store(int64(len(vec)))
	}
	return stored, isNew, nil
}

// insertMemory is InsertMemory in one statement, one round trip: the memory
// with its vector (of the space's dimension; staged for the index) or
// pending. The same
// content in the namespace returns the stored memory.
func (s *DB) insertMemory(ctx context.Context, m *memory.Memory, meta string, vec []float32) (*memory.Memory, bool, error) {
	now := time.Now()
	var embedding any // SQL NULL without a vector
	if vec != nil {
		embedding = vector(vec)
	}
	// The vector is staged, indexed in the background (index.go).
	stored, seq, err := scanMemory(s.pool.QueryRow(ctx, `INSERT INTO memories AS m (id, content, content_hash, memory_type,
		namespace, importance, confidence, metadata, created_at, updated_at, accessed_at,
		access_count, embedding_pending, search_words, author, embedding_staged, source)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $15::vector IS NULL, to_tsvector('`+stemmed+`', $13), $14, $15, $16)
		ON CONFLICT (namespace, content_hash) DO NOTHING RETURNING `+memoryColumns,
		m.ID, m.Content, m.ContentHash, string(m.Type), m.Namespace, m.Importance, m.Confidence,
		meta, orNow(m.CreatedAt, now), orNow(m.UpdatedAt, now), orNow(m.AccessedAt, now), m.AccessCount,
		memoryWords(m.Content), memory.AuthorOr(ctx, m.Author), embedding, m.Source))
	switch {
	case err == nil:
		if vec != nil {
			s.staged(seq)
		}
		s.changed(ctx)
		return stored, true, nil
	case isUniqueViolation(err, ""):
		return nil, false, fmt.Errorf("memory id %q is already taken: %w", m.ID, memory.ErrInvalid)
	case errors.Is(err, pgx.ErrNoRows):
		stored, _, err = scanMemory(s.pool.QueryRow(ctx, `SELECT `+memoryColumns+
			` FROM memories m WHERE m.namespace = $1 AND m.content_hash = $2`, m.Namespace, m.ContentHash))
		if errors.Is(err, pgx.ErrNoRows) {
			// Deleted between the two statements: store it after all.
			return s.insertMemory(ctx, m, meta, vec)
		}
		return stored, false, err
	}
	return nil, false, fmt.Errorf("insert memory: %w", err)
}

// GetMemory returns one memory or an error wrapping ErrNotFound.
func (s *DB) GetMemory(ctx context.Context, id string) (*memory.Memory, error) {
	m, _, err := getMemory(ctx, s.pool, id, false)
	return m, s.unreachable(err)
}

// GetMemories returns the memories that exist among ids, keyed by id.
func (s *DB) GetMemories(ctx context.Context, ids []string) (map[string]*memory.Memory, error) {
	out := make(map[string]*memory.Memory, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	p := params{ids}
	ms, err := queryMemories(ctx, s.pool, `SELECT `+memoryColumns+` FROM memories m WHERE m.id = ANY($1) AND `+visibleCond(ctx, "m", &p),
		append([]any{firstUse}, p...)...)
	if err != nil {
		return nil, fmt.Errorf("read memories: %w", err)
	}
	for _, m := range ms {
		out[m.ID] = m
	}
	return out, nil
}

func (t sharedTx) WriteMemory(ctx context.Context, id string, m *memory.Memory, meta string, contentChanged bool) error {
	_, err := t.tx.Exec(ctx, `UPDATE memories SET content = $1, content_hash = $2, memory_type = $3,
		namespace = $4, importance = $5, confidence = $6, metadata = $7, updated_at = $8, accessed_at = $9,
		access_count = $10, search_words = to_tsvector('`+stemmed+`', $11),
		embedding_pending = embedding_pending OR $12 WHERE id = $13`,
		m.Content, m.ContentHash, string(m.Type), m.Namespace, m.Importance, m.Confidence, meta,
		m.UpdatedAt, m.AccessedAt, m.AccessCount, memoryWords(m.Content), contentChanged, id)
	if isUniqueViolation(err, "memories_namespace_hash") {
		return &memory.DuplicateError{MemoryID: id, Namespace: m.Namespace}
	}
	if err != nil {
		return fmt.Errorf("update memory %s: %w", id, err)
	}
	if contentChanged {
		// The vectors were made from the old text: the memory waits for the
		// background fill to embed it again; the old vector stays searchable
		// until then, as during a reindex.
		if _, err := t.tx.Exec(ctx, `DELETE FROM memory_chunks WHERE seq = (SELECT seq FROM memories WHERE id = $1)`, id); err != nil {
			return fmt.Errorf("update memory %s: %w", id, err)
		}
	}
	return nil
}

// filterColumns are the columns of memories (aliased m) whereFilter reads:
// a query may filter a subquery's rows that carry only these.
const filterColumns = `m.seq, m.id, m.namespace, m.memory_type, m.importance, m.confidence,
	m.created_at, m.author, m.source`

// whereFilter turns a filter into SQL conditions on memories aliased m,
// joined with AND, binding its values in p. An empty filter yields "true".
// It reads filterColumns only.
func whereFilter(ctx context.Context, f memory.Filter, p *params) string {
	var conds []string
	if memory.PrincipalFrom(ctx).Restricted() {
		conds = append(conds, visibleCond(ctx, "m", p))
	}
	if len(f.Namespaces) > 0 {
		conds = append(conds, "m.namespace = ANY("+p.add(f.Namespaces)+")")
	}
	if len(f.Types) > 0 {
		types := make([]string, len(f.Types))
		for i, t := range f.Types {
			types[i] = string(t)
		}
		conds = append(conds, "m.memory_type = ANY("+p.add(types)+")")
	}
	if f.MinImportance > 0 {
		conds = append(conds, "m.importance >= "+p.add(f.MinImportance))
	}
	if f.MinConfidence != nil {
		conds = append(conds, "m.confidence >= "+p.add(*f.MinConfidence))
	}
	if f.MaxConfidence != nil {
		conds = append(conds, "m.confidence <= "+p.add(*f.MaxConfidence))
	}
	if !f.CreatedAfter.IsZero() {
		conds = append(conds, "m.created_at >= "+p.add(f.CreatedAfter))
	}
	if !f.CreatedBefore.IsZero() {
		conds = append(conds, "m.created_at < "+p.add(f.CreatedBefore))
	}
	if len(f.Authors) > 0 {
		conds = append(conds, "m.author = ANY("+p.add(f.Authors)+")")
	}
	if len(f.Sources) > 0 {
		conds = append(conds, "m.source = ANY("+p.add(f.Sources)+")")
	}
	if len(f.IDs) > 0 {
		conds = append(conds, "m.id = ANY("+p.add(f.IDs)+")")
	}
	if !f.IncludeSuperseded {
		conds = append(conds, notSupersededFor(ctx, p))
	}
	if len(conds) == 0 {
		return "true"
	}
	return strings.Join(conds, " AND ")
}

// notSuperseded holds for a memory that no supersedes edge points at.
const notSuperseded = `NOT EXISTS (SELECT 1 FROM edges s WHERE s.target_id = m.id AND s.relation = 'supersedes')`

// notSupersededFor is notSuperseded as the asker in ctx sees it: only a
// memory they may see can supersede one for them, so another person's
// private memory never hides a shared one from the rest of the team.
func notSupersededFor(ctx context.Context, p *params) string {
	if !memory.PrincipalFrom(ctx).Restricted() {
		return notSuperseded
	}
	return `NOT EXISTS (SELECT 1 FROM edges s WHERE s.target_id = m.id AND s.relation = 'supersedes'
		AND EXISTS (SELECT 1 FROM memories sm WHERE sm.id = s.source_id AND ` + visibleCond(ctx, "sm", p) + `))`
}

// ListMemories lists memories by filter, order and page; ties are broken by
// insertion order so pages never overlap.
func (s *DB) ListMemories(ctx context.Context, q memory.ListQuery) ([]*memory.Memory, error) {
	order := q.OrderBy
	if order == "" {
		order = memory.OrderCreatedAt
	}
	if _, err := memory.ParseOrderBy(string(order)); err != nil {
		return nil, err
	}
	dir := "ASC"
	if q.Descending {
		dir = "DESC"
	}
	var p params
	where := whereFilter(ctx, q.Filter, &p)
	limit := "ALL"
	if q.Limit > 0 {
		limit = p.add(q.Limit)
	}
	query := `SELECT ` + memoryColumns + ` FROM memories m WHERE ` + where +
		` ORDER BY m.` + string(order) + ` ` + dir + `, m.seq ` + dir + ` LIMIT ` + limit + ` OFFSET ` + p.add(max(q.Offset, 0))
	ms, err := queryMemories(ctx, s.pool, query, p...)
	if err != nil {
		return nil, fmt.Errorf("list memories: %w", err)
	}
	return ms, nil
}

// CountMemories counts memories by filter.
func (s *DB) CountMemories(ctx context.Context, f memory.Filter) (int, error) {
	var p params
	where := whereFilter(ctx, f, &p)
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM memories m WHERE `+where, p...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count memories: %w", err)
	}
	return n, nil
}

// TouchMemories sets the access time and increments the access count of the
// memories among ids that exist. Best effort: it waits at most a moment for
// rows another transaction holds.
func (s *DB) TouchMemories(ctx context.Context, ids []string, at time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	// One round trip (a batch is one implicit transaction, so the settings
	// hold for the update), committed without waiting for the disk: an
	// access count lost in a crash is no memory lost, and every search
	// waiting on a flush was the price.
	b := &pgx.Batch{}
	b.Queue(`SELECT set_config('lock_timeout', '250ms', true), set_config('synchronous_commit', 'off', true)`)
	b.Queue(`UPDATE memories SET accessed_at = $1, access_count = access_count + 1 WHERE id = ANY($2)`, at, ids)
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return s.unreachable(fmt.Errorf("touch memories: %w", err))
	}
	return nil
}
