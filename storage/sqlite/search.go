package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/recall-mcp/recall/keywords"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// ftsQuery joins the content words of user text into an FTS5 query, with op
// ("OR" or "AND") between them. Text without a content word (only stop words
// or punctuation) gives "", which callers treat as "no hits".
func ftsQuery(text, op string) string { return keywords.Query(text, op) }

// SearchKeyword ranks memories containing any content word of text by BM25 over
// their content, best first. Hit.Score is the negated bm25() value, so higher
// is better. Filters apply to all matches before the limit, so they never
// starve the result.
//
// BM25 scores every match, and at 100k memories a few common words match tens
// of thousands: 90 ms. So when more than rankWindow memories match, only the
// newest rankWindow of them are ranked, together with every match of the
// query's rarer words wherever they are (see rareTerms): an old memory is
// found by what sets it apart, not by its common words.
//
// The two rankings need nothing of each other. In a long-lived process (recall
// serve) they run at once, on two connections: at 100k memories each takes 4
// to 7 ms, most of the prompt hook's search. A hook's process ranks them one
// after the other: its two cores are busy already (the prompt's record and
// its vector are made beside the search), and a second connection costs it
// the reading of the schema (measured: no faster, 3 ms more CPU at 100k).
func (s *DB) SearchKeyword(ctx context.Context, text string, f memory.Filter, limit int) ([]memory.Hit, error) {
	terms := keywords.Terms(text)
	q := keywords.Match(terms, "OR")
	if q == "" {
		return nil, nil
	}
	oldest, err := s.windowStart(ctx, q)
	if err != nil {
		return nil, err
	}
	if oldest == 0 {
		return s.searchFTS(ctx, q, f, limit)
	}
	var older []memory.Hit
	var olderErr error
	rankOlder := func() { older, olderErr = s.searchRareBefore(ctx, terms, oldest, f, limit) }
	var both sync.WaitGroup
	if s.shortLived {
		rankOlder()
	} else {
		both.Go(rankOlder)
	}
	hits, err := s.searchFTSFrom(ctx, q, oldest, f, limit)
	both.Wait()
	if err != nil {
		return nil, err
	}
	if olderErr != nil {
		return nil, olderErr
	}
	hits = mergeHits(hits, older, limit)
	if len(hits) < limit {
		// The filter kept too few of the window: rank every match after all.
		return s.searchFTS(ctx, q, f, limit)
	}
	return hits, nil
}

// searchRareBefore ranks the matches of the rarer of terms (see rareTerms)
// that are older than the window starting at rowid oldest.
func (s *DB) searchRareBefore(ctx context.Context, terms []keywords.Term, oldest int64, f memory.Filter, limit int) ([]memory.Hit, error) {
	rare, err := s.rareTerms(ctx, terms)
	if err != nil || len(rare) == 0 {
		return nil, err
	}
	return s.searchFTSBefore(ctx, keywords.Match(rare, "OR"), oldest, f, limit)
}

// Bounds of the ranked part of a keyword search (see SearchKeyword).
const (
	rankWindow      = 2000
	rareWordMatches = 5000
)

// windowStart is the rowid of the rankWindow-th newest match of q, or 0 when
// fewer match (then all of them are ranked).
func (s *DB) windowStart(ctx context.Context, q string) (int64, error) {
	var rowid int64
	err := s.db.QueryRowContext(ctx, `SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?
		ORDER BY rowid DESC LIMIT 1 OFFSET ?`, q, rankWindow-1).Scan(&rowid)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("keyword search: %w", err)
	}
	return rowid, nil
}

// rareTerms picks the query's words that search beyond the window: rarest
// first, as many as together are found in at most rareWordMatches memories
// (each is counted up to there, so a common word costs no more than a rare
// one). A bound on each word alone (500, before) missed old memories that
// hold several of the query's words, each in a few thousand memories: in a
// store of 100k memories on one project's subjects the words a question
// shares with its answer are rarely that rare, and keyword search found the
// answer to one question in six (R@10 .167, against .488 when every match is
// ranked; .410 with this bound, at a fraction of that cost: docs/fusion.md).
func (s *DB) rareTerms(ctx context.Context, terms []keywords.Term) ([]keywords.Term, error) {
	counts := make([]int, len(terms))
	for i, t := range terms {
		n, err := s.matchesUpTo(ctx, t.Match(), rareWordMatches+1)
		if err != nil {
			return nil, err
		}
		counts[i] = n
	}
	return rarestWithin(terms, counts, rareWordMatches), nil
}

