package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/keywords"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// defaultSearchLimit applies when a search asks for no limit.
const defaultSearchLimit = 10

// rankNormalization is ts_rank's option 1: the rank is divided by 1 + the
// logarithm of the text's length, so a long memory that names a word once
// ranks below a short one about it (as BM25 does on SQLite).
const rankNormalization = "1"

// SearchKeyword ranks memories containing any content word of text, best
// first; Hit.Score is ts_rank (higher is better). Filters apply before the
// limit, so they never starve the result.
//
// ts_rank reads every match's words, and at 100k memories a few common words
// match half of them (hundreds of milliseconds). So, as on SQLite, when more
// than rankWindow memories match, only the newest rankWindow of them are
// ranked, together with every match of the query's rarest words, as many of
// them as together match at most rareWordMatches memories, wherever they
// are: an old memory is found by what sets it apart, not by its common
// words.
//
// The two rankings need nothing of each other (see rareKeywordSQL): in a
// process that lives on (rankApart) they run at once, on two connections,
// the window's statement then small enough to plan at once, where
// planning the rare words' took a sixth of the whole search at 100k
// memories. A fresh process (a hook, a CLI call) runs them as one
// statement, in one round trip: a second connection would cost it a
// backend start on the server, more than it saves. Run apart, each
// statement reads its own snapshot: a memory stored between the two is at
// most ranked twice and kept once, and one deleted at the very end of the
// window may move where the rare words' statement thinks it ends by one.
func (s *DB) SearchKeyword(ctx context.Context, text string, f memory.Filter, limit int) ([]memory.Hit, error) {
	return s.searchKeyword(ctx, text, f, limit, s.rankApart(ctx))
}

// rankApart tells whether a keyword search runs its two rankings at once:
// when the pool has connections idle for both (a process that searched
// its two sides at once before: a hybrid search), or the process has
// lived longer than a hook or a CLI call does (a server, which opens the
// second connection once and keeps it); never beside a vector search,
// which takes the server's other core (on 2 cores, a third statement at
// once made a hybrid search in a namespace 2 ms slower).
func (s *DB) rankApart(ctx context.Context) bool {
	if memory.KeywordBesideVector(ctx) {
		return false
	}
	return s.pool.Stat().IdleConns() >= 2 || time.Since(s.opened) > 3*time.Second
}

// searchKeyword is SearchKeyword, its two rankings at once (apart) or in
// one statement.
func (s *DB) searchKeyword(ctx context.Context, text string, f memory.Filter, limit int, apart bool) ([]memory.Hit, error) {
	if limit <= 0 {
		limit = defaultSearchLimit
	}
	terms := keywords.Terms(text)
	query, p := rareKeywordSQL(ctx, terms, f, limit, !apart)
	if query == "" {
		return nil, nil
	}
	var window []rankedHit
	var windowErr error
	var both sync.WaitGroup
	if apart {
		both.Go(func() {
			q, p := keywordWindowSQL(ctx, terms, f, limit)
			window, windowErr = s.rankedHits(ctx, q, p)
		})
	}
	var windowed, commonStale bool
	rare, err := s.rankedHits(ctx, query, p, &windowed, &commonStale)
	both.Wait()
	if commonStale {
		s.refreshCommonWordsLater()
	}
	if err == nil {
		err = windowErr
	}
	if err != nil {
		return nil, err
	}
	hits := mergeRanked(window, rare, limit)
	if len(hits) == limit || len(hits) > 0 && !windowed {
		return hits, nil
	}
	// The filter kept too few of the window: rank every match.
	return s.rankKeywords(ctx, terms, "||", f, limit)
}

// Bounds of the ranked part of a keyword search (see SearchKeyword): the
// SQLite store's.
const (
	rankWindow      = 2000
	rareWordMatches = 5000
)

// termQueries are the tsquery expressions of terms, one per term that has
// any (see tsQuery), their forms bound in p.
func termQueries(terms []keywords.Term, p *params) []string {
	var each []string
	for _, t := range terms {
		if q := tsQuery([]keywords.Term{t}, "||", stemmed, p); q != "" {
			each = append(each, q)
		}
	}
	return each
}

