package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/recall-mcp/recall/memory"
)

// defaultSearchLimit applies when a search asks for no limit.
const defaultSearchLimit = 10

// ftsTerm renders one query term as an FTS5 expression: each form a quoted
// phrase, the forms ORed. Forms are lower-case words and spaces only, but
// quotes are still doubled, so user text can never become FTS5 syntax.
func ftsTerm(t memory.Term) string {
	forms := make([]string, len(t))
	for i, f := range t {
		forms[i] = `"` + strings.ReplaceAll(f, `"`, `""`) + `"`
	}
	if len(forms) == 1 {
		return forms[0]
	}
	return "(" + strings.Join(forms, " OR ") + ")"
}

// ftsQuery joins the content words of user text into an FTS5 query, with op
// ("OR" or "AND") between them. Text without a content word (only stop words
// or punctuation) gives "", which callers treat as "no hits".
func ftsQuery(text, op string) string {
	terms := memory.QueryTerms(text)
	parts := make([]string, len(terms))
	for i, t := range terms {
		parts[i] = ftsTerm(t)
	}
	return strings.Join(parts, " "+op+" ")
}

// SearchKeyword ranks memories containing any content word of text by BM25 over
// their content, best first. Hit.Score is the negated bm25() value, so higher
// is better. Filters apply to all matches before the limit, so they never
// starve the result.
func (s *DB) SearchKeyword(ctx context.Context, text string, f memory.Filter, limit int) ([]memory.Hit, error) {
	return s.searchFTS(ctx, ftsQuery(text, "OR"), f, limit)
}

// MatchAllKeywords ranks, like SearchKeyword, the memories that contain every
// content word of text.
func (s *DB) MatchAllKeywords(ctx context.Context, text string, f memory.Filter, limit int) ([]memory.Hit, error) {
	return s.searchFTS(ctx, ftsQuery(text, "AND"), f, limit)
}

func (s *DB) searchFTS(ctx context.Context, q string, f memory.Filter, limit int) ([]memory.Hit, error) {
	if q == "" {
		return nil, nil
	}
	if limit <= 0 {
		limit = defaultSearchLimit
	}
	where, args := whereFilter(f)
	rows, err := s.db.QueryContext(ctx, `SELECT m.id, bm25(memories_fts) AS rank
		FROM memories_fts JOIN memories m ON m.seq = memories_fts.rowid
		WHERE memories_fts MATCH ? AND `+where+`
		ORDER BY rank, m.seq LIMIT ?`, append(append([]any{q}, args...), limit)...)
	if err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	defer rows.Close()
	var hits []memory.Hit
	for rows.Next() {
		var h memory.Hit
		if err := rows.Scan(&h.ID, &h.Score); err != nil {
			return nil, fmt.Errorf("keyword search: %w", err)
		}
		h.Score = -h.Score
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	return hits, nil
}

// KeywordCoverage tells, for each of the memories ids that exist, the fraction
// of text's content words it contains (stemmed, any spelling of a code word).
// Text without content words covers nothing. One indexed look-up per word.
func (s *DB) KeywordCoverage(ctx context.Context, text string, ids []string) (map[string]float64, error) {
	out := make(map[string]float64, len(ids))
	terms := memory.QueryTerms(text)
	if len(ids) == 0 || len(terms) == 0 {
		return out, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	counts := make(map[string]int, len(ids))
	for _, t := range terms {
		rows, err := s.db.QueryContext(ctx, `SELECT m.id FROM memories m JOIN memories_fts ON memories_fts.rowid = m.seq
			WHERE m.id IN (SELECT value FROM json_each(?)) AND memories_fts MATCH ?`, string(list), ftsTerm(t))
		if err != nil {
			return nil, fmt.Errorf("keyword coverage: %w", err)
		}
		for rows.Next() {
			var id string
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
	for id, c := range counts {
		out[id] = float64(c) / float64(len(terms)) // exactly 1 when every word is there
	}
	return out, nil
}
