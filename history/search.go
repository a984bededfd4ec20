package history

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/recall-mcp/recall/keywords"
	"github.com/recall-mcp/recall/memory"
)

// Query is one history search. Zero times mean no bound.
type Query struct {
	Text             string
	After            time.Time // inclusive
	Before           time.Time // exclusive
	Projects         []string  // working directories (subdirectories included); empty: all
	IncludeSubagents bool
	Context          int     // messages before and after each match
	Threshold        float64 // least similarity of a match found by meaning
	MaxResults       int
	Offset           int
	// Vector is the query's embedding; nil searches keywords only.
	Vector []float32
}

// View is a message as search answers show it.
type View struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	Timestamp string `json:"timestamp"`
	Project   string `json:"project,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	UUID      string `json:"uuid"`
	IsMatch   *bool  `json:"is_match,omitempty"`
}

// Result is one match with its neighbours.
type Result struct {
	Matched View    `json:"matched_message"`
	Score   float64 `json:"score"`
	Context []View  `json:"context"`
}

// Response is the answer to a Query.
type Response struct {
	Results          []Result `json:"results"`
	Query            string   `json:"query"`
	TotalMatches     int      `json:"total_matches"`
	Offset           int      `json:"offset"`
	HasMore          bool     `json:"has_more"`
	ExcludedSessions int      `json:"excluded_sessions"`
	Mode             string   `json:"mode"`           // "hybrid" or "keyword"
	Note             string   `json:"note,omitempty"` // why results may be missing
}

// Limits of a search.
const (
	maxCandidates   = 1000 // matches ranked per search (the newest), before windows merge
	maxContentChars = 2000 // of each message shown; drill down for the rest
)

// candidate is a matching message on its way to a result.
type candidate struct {
	id, file, seq int64
	fused         float64
	score         float64
}

// Search finds messages by keywords (and by meaning when q.Vector is set),
// merges matches whose windows overlap, and returns one page of results with
// their context.
func (ix *Index) Search(ctx context.Context, q Query) (*Response, error) {
	resp := &Response{Query: q.Text, Offset: q.Offset, Results: []Result{}, Mode: "keyword"}
	if n, err := ix.meta(ctx, "excluded_sessions"); err == nil && n != "" {
		resp.ExcludedSessions, _ = strconv.Atoi(n)
	}
	f := newFilter(q)
	found, err := ix.keywordCandidates(ctx, q.Text, f)
	if err != nil {
		return nil, err
	}
	if q.Vector != nil {
		byMeaning, err := ix.vectorCandidates(ctx, q.Vector, q.Threshold, f)
		if err != nil {
			return nil, err
		}
		found = fuse(found, byMeaning)
		resp.Mode = "hybrid"
	}
	kept := mergeWindows(found, q.Context)
	resp.TotalMatches = len(kept)
	if len(kept) == 0 {
		resp.Note, err = ix.emptyNote(ctx, q)
		return resp, err
	}
	end := min(q.Offset+q.MaxResults, len(kept))
	resp.HasMore = end < len(kept)
	matched := map[int64]bool{}
	for _, c := range found {
		matched[c.id] = true
	}
	for _, c := range kept[min(q.Offset, len(kept)):end] {
		r, err := ix.result(ctx, c, q.Context, matched, q.Text)
		if err != nil {
			return nil, err
		}
		resp.Results = append(resp.Results, r)
	}
	return resp, nil
}

// filter is the SQL that keeps a message (alias m, its file f) in a search.
type filter struct {
	where string
	args  []any
}

func newFilter(q Query) filter {
	var conds []string
	var args []any
	if !q.After.IsZero() {
		conds, args = append(conds, "m.ts >= ?"), append(args, q.After.UnixMilli())
	}
	if !q.Before.IsZero() {
		conds, args = append(conds, "m.ts < ? AND m.ts > 0"), append(args, q.Before.UnixMilli())
	}
	if !q.IncludeSubagents {
		conds = append(conds, "f.agent_id = ''")
	}
	if len(q.Projects) > 0 {
		var ors []string
		for _, p := range q.Projects {
			p = strings.TrimSuffix(p, "/")
			ors = append(ors, "f.project = ? OR substr(f.project, 1, ?) = ? OR f.project_dir = ?")
			args = append(args, p, len(p)+1, p+"/", EscapeProject(p))
		}
		conds = append(conds, "("+strings.Join(ors, " OR ")+")")
	}
	if len(conds) == 0 {
		return filter{where: "1"}
	}
	return filter{where: strings.Join(conds, " AND "), args: args}
}

// keywordCandidates ranks the messages holding every term of text (or, when
// none holds them all, any term) by BM25.
func (ix *Index) keywordCandidates(ctx context.Context, text string, f filter) ([]candidate, error) {
	terms := keywords.Terms(text)
	if len(terms) == 0 {
		return nil, nil
	}
	found, err := ix.matchFTS(ctx, keywords.Match(terms, "AND"), f)
	if err != nil || len(found) > 0 || len(terms) == 1 {
		return found, err
	}
	return ix.matchFTS(ctx, keywords.Match(terms, "OR"), f)
}

func (ix *Index) matchFTS(ctx context.Context, match string, f filter) ([]candidate, error) {
	// The inner query walks the matches newest first (FTS5 streams rowid
	// order without sorting) and stops at maxCandidates; only those get a
	// BM25 rank. A word found in 50,000 messages then costs what one found in
	// 1,000 does, and its matches are ranked among the newest.
	rows, err := ix.db.QueryContext(ctx, `SELECT id, file_id, seq, rank FROM (
			SELECT m.id, m.file_id, m.seq, bm25(messages_fts) AS rank
			FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid JOIN files f ON f.id = m.file_id
			WHERE messages_fts MATCH ? AND `+f.where+` ORDER BY messages_fts.rowid DESC LIMIT ?)
		ORDER BY rank, id`,
		append(append([]any{match}, f.args...), maxCandidates)...)
	return readCandidates(rows, err, "keyword search", func(rank float64) float64 {
		// BM25 is unbounded (FTS5 negates it); a/(1+a) maps it into (0, 1).
		a := max(-rank, 0)
		return a / (1 + a)
	})
}

// readCandidates reads the rows (id, file, seq, measure) of a search, best
// first, each scored from its measure and ranked for fusion by its place.
func readCandidates(rows *sql.Rows, err error, search string, score func(measure float64) float64) ([]candidate, error) {
	if err != nil {
		return nil, fmt.Errorf("%s: %w", search, err)
	}
	defer rows.Close()
	var out []candidate
	for rows.Next() {
		var c candidate
		var measure float64
		if err := rows.Scan(&c.id, &c.file, &c.seq, &measure); err != nil {
			return nil, err
		}
		c.score = score(measure)
		c.fused = memory.RRF(len(out))
		out = append(out, c)
	}
	return out, rows.Err()
}

// fuse merges keyword and meaning candidates by reciprocal rank. A message
// found by meaning shows its similarity as its score.
func fuse(byWords, byMeaning []candidate) []candidate {
	all := map[int64]*candidate{}
	var order []*candidate
	for _, list := range [][]candidate{byWords, byMeaning} {
		for _, c := range list {
			if prev, ok := all[c.id]; ok {
				prev.fused += c.fused
				prev.score = c.score // the similarity, from the second list
				continue
			}
			cc := c
			all[c.id] = &cc
			order = append(order, &cc)
		}
	}
	out := make([]candidate, len(order))
	for i, c := range order {
		out[i] = *c
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].fused != out[j].fused {
			return out[i].fused > out[j].fused
		}
		return out[i].id < out[j].id
	})
	return out
}

// mergeWindows keeps, of matches whose windows overlap (another match within
// window messages of a better one, in the same file), only the better one.
// The order is fixed by rank and id, so pages never repeat or skip a result.
func mergeWindows(found []candidate, window int) []candidate {
	var kept []candidate
	seqs := map[int64][]int64{}
	for _, c := range found {
		near := false
		for _, s := range seqs[c.file] {
			if abs(s-c.seq) <= int64(window) {
				near = true
				break
			}
		}
		if !near {
			kept = append(kept, c)
			seqs[c.file] = append(seqs[c.file], c.seq)
		}
	}
	return kept
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// result loads a match's message and its window.
//
// A matched message longer than maxContentChars is cut around the first of
// the query's words it holds, so the words that matched are shown; the
// messages around it keep their beginning.
func (ix *Index) result(ctx context.Context, c candidate, window int, matched map[int64]bool, query string) (Result, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT m.id, m.uuid, m.session_id, m.role, m.ts, m.text,
		CASE WHEN f.project != '' THEN f.project ELSE f.project_dir END
		FROM messages m JOIN files f ON f.id = m.file_id
		WHERE m.file_id = ? AND m.seq BETWEEN ? AND ? ORDER BY m.seq`, c.file, c.seq-int64(window), c.seq+int64(window))
	if err != nil {
		return Result{}, err
	}
	defer rows.Close()
	r := Result{Score: math.Round(c.score*1e4) / 1e4, Context: []View{}}
	for rows.Next() {
		var id, ts int64
		var v View
		if err := rows.Scan(&id, &v.UUID, &v.SessionID, &v.Role, &ts, &v.Content, &v.Project); err != nil {
			return Result{}, err
		}
		isMatch := matched[id]
		if isMatch {
			v.Content = cutAround(v.Content, query, maxContentChars)
		} else {
			v.Content = truncate(v.Content, maxContentChars)
		}
		v.Timestamp = formatMillis(ts)
		if id == c.id {
			r.Matched = v
		}
		v.IsMatch = &isMatch
		v.Project, v.SessionID = "", ""
		r.Context = append(r.Context, v)
	}
	return r, rows.Err()
}

func formatMillis(ms int64) string {
	if ms == 0 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

// emptyNote says why a search found nothing: nothing indexed where it
// searched, or a query of stop words only.
func (ix *Index) emptyNote(ctx context.Context, q Query) (string, error) {
	var n int
	f := newFilter(Query{Projects: q.Projects, IncludeSubagents: true})
	err := ix.db.QueryRowContext(ctx, `SELECT count(*) FROM files f WHERE `+strings.ReplaceAll(f.where, "m.", "f."), f.args...).Scan(&n)
	if err != nil {
		return "", err
	}
	if n > 0 {
		if len(keywords.Terms(q.Text)) == 0 && q.Vector == nil {
			return "the query has only common words (stop words), which match nothing alone", nil
		}
		return "", nil
	}
	if len(q.Projects) > 0 {
		return fmt.Sprintf("no conversation of %s is indexed yet (run `recall history index`, or it is left out by RECALL_HISTORY_PROJECTS or RECALL_HISTORY_DAYS)", strings.Join(q.Projects, ", ")), nil
	}
	return "no conversation is indexed yet (run `recall history index`)", nil
}