// keywordWindowSQL is the statement ranking SearchKeyword's window alone:
// the newest rankWindow matches, filtered, the best limit of them as
// (seq, id, rank) rows. "" when terms is empty.
func keywordWindowSQL(ctx context.Context, terms []keywords.Term, f memory.Filter, limit int) (string, params) {
	var p params
	each := termQueries(terms, &p)
	if len(each) == 0 {
		return "", nil
	}
	all := strings.Join(each, " || ")
	return windowRanking(all, whereFilter(ctx, f, &p), p.add(rankWindow), p.add(limit)), p
}

// windowRanking ranks the newest window matches of the tsquery all that
// pass the condition where, as (seq, id, rank) rows, the best limit of
// them. The window is read once, by the scan that finds it, and ranked as
// it is read: kept aside for a second look (a materialized CTE), it cost a
// third of the statement at 100k memories.
func windowRanking(all, where, window, limit string) string {
	return `SELECT m.seq, m.id, ` + rankSQL(all) + ` AS rank
		FROM (SELECT ` + filterColumns + `, m.search_words FROM memories m
			WHERE m.search_words @@ (` + all + `) ORDER BY m.seq DESC LIMIT ` + window + `) m
		WHERE ` + where + ` ORDER BY rank DESC, m.seq LIMIT ` + limit
}

// rankSQL is the rank of memories m against the tsquery all.
func rankSQL(all string) string {
	return `ts_rank(m.search_words, ` + all + `, ` + rankNormalization + `)`
}

// rareKeywordSQL is the statement ranking the rest of SearchKeyword's
// candidates: when the window is in force, the matches of the query's
// rarest terms older than the window. Each term's matches are counted up
// to rareWordMatches+1 (so a common word costs no more than that; a word
// the table's statistics know to be in more than twice that many, as last
// recorded (common_words.go), is not counted at all), and terms are taken
// from the rarest on while their matches together stay within
// rareWordMatches. With withWindow it ranks the window too (see
// windowRanking), in the same statement. Rows are (seq, id, rank) of the
// best limit candidates, each row also telling whether the window was in
// force and whether the record of common words is due for a refresh; one
// row of NULL candidate when there is none. "" when terms is empty.
//
// Whether the window is in force, and where it ends, come from the
// terms' counts, not from the window: it is when a term is common or past
// its count, or else when the terms' matches (then all of them, known)
// number rankWindow or more, the oldest of the newest rankWindow of them
// marking where the window ends. Every candidate is ranked against the
// whole query, old and new on one scale. A memory both the window and the
// rare terms hold (only when a common or much-matched term hides where
// the window ends) is ranked twice, the same, and kept once (mergeRanked).
func rareKeywordSQL(ctx context.Context, terms []keywords.Term, f memory.Filter, limit int, withWindow bool) (string, params) {
	var p params
	each := termQueries(terms, &p)
	if len(each) == 0 {
		return "", nil
	}
	all := strings.Join(each, " || ")
	window, budget := p.add(rankWindow), p.add(rareWordMatches)
	// The words too common to count (common_words.go).
	ctes := []string{`common AS MATERIALIZED (` + commonWordsSQL + `)`}
	var counts, matched, older []string
	for i, q := range each {
		name := fmt.Sprintf("term%d", i)
		ctes = append(ctes, name+` AS MATERIALIZED (SELECT seq, ctid FROM memories WHERE search_words @@ (`+q+`)
			AND querytree(`+q+`) NOT IN (SELECT lexeme FROM common) LIMIT `+budget+` + 1)`)
		counts = append(counts, fmt.Sprintf(`SELECT %d AS term, count(*) AS n, querytree(%s) IN (SELECT lexeme FROM common) AS common FROM %s`, i, q, name))
		matched = append(matched, `SELECT seq FROM `+name)
		older = append(older, fmt.Sprintf(`SELECT seq, ctid FROM %s WHERE %d IN (SELECT term FROM rarest)`, name, i))
	}
	ctes = append(ctes,
		`counts AS MATERIALIZED (`+strings.Join(counts, "\nUNION ALL ")+`)`,
		// Whether every match is among the terms' (none common, none past
		// its count), and then where the window ends, if it is in force.
		`complete AS MATERIALIZED (SELECT NOT EXISTS (SELECT 1 FROM counts WHERE common OR n > `+budget+`) AS known)`,
		`windowed AS MATERIALIZED (SELECT oldest IS NOT NULL OR NOT (SELECT known FROM complete) AS reached, oldest
			FROM (SELECT CASE WHEN (SELECT known FROM complete) THEN (SELECT seq FROM (`+strings.Join(matched, " UNION ")+`) u
				ORDER BY seq DESC OFFSET `+window+` - 1 LIMIT 1) END AS oldest) w)`,
		`rarest AS MATERIALIZED (SELECT term FROM (SELECT term, sum(n) OVER (ORDER BY n, term) AS total
			FROM counts WHERE NOT common) t WHERE total <= `+budget+` AND (SELECT reached FROM windowed))`)
	where := whereFilter(ctx, f, &p)
	k := p.add(limit)
	// The older matches are read again by their tuple ids (the versions
	// the counts saw, this statement's): by the primary key, each was a
	// walk down its index, a quarter of the statement at 100k memories.
	candidates := `SELECT m.seq, m.id, ` + rankSQL(all) + ` AS rank FROM memories m
		WHERE m.ctid = ANY (ARRAY(SELECT ctid FROM (` + strings.Join(older, "\nUNION ALL\n") + `) o
			WHERE (SELECT oldest FROM windowed) IS NULL OR seq < (SELECT oldest FROM windowed))) AND ` + where + `
		ORDER BY rank DESC, m.seq LIMIT ` + k
	if withWindow {
		candidates = `SELECT * FROM ((` + windowRanking(all, where, window, k) + `)
			UNION (` + candidates + `)) c ORDER BY rank DESC, seq LIMIT ` + k
	}
	return `WITH ` + strings.Join(ctes, ",\n") + `
		SELECT c.seq, c.id, c.rank, f.reached, f.stale
		FROM (SELECT (SELECT reached FROM windowed) AS reached, ` + commonWordsStaleSQL + ` AS stale) f
		LEFT JOIN (` + candidates + `) c ON true`, p
}

