package postgres

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/keywords"
	"github.com/recall-mcp/recall/memory"
)

// TestSearchKeywordFollowsItsRules compares SearchKeyword, both ways (its
// two rankings at once and in one statement), with its rules written out
// plainly over every match: rank the newest rankWindow matches; when that
// many match, add the matches older than them of the rarest terms, taken
// from the rarest on while together they match at most rareWordMatches
// memories (a term past that, or listed as common, is never taken); filter;
// best rank first, then the older; and rank every match when the filter
// leaves fewer than the limit of a window in force. Six thousand memories
// of words drawn by Zipf's law give every branch: windows in force or not,
// terms counted whole or past the budget, a term listed as common.
func TestSearchKeywordFollowsItsRules(t *testing.T) {
	ctx := context.Background()
	db := openSchema(t)
	r := rand.New(rand.NewPCG(23, 23))
	vocabulary := zipfWords[:400]
	z := rand.NewZipf(r, 1.1, 1, uint64(len(vocabulary)-1))
	var contents, namespaces []string
	for range 6000 {
		words := make([]string, 4+r.IntN(12))
		for i := range words {
			words[i] = vocabulary[z.Uint64()]
		}
		contents = append(contents, strings.Join(words, " "))
		namespaces = append(namespaces, []string{"project:a", "project:b", "global"}[r.IntN(3)])
	}
	if _, err := db.pool.Exec(ctx, `INSERT INTO memories (id, content, content_hash, memory_type, namespace, importance,
		confidence, created_at, updated_at, accessed_at, search_words)
		SELECT 'mem_rules_' || i, c, md5(c || i), 'session', ns, 0.5, 0.3, now(), now(), now(), to_tsvector('`+stemmed+`', c)
		FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(c, ns, i)`, contents, namespaces); err != nil {
		t.Fatal(err)
	}
	// The second most frequent word is listed as common; the first is in
	// more memories than the budget counts.
	if _, err := db.pool.Exec(ctx, `INSERT INTO meta (key, value) VALUES ($1, $2), ($3, extract(epoch FROM now())::bigint::text)`,
		metaCommonWords, "'"+vocabulary[1]+"'", metaCommonWordsAt); err != nil {
		t.Fatal(err)
	}
	for i := range 60 {
		words := make([]string, 1+r.IntN(4))
		for j := range words {
			words[j] = vocabulary[z.Uint64()]
		}
		text := strings.Join(words, " ")
		f := []memory.Filter{{}, {Namespaces: []string{"project:a"}}}[i%2]
		limit := []int{10, 40}[i/2%2]
		want := searchByTheRules(t, db, text, f, limit)
		for _, apart := range []bool{true, false} {
			got, err := db.searchKeyword(ctx, text, f, limit, apart)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%q %+v (apart %v):\n got %v\nwant %v", text, f, apart, got, want)
			}
		}
	}
}

// searchByTheRules is SearchKeyword's result by its rules (see
// TestSearchKeywordFollowsItsRules), from plain queries.
func searchByTheRules(t *testing.T, db *DB, text string, f memory.Filter, limit int) []memory.Hit {
	t.Helper()
	ctx := context.Background()
	terms := keywords.Terms(text)
	type match struct {
		seq    int64
		id     string
		rank   float32
		passes bool
		terms  []bool
	}
	// Every match, its rank, whether it passes the filter and which terms
	// it holds.
	var p params
	each := termQueries(terms, &p)
	all := strings.Join(each, " || ")
	holds := make([]string, len(each))
	for i, q := range each {
		holds[i] = "m.search_words @@ (" + q + ")"
	}
	rows, err := db.pool.Query(ctx, `SELECT m.seq, m.id, `+rankSQL(all)+`, `+whereFilter(ctx, f, &p)+`, ARRAY[`+strings.Join(holds, ", ")+`]
		FROM memories m WHERE m.search_words @@ (`+all+`) ORDER BY m.seq DESC`, append([]any{pgx.QueryExecModeExec}, p...)...)
	if err != nil {
		t.Fatal(err)
	}
	var matches []match
	var m match
	if _, err := pgx.ForEachRow(rows, []any{&m.seq, &m.id, &m.rank, &m.passes, &m.terms}, func() error {
		matches = append(matches, m)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// The terms listed as common.
	var common []bool
	p = nil
	each = termQueries(terms, &p)
	listed := make([]string, len(each))
	for i, q := range each {
		listed[i] = "querytree(" + q + ") IN (SELECT unnest(string_to_array(value, ' ')) FROM meta WHERE key = '" + metaCommonWords + "')"
	}
	if err := db.pool.QueryRow(ctx, `SELECT ARRAY[`+strings.Join(listed, ", ")+`]`, append([]any{pgx.QueryExecModeExec}, p...)...).Scan(&common); err != nil {
		t.Fatal(err)
	}
	windowed := len(matches) >= rankWindow
	candidates := matches[:min(rankWindow, len(matches))]
	if windowed {
		counts := make([]int, len(each))
		for _, m := range matches {
			for i, has := range m.terms {
				if has {
					counts[i]++
				}
			}
		}
		var order []int
		for i := range each {
			if !common[i] {
				order = append(order, i)
			}
		}
		slices.SortStableFunc(order, func(a, b int) int { return counts[a] - counts[b] })
		rarest := map[int]bool{}
		total := 0
		for _, i := range order {
			if total += counts[i]; total > rareWordMatches {
				break
			}
			rarest[i] = true
		}
		for _, m := range matches[rankWindow:] {
			for i, has := range m.terms {
				if has && rarest[i] {
					candidates = append(candidates, m)
					break
				}
			}
		}
	}
	best := func(ms []match) []memory.Hit {
		ms = slices.DeleteFunc(slices.Clone(ms), func(m match) bool { return !m.passes })
		slices.SortStableFunc(ms, func(a, b match) int {
			if a.rank != b.rank {
				if a.rank > b.rank {
					return -1
				}
				return 1
			}
			return int(a.seq - b.seq)
		})
		hits := []memory.Hit{}
		for _, m := range ms[:min(limit, len(ms))] {
			hits = append(hits, memory.Hit{ID: m.id, Score: float64(m.rank)})
		}
		return hits
	}
	hits := best(candidates)
	if len(hits) == limit || len(hits) > 0 && !windowed {
		return hits
	}
	return best(matches)
}
