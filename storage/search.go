package storage

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/recall-mcp/recall/memory"
)

// defaultSearchLimit applies when a search asks for no limit.
const defaultSearchLimit = 10

// maxQueryTerms bounds the terms one keyword search ORs together.
const maxQueryTerms = 64

// ftsQuery turns user text into an FTS5 query that can neither fail nor carry
// syntax: the text is cut into words the way FTS5's unicode61 tokenizer cuts it
// (runs of letters, digits and marks), each word becomes a double-quoted string
// and the strings are ORed. "claude-mem" becomes "claude" OR "mem"; operators,
// quotes, stars and parentheses are only separators. Text without any word
// gives "", which callers treat as "no hits".
func ftsQuery(text string) string {
	words := strings.FieldsFunc(text, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Co, r))
	})
	seen := make(map[string]bool, len(words))
	var terms []string
	for _, w := range words {
		key := strings.ToLower(w)
		if seen[key] {
			continue
		}
		seen[key] = true
		terms = append(terms, `"`+strings.ReplaceAll(w, `"`, `""`)+`"`)
		if len(terms) == maxQueryTerms {
			break
		}
	}
	return strings.Join(terms, " OR ")
}

// SearchKeyword ranks memories by BM25 over their content, best first. Hit.Score
// is the negated bm25() value, so higher is better. Filters apply to all matches
// before the limit, so they never starve the result.
func (s *DB) SearchKeyword(ctx context.Context, text string, f memory.Filter, limit int) ([]memory.Hit, error) {
	q := ftsQuery(text)
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