// rankedHit is a ranked memory with its seq, which breaks ties of rank.
type rankedHit struct {
	seq  int64
	id   string
	rank float32
}

// rankedHits runs a statement of rankedHit rows (NULL ones skipped),
// scanning the columns after them into more (each row's: the same in every
// row).
//
// It is planned afresh for each search, in one round trip (an unnamed
// statement, its parameters' types taken from their Go types). A cached
// prepared statement goes over to PostgreSQL's generic plan after five
// runs, and the generic plan no longer reads the newest matches by the
// primary key: at 100k memories keyword search took 66 ms instead of 24.
func (s *DB) rankedHits(ctx context.Context, query string, p params, more ...any) ([]rankedHit, error) {
	rows, err := s.pool.Query(ctx, query, append([]any{pgx.QueryExecModeExec}, p...)...)
	if err != nil {
		return nil, s.unreachable(fmt.Errorf("keyword search: %w", err))
	}
	var out []rankedHit
	var seq *int64
	var id *string
	var rank *float32
	_, err = pgx.ForEachRow(rows, append([]any{&seq, &id, &rank}, more...), func() error {
		if seq != nil {
			out = append(out, rankedHit{*seq, *id, *rank})
		}
		return nil
	})
	if err != nil {
		return nil, s.unreachable(fmt.Errorf("keyword search: %w", err))
	}
	return out, nil
}

// mergeRanked is the best limit of a and b, each best first, as hits: by
// rank, then the older first; a memory in both (ranked the same) is kept
// once.
func mergeRanked(a, b []rankedHit, limit int) []memory.Hit {
	all := append(slices.Clip(a), b...)
	slices.SortFunc(all, func(x, y rankedHit) int {
		if c := cmp.Compare(y.rank, x.rank); c != 0 {
			return c
		}
		return cmp.Compare(x.seq, y.seq)
	})
	all = slices.CompactFunc(all, func(x, y rankedHit) bool { return x.seq == y.seq })
	hits := make([]memory.Hit, 0, min(limit, len(all)))
	for _, h := range all[:min(limit, len(all))] {
		hits = append(hits, memory.Hit{ID: h.id, Score: float64(h.rank)})
	}
	return hits
}

