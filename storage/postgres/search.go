package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/keywords"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// rankNormalization is ts_rank's option 1: the rank is divided by 1 + the
// logarithm of the text's length, so a long memory that names a word once
// ranks below a short one about it (as BM25 does on SQLite).
const rankNormalization = "1"

// SearchKeyword ranks memories containing any content word of text, best
// first, as storage.SearchKeyword plans it (the newest matches and the rare
// words' matches); Hit.Score is ts_rank (higher is better).
func (s *DB) SearchKeyword(ctx context.Context, text string, f memory.Filter, limit int) ([]memory.Hit, error) {
	return storage.SearchKeyword(ctx, keywordIndex{s}, text, f, limit)
}

// keywordIndex is search_words' GIN index as storage.SearchKeyword asks it;
// positions are the memories' seq.
type keywordIndex struct{ s *DB }

func (k keywordIndex) NthNewestMatch(ctx context.Context, terms []keywords.Term, n int) (int64, error) {
	var p params
	q := tsQuery(terms, "||", stemmed, &p)
	if q == "" {
		return 0, nil
	}
	var seq int64
	err := k.s.pool.QueryRow(ctx, `SELECT seq FROM memories WHERE search_words @@ (`+q+`)
		ORDER BY seq DESC LIMIT 1 OFFSET `+p.add(n-1), p...).Scan(&seq)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, k.s.unreachable(fmt.Errorf("keyword search: %w", err))
	}
	return seq, nil
}

