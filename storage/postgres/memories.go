package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
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

const memoryColumns = storage.MemoryColumns

// scanMemory reads a row selected with memoryColumns; it returns the row's seq too.
func scanMemory(r pgx.Row) (*memory.Memory, int64, error) { return storage.ScanMemory(row{r}) }

// queryMemories reads the memories a query selecting memoryColumns finds.
func queryMemories(ctx context.Context, q querier, query string, args ...any) ([]*memory.Memory, error) {
	return statements(q).QueryMemories(ctx, query, args...)
}

// getMemory reads one memory and its seq, or an error wrapping ErrNotFound.
// forUpdate locks the row until the transaction ends.
func getMemory(ctx context.Context, q querier, id string, forUpdate bool) (*memory.Memory, int64, error) {
	lock := ""
	if forUpdate {
		lock = " FOR UPDATE"
	}
	return statements(q).GetMemory(ctx, id, lock)
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

// filterColumns are the columns of memories (aliased m) whereFilter reads:
// a query may filter a subquery's rows that carry only these.
const filterColumns = `m.seq, m.id, m.namespace, m.memory_type, m.importance, m.confidence,
	m.created_at, m.author, m.source`

// whereFilter is storage.WhereFilter (it reads filterColumns only).
func whereFilter(ctx context.Context, f memory.Filter, p *params) string {
	return storage.WhereFilter(ctx, f, (*storage.Params)(p), dialect{})
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