// MatchAllKeywords ranks, like SearchKeyword, the memories that contain every
// content word of text.
func (s *DB) MatchAllKeywords(ctx context.Context, text string, f memory.Filter, limit int) ([]memory.Hit, error) {
	return s.rankKeywords(ctx, keywords.Terms(text), "&&", f, limit)
}

// rankKeywords ranks every match of terms joined by op (see keywordSQL).
func (s *DB) rankKeywords(ctx context.Context, terms []keywords.Term, op string, f memory.Filter, limit int) ([]memory.Hit, error) {
	if limit <= 0 {
		limit = defaultSearchLimit
	}
	query, p := keywordSQL(ctx, terms, op, f, limit)
	if query == "" {
		return nil, nil
	}
	ranked, err := s.rankedHits(ctx, query, p)
	return mergeRanked(ranked, nil, limit), err
}

// keywordSQL is the keyword query ranking every match: the GIN index finds
// the matches, the filter narrows them, ts_rank orders them. "" when terms
// is empty.
func keywordSQL(ctx context.Context, terms []keywords.Term, op string, f memory.Filter, limit int) (string, params) {
	var p params
	q := tsQuery(terms, op, stemmed, &p)
	if q == "" {
		return "", nil
	}
	where := whereFilter(ctx, f, &p)
	return `SELECT m.seq, m.id, ` + rankSQL(q) + ` AS rank
		FROM memories m WHERE m.search_words @@ (` + q + `) AND ` + where + `
		ORDER BY rank DESC, m.seq LIMIT ` + p.add(limit), p
}

// KeywordCoverage tells, for each of the memories ids that exist, the fraction
// of text's content words it contains.
func (s *DB) KeywordCoverage(ctx context.Context, text string, ids []string) (map[string]float64, error) {
	return coverage(ctx, s, "keyword coverage", text, "memories", ids, func(p *params) string { return " AND " + visibleCond(ctx, "m", p) })
}

