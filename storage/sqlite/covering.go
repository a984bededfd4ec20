package sqlite

import (
	"context"
	"fmt"
	"strings"

	"github.com/recall-mcp/recall/keywords"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

var _ memory.CoveringSearcher = (*DB)(nil)

// maxCoveringSets bounds the FTS5 expression of SearchCovering: one AND for
// each way of picking k of the query's n words (9 words, 6 of them: 84).
const maxCoveringSets = 126

// SearchCovering ranks, like SearchKeyword, only the memories that contain at
// least share of text's content words. The prompt hook asks for them: a
// memory with fewer can never clear its floor.
//
// FTS5 finds them itself, as the memories matching any k of the n words
// ("(a AND b) OR (a AND c) OR ..."), walking each word's list only where the
// rarest of a set leads it: at 100k memories 0.5 ms, where ranking every
// match of the words took 10 ms and SearchKeyword's window (the newest 2000
// matches and the rare words past them) 8 to 11. They are ranked by the BM25
// of SearchKeyword's query (any of the words), so that they come in the
// order SearchKeyword gives them. When so few words must match that more
// than rankWindow memories hold them, or the expression would be too long,
// it is SearchKeyword. It looks for the covering memories whatever the
// number of memories: with the index in one segment (compact.go) that costs
// no more at 1k memories than ranking every match of the words, and the
// prompt hook then judges the few that can clear its floor instead of the
// best 20 of every match (at 1k memories 0.5 ms less).
func (s *DB) SearchCovering(ctx context.Context, text string, share float64, f memory.Filter, limit int) ([]memory.Hit, error) {
	terms := keywords.Terms(text)
	k := wordsToCover(len(terms), share)
	if k <= 1 || k > len(terms) || binomial(len(terms), k) > maxCoveringSets {
		return s.SearchKeyword(ctx, text, f, limit)
	}
	q := keywords.Match(terms, "OR")
	covering := coveringMatch(terms, k)
	few, err := s.fewMemories(ctx)
	if err != nil {
		return nil, err
	}
	if !few {
		n, err := s.matchesUpTo(ctx, covering, rankWindow+1)
		if err != nil {
			return nil, err
		}
		if n > rankWindow {
			return s.SearchKeyword(ctx, text, f, limit)
		}
		if n == 0 {
			return nil, nil
		}
	}
	if limit <= 0 {
		limit = storage.DefaultSearchLimit
	}
	// +rowid: SQLite filters the ranked matches by the covering ones; given
	// "rowid IN", FTS5 would seek each of them on its own (see termCounts).
	where, args := whereFilter(ctx, f)
	return s.queryRanked(ctx, `SELECT m.id, bm25(memories_fts) AS rank
		FROM memories_fts JOIN memories m ON m.seq = memories_fts.rowid
		WHERE memories_fts MATCH ? AND +memories_fts.rowid IN (SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?) AND `+where+`
		ORDER BY rank, m.seq LIMIT ?`, append(append([]any{q, covering}, args...), limit)...)
}

// wordsToCover is the least number of n words whose share is at least
// share, compared as KeywordCoverage's fractions are.
func wordsToCover(n int, share float64) int {
	k := 1
	for k <= n && float64(k)/float64(n) < share {
		k++
	}
	return k
}

// coveringMatch is the FTS5 expression matching the texts that contain at
// least k of terms.
func coveringMatch(terms []keywords.Term, k int) string {
	var sets []string
	pick := make([]string, 0, k)
	var choose func(from int)
	choose = func(from int) {
		if len(pick) == k {
			sets = append(sets, "("+strings.Join(pick, " AND ")+")")
			return
		}
		for i := from; i <= len(terms)-(k-len(pick)); i++ {
			pick = append(pick, terms[i].Match())
			choose(i + 1)
			pick = pick[:len(pick)-1]
		}
	}
	choose(0)
	return strings.Join(sets, " OR ")
}

// binomial is the number of ways of picking k of n.
func binomial(n, k int) int {
	r := 1
	for i := 1; i <= k; i++ {
		r = r * (n - k + i) / i
	}
	return r
}

// fewMemories reports whether the store holds rankWindow memories at most:
// their seqs, which are their rowids in the keyword index, are never reused,
// so the last one bounds their number, and no expression can match more.
// SearchCovering then ranks the covering matches without counting them
// first: the count walks the covering expression once more, and most stores
// are that small (at 1k memories the count was 0.3-0.4 ms of a prompt hook's
// process).
func (s *DB) fewMemories(ctx context.Context) (bool, error) {
	var last int64
	if err := s.db.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM memories`).Scan(&last); err != nil {
		return false, fmt.Errorf("keyword search: %w", err)
	}
	return last <= rankWindow, nil
}