// MatchesUpTo stops counting at most, so a common word costs no more than a
// rare one.
func (k keywordIndex) MatchesUpTo(ctx context.Context, t keywords.Term, most int) (int, error) {
	var p params
	q := tsQuery([]keywords.Term{t}, "||", stemmed, &p)
	if q == "" {
		return most, nil // no word the index holds: never a rare one
	}
	var n int
	if err := k.s.pool.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM memories WHERE search_words @@ (`+q+`)
		LIMIT `+p.add(most)+`) c`, p...).Scan(&n); err != nil {
		return 0, k.s.unreachable(fmt.Errorf("keyword search: %w", err))
	}
	return n, nil
}

func (k keywordIndex) RankMatches(ctx context.Context, terms []keywords.Term, span storage.Span, f memory.Filter, limit int) ([]memory.Hit, error) {
	switch {
	case span.From > 0:
		return k.s.rankKeywords(ctx, terms, "||", ">=", span.From, f, limit)
	case span.Before > 0:
		return k.s.rankKeywords(ctx, terms, "||", "<", span.Before, f, limit)
	}
	return k.s.rankKeywords(ctx, terms, "||", "", 0, f, limit)
}

// MatchAllKeywords ranks, like SearchKeyword, the memories that contain every
// content word of text.
func (s *DB) MatchAllKeywords(ctx context.Context, text string, f memory.Filter, limit int) ([]memory.Hit, error) {
	return s.rankKeywords(ctx, keywords.Terms(text), "&&", "", 0, f, limit)
}

// rankKeywords runs the keyword query: the GIN index finds the matches, the
// filter narrows them, ts_rank orders them. With seqOp (">=" or "<") only the
// matches whose seq is so to seq are ranked.
func (s *DB) rankKeywords(ctx context.Context, terms []keywords.Term, op, seqOp string, seq int64, f memory.Filter, limit int) ([]memory.Hit, error) {
	if limit <= 0 {
		limit = storage.DefaultSearchLimit
	}
	query, p := keywordSQL(ctx, terms, op, seqOp, seq, f, limit)
	if query == "" {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, query, p...)
	if err != nil {
		return nil, s.unreachable(fmt.Errorf("keyword search: %w", err))
	}
	hits, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (memory.Hit, error) {
		var h memory.Hit
		var rank float32
		err := row.Scan(&h.ID, &rank)
		h.Score = float64(rank)
		return h, err
	})
	if err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	return hits, nil
}

// keywordSQL is the keyword query: the GIN index finds the matches, the
// filter narrows them, ts_rank orders them. "" when terms is empty.
func keywordSQL(ctx context.Context, terms []keywords.Term, op, seqOp string, seq int64, f memory.Filter, limit int) (string, params) {
	var p params
	q := tsQuery(terms, op, stemmed, &p)
	if q == "" {
		return "", nil
	}
	where := whereFilter(ctx, f, &p)
	if seqOp != "" {
		where = "m.seq " + seqOp + " " + p.add(seq) + " AND " + where
	}
	return `SELECT m.id, ts_rank(m.search_words, ` + q + `, ` + rankNormalization + `) AS rank
		FROM memories m WHERE m.search_words @@ (` + q + `) AND ` + where + `
		ORDER BY rank DESC, m.seq LIMIT ` + p.add(limit), p
}

// KeywordCoverage tells, for each of the memories ids that exist, the fraction
// of text's content words it contains.
func (s *DB) KeywordCoverage(ctx context.Context, text string, ids []string) (map[string]float64, error) {
	out := make(map[string]float64, len(ids))
	terms := keywords.Terms(text)
	if len(ids) == 0 || len(terms) == 0 {
		return out, nil
	}
	// One row per memory: how many of the terms' queries it matches.
	p := params{ids}
	var sum []string
	for _, t := range terms {
		q := tsQuery([]keywords.Term{t}, "||", stemmed, &p)
		sum = append(sum, "(m.search_words @@ ("+q+"))::int")
	}
	visible := visibleCond(ctx, "m", &p)
	rows, err := s.pool.Query(ctx, `SELECT m.id, `+joinPlus(sum)+` FROM memories m WHERE m.id = ANY($1) AND `+visible, p...)
	if err != nil {
		return nil, fmt.Errorf("keyword coverage: %w", err)
	}
	defer rows.Close()
	if err := storage.ReadCoverage(rows, len(terms), out); err != nil {
		return nil, fmt.Errorf("keyword coverage: %w", err)
	}
	return out, nil
}

func joinPlus(xs []string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += " + "
		}
		out += x
	}
	return out
}

// SearchVector ranks memories by cosine distance to vec, best first, with
// Hit.Score = 1 - distance. Before any vector is stored it returns no hits; a
// vector of another dimension than the stored ones wraps ErrEmbeddingMismatch.
//
// The query is shaped for the HNSW index (ORDER BY the distance operator on
// the column, a LIMIT), which the planner otherwise passes over for a
// sequential scan at 10k rows. A filter is checked as the index walks, and
// the iterative scan (pgvector 0.8) keeps walking until k memories pass it;
// when a selective filter still leaves fewer, the few that pass are ranked
// exactly.
func (s *DB) SearchVector(ctx context.Context, vec []float32, f memory.Filter, limit int) ([]memory.Hit, error) {
	sp, err := embeddingSpace(ctx, s.pool)
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	limit, ok, err := storage.VectorQuery(sp, vec, limit)
	if !ok || err != nil {
		return nil, err
	}
	if len(f.IDs) > 0 {
		return s.vectorQuery(ctx, vec, f, limit, true)
	}
	hits, err := s.vectorQuery(ctx, vec, f, limit, false)
	if err != nil || len(hits) == limit || !narrowed(f) {
		return hits, err
	}
	return s.vectorQuery(ctx, vec, f, limit, true)
}

// narrowed tells whether f leaves out some memories with vectors.
func narrowed(f memory.Filter) bool {
	return len(f.Namespaces) > 0 || len(f.Types) > 0 || f.MinImportance > 0 || !f.IncludeSuperseded || f.Bounds.Set() || len(f.IDs) > 0
}

// vectorQuery runs one nearest-neighbour query: by the HNSW index, or exact
// (every memory that passes the filter scored) when exact is set.
func (s *DB) vectorQuery(ctx context.Context, vec []float32, f memory.Filter, limit int, exact bool) ([]memory.Hit, error) {
	query, p := vectorSQL(ctx, vec, f, limit, exact)
	// One round trip: a batch runs as one implicit transaction, so the
	// settings (local to it) hold for the query after them.
	b := &pgx.Batch{}
	if !exact {
		b.Queue(`SELECT set_config('hnsw.ef_search', $1, true)`, efSearch(limit))
		if s.hasIterative {
			b.Queue(`SELECT set_config('hnsw.iterative_scan', 'strict_order', true)`)
		}
	}
	var hits []memory.Hit
	b.Queue(query, p...).Query(func(rows pgx.Rows) error {
		var err error
		hits, err = collectDistances(rows)
		return err
	})
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, s.unreachable(fmt.Errorf("vector search: %w", err))
	}
	return hits, nil
}

// vectorSQL is the nearest-neighbour query, shaped for the HNSW index (ORDER
// BY the distance operator on the column, a LIMIT) unless exact.
func vectorSQL(ctx context.Context, vec []float32, f memory.Filter, limit int, exact bool) (string, params) {
	p := params{vector(vec)}
	where := whereFilter(ctx, f, &p)
	order := "m.embedding <=> $1"
	if exact {
		// Not the index's shape: the planner scores the rows that pass.
		order = "(m.embedding <=> $1) + 0"
	}
	return `SELECT m.id, m.embedding <=> $1 AS distance FROM memories m
		WHERE m.embedding IS NOT NULL AND ` + where + `
		ORDER BY ` + order + ` LIMIT ` + p.add(limit), p
}

// tuneIndexScan sets, for the transaction's index scans, how many candidates
// HNSW keeps (at least the limit) and, on pgvector 0.8 and later, that it
// goes on scanning until the filter has passed enough.
func (s *DB) tuneIndexScan(ctx context.Context, tx pgx.Tx, limit int) error {
	if _, err := tx.Exec(ctx, `SELECT set_config('hnsw.ef_search', $1, true)`, efSearch(limit)); err != nil {
		return err
	}
	if ok, err := s.iterativeScan(ctx); err != nil || !ok {
		return err
	}
	_, err := tx.Exec(ctx, `SET LOCAL hnsw.iterative_scan = strict_order`)
	return err
}

// efSearch is how many candidates HNSW keeps for a search of limit: at least
// pgvector's default of 40, twice the limit, at most 1000.
func efSearch(limit int) string { return fmt.Sprint(min(max(limit*2, 40), 1000)) }

// collectDistances reads (id, distance) rows into hits, best first.
func collectDistances(rows pgx.Rows) ([]memory.Hit, error) {
	hits, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (memory.Hit, error) {
		var h memory.Hit
		var d float64
		err := row.Scan(&h.ID, &d)
		h.Score = 1 - d
		return h, err
	})
	slices.SortStableFunc(hits, func(a, b memory.Hit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	return hits, err
}

// SearchChunks ranks memories by the cosine similarity of their best later
// part to vec, best first. Few memories have parts: they are scored exactly.
func (s *DB) SearchChunks(ctx context.Context, vec []float32, f memory.Filter, limit int) ([]memory.Hit, error) {
	sp, err := embeddingSpace(ctx, s.pool)
	if err != nil || sp.Dimension == 0 || len(vec) != sp.Dimension {
		return nil, err
	}
	if limit <= 0 {
		limit = storage.DefaultSearchLimit
	}
	p := params{vector(vec)}
	where := whereFilter(ctx, f, &p)
	rows, err := s.pool.Query(ctx, `SELECT m.id, min(c.embedding <=> $1) AS distance
		FROM memory_chunks c JOIN memories m ON m.seq = c.seq
		WHERE `+where+` GROUP BY m.id ORDER BY distance LIMIT `+p.add(limit), p...)
	if err != nil {
		return nil, fmt.Errorf("chunk search: %w", err)
	}
	hits, err := collectDistances(rows)
	if err != nil {
		return nil, fmt.Errorf("chunk search: %w", err)
	}
	return hits, nil
}