// coverage (what, for errors) tells, for each row of table among ids (those cond, its SQL on
// the row aliased m, lets through), the fraction of text's content words its
// search words contain: one row each, with how many of the terms' queries
// it matches.
func coverage[ID comparable](ctx context.Context, s *DB, what, text, table string, ids []ID, cond func(p *params) string) (map[ID]float64, error) {
	out := make(map[ID]float64, len(ids))
	terms := keywords.Terms(text)
	if len(ids) == 0 || len(terms) == 0 {
		return out, nil
	}
	p := params{ids}
	var sum []string
	for _, t := range terms {
		sum = append(sum, "(m.search_words @@ ("+tsQuery([]keywords.Term{t}, "||", stemmed, &p)+"))::int")
	}
	where := `m.id = ANY($1)`
	if cond != nil {
		where += cond(&p)
	}
	rows, err := s.pool.Query(ctx, `SELECT m.id, `+strings.Join(sum, " + ")+` FROM `+table+` m WHERE `+where, p...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	if err := storage.ReadCoverage(rows, len(terms), out); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
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
	hits, err := s.searchVector(ctx, vec, f, limit)
	if errors.Is(err, errSpaceChanged) {
		// Another process changed the space since this one saw it (a
		// reindex): look at it again.
		hits, err = s.searchVector(ctx, vec, f, limit)
	}
	return hits, err
}

// errSpaceChanged: the stored vectors' dimension was not the one the search
// was made for.
var errSpaceChanged = fmt.Errorf("the stored vectors changed dimension during the search; search again: %w", memory.ErrEmbeddingMismatch)

// searchVector is SearchVector with the dimension this process last saw
// (read when it has seen none, or the query's differs), checked in the
// query's own round trip (vectorQuery).
func (s *DB) searchVector(ctx context.Context, vec []float32, f memory.Filter, limit int) ([]memory.Hit, error) {
	sp := memory.EmbeddingSpace{Dimension: int(s.dimension.Load())}
	if sp.Dimension == 0 || sp.Dimension != len(vec) {
		var err error
		if sp, err = s.EmbeddingSpace(ctx); err != nil {
			return nil, fmt.Errorf("vector search: %w", err)
		}
	}
	limit, ok, err := storage.VectorQuery(sp, vec, limit)
	if err != nil || !ok {
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
	// settings (local to it) hold for the query after them. With them the
	// stored dimension is read, which the search took as known.
	settings := []string{`(SELECT value FROM meta WHERE key = '` + metaEmbedDim + `')`}
	if !exact {
		settings = append(settings, `set_config('hnsw.ef_search', '`+efSearch(limit)+`', true)`)
		if s.hasIterative {
			settings = append(settings, `set_config('hnsw.iterative_scan', 'strict_order', true)`)
		}
	}
	b := &pgx.Batch{}
	var dim *string
	b.Queue(`SELECT ` + strings.Join(settings, ", ")).QueryRow(func(row pgx.Row) error {
		dest := []any{&dim}
		for range settings[1:] {
			dest = append(dest, new(string))
		}
		return row.Scan(dest...)
	})
	var hits []memory.Hit
	b.Queue(query, p...).Query(func(rows pgx.Rows) error {
		var err error
		hits, err = collectDistances(rows)
		return err
	})
	err := s.pool.SendBatch(ctx, b).Close()
	if err != nil && dim == nil {
		return nil, s.unreachable(fmt.Errorf("vector search: %w", err))
	}
	if dim == nil || *dim != strconv.Itoa(len(vec)) {
		s.dimension.Store(0)
		return nil, errSpaceChanged
	}
	if err != nil {
		return nil, s.unreachable(fmt.Errorf("vector search: %w", err))
	}
	return hits, nil
}

// vectorSQL is the nearest-neighbour query, shaped for the HNSW index (ORDER
// BY the distance operator on the column, a LIMIT) unless exact. The vectors
// stored but not indexed yet (index.go) are ranked exactly beside it: few,
// found by their own small index (as an array of seqs, so that the planner
// never scans the table for them, whatever it guesses of their number).
func vectorSQL(ctx context.Context, vec []float32, f memory.Filter, limit int, exact bool) (string, params) {
	p := params{vector(vec)}
	where := whereFilter(ctx, f, &p)
	k := p.add(limit)
	order := "m.embedding <=> $1"
	if exact {
		// Not the index's shape: the planner scores the rows that pass.
		order = "(m.embedding <=> $1) + 0"
	}
	return `(SELECT m.id, m.embedding <=> $1 AS distance FROM memories m
		WHERE m.embedding IS NOT NULL AND ` + where + `
		ORDER BY ` + order + ` LIMIT ` + k + `)
		UNION ALL
		(SELECT m.id, m.embedding_staged <=> $1 FROM memories m
		WHERE m.seq = ANY (ARRAY(SELECT seq FROM memories WHERE embedding_staged IS NOT NULL))
			AND m.embedding_staged IS NOT NULL AND vector_dims(m.embedding_staged) = vector_dims($1) AND ` + where + `
		ORDER BY 2 LIMIT ` + k + `)
		ORDER BY distance LIMIT ` + k, p
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
	if len(vec) == 0 {
		return nil, nil
	}
	if limit <= 0 {
		limit = defaultSearchLimit
	}
	// Parts of another dimension than the query's (another space) are
	// passed over in the query itself: no round trip to read the space.
	p := params{vector(vec)}
	where := whereFilter(ctx, f, &p)
	rows, err := s.pool.Query(ctx, `SELECT m.id, min(c.embedding <=> $1) AS distance
		FROM memory_chunks c JOIN memories m ON m.seq = c.seq
		WHERE vector_dims(c.embedding) = vector_dims($1) AND `+where+` GROUP BY m.id ORDER BY distance LIMIT `+p.add(limit),
		append([]any{firstUse}, p...)...)
	if err != nil {
		return nil, fmt.Errorf("chunk search: %w", err)
	}
	hits, err := collectDistances(rows)
	if err != nil {
		return nil, fmt.Errorf("chunk search: %w", err)
	}
	return hits, nil
}
