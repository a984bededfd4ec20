package storage

import (
	"cmp"
	"context"
	"slices"

	"github.com/recall-mcp/recall/keywords"
	"github.com/recall-mcp/recall/memory"
)

// DefaultSearchLimit applies when a search asks for no limit.
const DefaultSearchLimit = 10

// Bounds of the ranked part of a keyword search (see SearchKeyword).
const (
	RankWindow   = 2000
	RareWordDocs = 500
)

// A KeywordIndex is an engine's full-text index of memories, as SearchKeyword
// asks it. Positions are the memories' insertion order (their seq).
type KeywordIndex interface {
	// NthNewestMatch is the position of the n-th newest memory matching any
	// of terms, or 0 when fewer match.
	NthNewestMatch(ctx context.Context, terms []keywords.Term, n int) (int64, error)
	// MatchesUpTo counts the memories matching t, stopping at most.
	MatchesUpTo(ctx context.Context, t keywords.Term, most int) (int, error)
	// RankMatches ranks the memories that match any of terms, pass f and lie
	// in span, best first; higher scores are better.
	RankMatches(ctx context.Context, terms []keywords.Term, span Span, f memory.Filter, limit int) ([]memory.Hit, error)
}

// Span bounds a ranking by position: From (when > 0) and later, before
// Before (when > 0). The zero Span is every memory.
type Span struct{ From, Before int64 }

// SearchKeyword ranks memories containing any content word of text, best
// first. Filters apply to all matches before the limit, so they never starve
// the result.
//
// Ranking scores every match, and at 100k memories a few common words match
// tens of thousands. So when more than RankWindow memories match, only the
// newest RankWindow of them are ranked, together with every match of the
// query's rare words (those in at most RareWordDocs memories) wherever they
// are: an old memory is found by what sets it apart, not by its common words.
func SearchKeyword(ctx context.Context, idx KeywordIndex, text string, f memory.Filter, limit int) ([]memory.Hit, error) {
	terms := keywords.Terms(text)
	if len(terms) == 0 {
		return nil, nil
	}
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	oldest, err := idx.NthNewestMatch(ctx, terms, RankWindow)
	if err != nil {
		return nil, err
	}
	if oldest == 0 {
		return idx.RankMatches(ctx, terms, Span{}, f, limit)
	}
	hits, err := idx.RankMatches(ctx, terms, Span{From: oldest}, f, limit)
	if err != nil {
		return nil, err
	}
	var rare []keywords.Term
	for _, t := range terms {
		n, err := idx.MatchesUpTo(ctx, t, RareWordDocs+1)
		if err != nil {
			return nil, err
		}
		if n <= RareWordDocs {
			rare = append(rare, t)
		}
	}
	if len(rare) > 0 {
		older, err := idx.RankMatches(ctx, rare, Span{Before: oldest}, f, limit)
		if err != nil {
			return nil, err
		}
		hits = mergeHits(hits, older, limit)
	}
	if len(hits) < limit {
		// The filter kept too few of the window: rank every match after all.
		return idx.RankMatches(ctx, terms, Span{}, f, limit)
	}
	return hits, nil
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