// matchesUpTo counts the memories matching the FTS5 expression match, up to
// upTo: a common word costs no more to count than a rare one.
func (s *DB) matchesUpTo(ctx context.Context, match string, upTo int) (int, error) {
	s.matchCounts.Add(1)
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM memories_fts
		WHERE memories_fts MATCH ? LIMIT ?)`, match, upTo).Scan(&n); err != nil {
		return 0, fmt.Errorf("keyword search: %w", err)
	}
	return n, nil
}

// rarestWithin returns terms, rarest first, as many as together count at
// most budget (counts[i] is how many memories hold terms[i]).
func rarestWithin(terms []keywords.Term, counts []int, budget int) []keywords.Term {
	order := make([]int, len(terms))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(counts[a], counts[b]) })
	var rare []keywords.Term
	for _, i := range order {
		if budget -= counts[i]; budget < 0 {
			break
		}
		rare = append(rare, terms[i])
	}
	return rare
}

// mergeHits merges two ranked lists by score, each memory once, best first.
func mergeHits(a, b []memory.Hit, limit int) []memory.Hit {
	seen := make(map[string]bool, len(a)+len(b))
	all := make([]memory.Hit, 0, len(a)+len(b))
	for _, h := range append(a, b...) {
		if !seen[h.ID] {
			seen[h.ID] = true
			all = append(all, h)
		}
	}
	slices.SortStableFunc(all, func(x, y memory.Hit) int { return cmp.Compare(y.Score, x.Score) })
	return all[:min(len(all), limit)]
}

// MatchAllKeywords ranks, like SearchKeyword, the memories that contain every
// content word of text.
func (s *DB) MatchAllKeywords(ctx context.Context, text string, f memory.Filter, limit int) ([]memory.Hit, error) {
	return s.searchFTS(ctx, ftsQuery(text, "AND"), f, limit)
}

func (s *DB) searchFTS(ctx context.Context, q string, f memory.Filter, limit int) ([]memory.Hit, error) {
	return s.rankFTS(ctx, q, "", nil, f, limit)
}

// searchFTSFrom ranks the matches of q from rowid from on.
func (s *DB) searchFTSFrom(ctx context.Context, q string, from int64, f memory.Filter, limit int) ([]memory.Hit, error) {
	return s.rankFTS(ctx, q, "memories_fts.rowid >= ? AND ", from, f, limit)
}

// searchFTSBefore ranks the matches of q before rowid before. They are the
// rarer words' matches past the window, up to rareWordMatches, most of them
// far from the best: ranked in two steps in any process (see rankFTS), so
// that only the best few are joined to their rows.
func (s *DB) searchFTSBefore(ctx context.Context, q string, before int64, f memory.Filter, limit int) ([]memory.Hit, error) {
	return s.rankFTSSteps(ctx, q, "memories_fts.rowid < ? AND ", before, f, limit, true)
}

// rankFTS ranks the matches of q by BM25, with an optional rowid condition
// (FTS5 seeks to a rowid range instead of reading every match).
//
// The filter needs each match's row in memories, and in a short-lived process
// (Options.ShortLived: every hook) each of those lookups lands on a page not
// read yet: joining every match of a common word cost most of a prompt hook's
// keyword search. There the best rankPrefilter matches by BM25 alone are joined
// and filtered first. When at least limit of them pass, they are exactly the
// best limit that pass (every match outside them ranks lower); otherwise every
// match is joined, as in a long-lived process, where the pages are read already
// and the first step would only add its cost (2.5 times the time of a warm
// search in one namespace of ten).
func (s *DB) rankFTS(ctx context.Context, q, rowidCond string, rowidArg any, f memory.Filter, limit int) ([]memory.Hit, error) {
	return s.rankFTSSteps(ctx, q, rowidCond, rowidArg, f, limit, s.shortLived || !narrows(f))
}

// narrows tells whether f keeps only a part of the memories (more than the
// superseded and other people's private ones).
func narrows(f memory.Filter) bool {
	return len(f.Namespaces) > 0 || len(f.Types) > 0 || f.MinImportance > 0 || len(f.IDs) > 0 || f.Bounds.Set()
}

// rankFTSSteps is rankFTS, in two steps when twoSteps.
func (s *DB) rankFTSSteps(ctx context.Context, q, rowidCond string, rowidArg any, f memory.Filter, limit int, twoSteps bool) ([]memory.Hit, error) {
	if q == "" {
		return nil, nil
	}
	if limit <= 0 {
		limit = storage.DefaultSearchLimit
	}
	where, args := whereFilter(ctx, f)
	params := []any{q}
	if rowidCond != "" {
		params = append(params, rowidArg)
	}
	if !twoSteps {
		return s.queryRanked(ctx, `SELECT m.id, bm25(memories_fts) AS rank
			FROM memories_fts JOIN memories m ON m.seq = memories_fts.rowid
			WHERE memories_fts MATCH ? AND `+rowidCond+where+`
			ORDER BY rank, m.seq LIMIT ?`, append(append(params, args...), limit)...)
	}
	top := max(rankPrefilter*limit, minRankPrefilter)
	hits, err := s.queryRanked(ctx, `WITH top AS MATERIALIZED (
			SELECT memories_fts.rowid AS seq, bm25(memories_fts) AS rank FROM memories_fts
			WHERE memories_fts MATCH ? AND `+rowidCond+`1
			ORDER BY rank, memories_fts.rowid LIMIT ?
		)
		SELECT m.id, top.rank FROM top JOIN memories m ON m.seq = top.seq
		WHERE `+where+`
		ORDER BY top.rank, m.seq LIMIT ?`, append(append(append(params, top), args...), limit)...)
	if err != nil || len(hits) >= limit {
		return hits, err
	}
	return s.queryRanked(ctx, `SELECT m.id, bm25(memories_fts) AS rank
		FROM memories_fts JOIN memories m ON m.seq = memories_fts.rowid
		WHERE memories_fts MATCH ? AND `+rowidCond+where+`
		ORDER BY rank, m.seq LIMIT ?`, append(append(params, args...), limit)...)
}

// The first step of rankFTS joins the best max(rankPrefilter*limit,
// minRankPrefilter) matches.
const (
	rankPrefilter    = 4
	minRankPrefilter = 100
)

// queryRanked runs a keyword ranking query returning id and BM25 rank.
func (s *DB) queryRanked(ctx context.Context, query string, args ...any) ([]memory.Hit, error) {
	return queryAll(ctx, s, "keyword search", query, args, func(r storage.Row) (memory.Hit, error) {
		var h memory.Hit
		err := r.Scan(&h.ID, &h.Score)
		h.Score = -h.Score
		return h, err
	})
}

// queryAll runs query on the pool and reads each row it finds with read;
// what names the step in its errors.
func queryAll[T any](ctx context.Context, s *DB, what, query string, args []any, read func(r storage.Row) (T, error)) ([]T, error) {
	out, err := storage.QueryAll(ctx, dialect{s.db}, read, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// KeywordCoverage tells, for each of the memories ids that exist, the fraction
// of text's content words it contains (stemmed, any spelling of a code word).
// Text without content words covers nothing. Each word is looked up in the
// index at the memories' rowids only (a literal IN list, which FTS5 seeks to),
// never by reading every memory that holds a common word.
func (s *DB) KeywordCoverage(ctx context.Context, text string, ids []string) (map[string]float64, error) {
	return coverage(ctx, s, "memories_fts", text, ids, func() (map[int64]string, error) { return s.seqsOf(ctx, ids) })
}

// EntryCoverage is KeywordCoverage for journal entries, by entry id.
func (s *DB) EntryCoverage(ctx context.Context, text string, ids []int64) (map[int64]float64, error) {
	return coverage(ctx, s, "journal_fts", text, ids, func() (map[int64]int64, error) {
		rows := make(map[int64]int64, len(ids))
		for _, id := range ids {
			rows[id] = id
		}
		return rows, nil
	})
}

// coverage tells, for each of ids, the fraction of text's content words
// its row of the index fts holds (exactly 1 when every word is there);
// rowsOf maps the rowids of those that exist to their ids.
func coverage[ID comparable](ctx context.Context, s *DB, fts, text string, ids []ID, rowsOf func() (map[int64]ID, error)) (map[ID]float64, error) {
	out := make(map[ID]float64, len(ids))
	terms := keywords.Terms(text)
	if len(ids) == 0 || len(terms) == 0 {
		return out, nil
	}
	idOf, err := rowsOf()
	if err != nil || len(idOf) == 0 {
		return out, err
	}
	counts, err := s.termCounts(ctx, fts, terms, slices.Collect(maps.Keys(idOf)))
	if err != nil {
		return nil, err
	}
	for row, c := range counts {
		out[idOf[row]] = float64(c) / float64(len(terms))
	}
	return out, nil
}

// termCounts counts, for each of rowids of the FTS5 table, how many of terms
// it contains.
//
// Many rowids are filtered by SQLite, not by FTS5 (+rowid): given "rowid IN
// (...)", FTS5 seeks each rowid on its own, setting up its segment readers
// again each time, which for a prompt hook's 50 candidates cost 10 times more
// than reading the term's whole list of rows once (at 10k memories: 1.2-1.7
// ms against 0.1-0.2 ms per term; 4.7 against 1.0 ms even for a word in 90% of
// them). Up to seekRowsUpTo rowids FTS5 seeks them: the few memories that
// can clear the prompt hook's floor, where reading a common word's whole
// list is what costs (at 100k memories, index in one segment: 0.02 against
// 0.47 ms for a word in 8% of them, 0.02 against 0.02 for a rare one).
func (s *DB) termCounts(ctx context.Context, table string, terms []keywords.Term, rowids []int64) (map[int64]int, error) {
	args := make([]any, 1, len(rowids)+1)
	for _, id := range rowids {
		args = append(args, id)
	}
	in := "+rowid IN"
	if len(rowids) <= seekRowsUpTo {
		in = "rowid IN"
	}
	// Prepared once for every term: a hook, a fresh process, compiles each
	// statement it runs.
	stmt, err := s.db.PrepareContext(ctx, `SELECT rowid FROM `+table+` WHERE `+table+` MATCH ? AND `+in+` (`+placeholders(len(rowids))+`)`)
	if err != nil {
		return nil, fmt.Errorf("keyword coverage: %w", err)
	}
	defer stmt.Close()
	counts := make(map[int64]int, len(rowids))
	for _, t := range terms {
		args[0] = t.Match()
		rows, err := stmt.QueryContext(ctx, args...)
		if err != nil {
			return nil, fmt.Errorf("keyword coverage: %w", err)
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, fmt.Errorf("keyword coverage: %w", err)
			}
			counts[id]++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("keyword coverage: %w", err)
		}
	}
	return counts, nil
}

// seekRowsUpTo is the most rowids termCounts has FTS5 seek rather than read
// each term's list of rows.
const seekRowsUpTo = 5

// seqsOf maps the rowids of the memories among ids that exist (and that the
// principal in ctx may see) to their ids.
func (s *DB) seqsOf(ctx context.Context, ids []string) (map[int64]string, error) {
	visible, vargs := visibleCond(ctx, "m")
	rows, err := s.db.QueryContext(ctx, `SELECT m.seq, m.id FROM memories m WHERE m.id IN (`+placeholders(len(ids))+`) AND `+visible,
		append(anySlice(ids), vargs...)...)
	if err != nil {
		return nil, fmt.Errorf("keyword coverage: %w", err)
	}
	defer rows.Close()
	out := make(map[int64]string, len(ids))
	for rows.Next() {
		var seq int64
		var id string
		if err := rows.Scan(&seq, &id); err != nil {
			return nil, fmt.Errorf("keyword coverage: %w", err)
		}
		out[seq] = id
	}
	return out, rows.Err()
}
