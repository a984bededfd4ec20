package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/keywords"
	"github.com/recall-mcp/recall/memory"
)

// searchBothWays is SearchKeyword with its two rankings apart (at once) and
// in one statement: the test fails unless both give the same hits.
func searchBothWays(t *testing.T, db *DB, text string, f memory.Filter, limit int) ([]memory.Hit, error) {
	t.Helper()
	ctx := context.Background()
	apart, err := db.searchKeyword(ctx, text, f, limit, true)
	if err != nil {
		return nil, err
	}
	together, err := db.searchKeyword(ctx, text, f, limit, false)
	if err != nil {
		return nil, err
	}
	if !slices.Equal(apart, together) {
		t.Errorf("%q %+v: ranked apart %v, in one statement %v", text, f, apart, together)
	}
	return together, nil
}

// TestSearchKeywordFindsOldRareMatchesBeyondTheRankWindow: with more matches
// than the ranked window, an old memory holding the query's rare word still
// comes first, and filters still apply (the SQLite store's rule).
func TestSearchKeywordFindsOldRareMatchesBeyondTheRankWindow(t *testing.T) {
	ctx := context.Background()
	db := openSchema(t)
	old := &memory.Memory{ID: memory.NewID(time.Now().Add(-time.Hour)), Content: "the deploy script renders a flamegraph",
		Type: memory.TypePattern, Namespace: "project:a", Importance: 0.5, Confidence: 0.3}
	if _, _, err := db.InsertMemory(ctx, old, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.pool.Exec(ctx, `INSERT INTO memories (id, content, content_hash, memory_type, namespace, importance,
		confidence, created_at, updated_at, accessed_at, search_words)
		SELECT 'mem_1_' || i, 'deploy script step ' || i, md5(i::text), 'session', 'project:a', 0.5, 0.3, now(), now(), now(),
			to_tsvector('`+stemmed+`', 'deploy script step ' || i) FROM generate_series(1, $1) i`, rankWindow+100); err != nil {
		t.Fatal(err)
	}
	var matches int
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM memories WHERE content LIKE '%deploy script%'`).Scan(&matches); err != nil || matches <= rankWindow {
		t.Fatalf("%d matches, %v: the test needs more matches than the window", matches, err)
	}
	for _, f := range []memory.Filter{{}, {Namespaces: []string{"project:a"}}, {Types: []memory.Type{memory.TypePattern}}} {
		hits, err := searchBothWays(t, db, "deploy script flamegraph", f, 10)
		if err != nil || len(hits) == 0 || hits[0].ID != old.ID {
			t.Errorf("filter %+v: hits %v, %v; want %s first", f, hits, err, old.ID)
		}
	}
	hits, _ := searchBothWays(t, db, "deploy script", memory.Filter{}, 10)
	if len(hits) != 10 {
		t.Errorf("common words alone: %d hits, want 10", len(hits))
	}
	// The window's rows are read once: only the matches older than the
	// window (of words rare enough, here all three) are looked up again by
	// their tuple ids.
	query, p := rareKeywordSQL(ctx, keywords.Terms("deploy script flamegraph"), memory.Filter{}, 10, true)
	rows, err := db.pool.Query(ctx, "EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) "+query, append([]any{pgx.QueryExecModeExec}, p...)...)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range lines {
		var looked int
		if strings.Contains(line, "TID Cond: (ctid = ANY") {
			_, after, _ := strings.Cut(lines[i-1], "actual rows=")
			fmt.Sscan(after, &looked)
		}
		if looked > matches-rankWindow {
			t.Errorf("memories looked up again: %s\n%s", lines[i-1], strings.Join(lines, "\n"))
		}
	}
}

// TestSearchKeywordFiltersTheWindow: the newest matches, read once for both
// the filter and the ranking, are filtered like every other candidate: a
// memory of another namespace, or a superseded one, is not among the hits
// even when it would rank first and enough others pass to fill them.
func TestSearchKeywordFiltersTheWindow(t *testing.T) {
	ctx := context.Background()
	db := openSchema(t)
	if _, err := db.pool.Exec(ctx, `INSERT INTO memories (id, content, content_hash, memory_type, namespace, importance,
		confidence, created_at, updated_at, accessed_at, search_words)
		SELECT 'mem_1_' || i, 'deploy script step ' || i, md5(i::text), 'session', 'project:a', 0.5, 0.3, now(), now(), now(),
			to_tsvector('`+stemmed+`', 'deploy script step ' || i) FROM generate_series(1, $1) i`, rankWindow+100); err != nil {
		t.Fatal(err)
	}
	store := func(content, ns string) *memory.Memory {
		m := &memory.Memory{ID: memory.NewID(time.Now()), Content: content, Type: memory.TypeDecision,
			Namespace: ns, Importance: 0.5, Confidence: 0.3}
		if _, _, err := db.InsertMemory(ctx, m, nil); err != nil {
			t.Fatal(err)
		}
		return m
	}
	other := store("deploy script", "project:b") // the newest match, and the best
	found := func(f memory.Filter) (bool, int) {
		hits, err := searchBothWays(t, db, "deploy script", f, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if h.ID == other.ID {
				return true, len(hits)
			}
		}
		return false, len(hits)
	}
	if ok, _ := found(memory.Filter{}); !ok {
		t.Fatalf("unfiltered: %s not found", other.ID)
	}
	if ok, n := found(memory.Filter{Namespaces: []string{"project:a"}}); ok || n != 10 {
		t.Errorf("namespace project:a: found %s of project:b %v, %d hits", other.ID, ok, n)
	}
	newer := store("the script that deploys replaced", "project:b")
	if _, err := db.InsertEdge(ctx, &memory.Edge{SourceID: newer.ID, TargetID: other.ID, Relation: memory.RelationSupersedes, Weight: 1}); err != nil {
		t.Fatal(err)
	}
	if ok, n := found(memory.Filter{}); ok || n != 10 {
		t.Errorf("superseded %s found %v, %d hits", other.ID, ok, n)
	}
	if ok, _ := found(memory.Filter{IncludeSuperseded: true}); !ok {
		t.Errorf("superseded included: %s not found", other.ID)
	}
}

// TestTouchesStayOnThePage: touching memories (every search does) updates
// them in place (HOT), without a new entry in any index: otherwise each
// touched memory's vector went into the HNSW graph again.
func TestTouchesStayOnThePage(t *testing.T) {
	ctx := context.Background()
	db := openSchema(t)
	var ids []string
	for i := range 200 {
		m := &memory.Memory{ID: memory.NewID(time.Now()) + fmt.Sprint(i), Content: fmt.Sprintf("touched memory %d", i),
			Type: memory.TypeDecision, Namespace: "global", Importance: 0.5, Confidence: 0.3}
		if _, _, err := db.InsertMemory(ctx, m, []float32{1, float32(i), 0.5, 0.25}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	const touches = 5
	for range touches {
		if err := db.TouchMemories(ctx, ids, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	var updates, hot int64
	for i := 0; i < 100 && updates < touches*int64(len(ids)); i++ {
		time.Sleep(50 * time.Millisecond) // the server's counters arrive within a second
		if err := db.pool.QueryRow(ctx, `SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables
			WHERE relid = 'memories'::regclass`).Scan(&updates, &hot); err != nil {
			t.Fatal(err)
		}
	}
	if updates < touches*int64(len(ids)) {
		t.Fatalf("the server counted %d updates of %d", updates, touches*len(ids))
	}
	// Back-to-back touches of the same rows are the hard case: a page
	// fills with their old versions before it is pruned, later still while
	// another transaction of the server is open (about 3 in 100 stayed on
	// the page before the fill factor; 6 to 8 in 10 after).
	if hot < updates/3 {
		t.Fatalf("%d of %d touches were HOT updates; the rest put every index's entry in again", hot, updates)
	}
}

// TestSearchKeywordFindsOldMemoriesByTheirRarestWords: past the rank window
// the rarest words are searched as long as together they match at most
// rareWordMatches memories, so an old memory whose words are each in a
// thousand others (none rare alone) is still found by holding several.
func TestSearchKeywordFindsOldMemoriesByTheirRarestWords(t *testing.T) {
	ctx := context.Background()
	db := openSchema(t)
	old := &memory.Memory{ID: memory.NewID(time.Now().Add(-time.Hour)), Content: "alpha beta",
		Type: memory.TypePattern, Namespace: "project:a", Importance: 0.5, Confidence: 0.3}
	if _, _, err := db.InsertMemory(ctx, old, nil); err != nil {
		t.Fatal(err)
	}
	for _, fill := range []struct {
		text string
		n    int
	}{{"alpha filler", 1000}, {"beta filler", 1500}, {"deploy step", rankWindow + 100}} {
		if _, err := db.pool.Exec(ctx, `INSERT INTO memories (id, content, content_hash, memory_type, namespace, importance,
			confidence, created_at, updated_at, accessed_at, search_words)
			SELECT 'mem_' || md5($1) || '_' || i, $1 || ' ' || i, md5($1 || i), 'session', 'project:a', 0.5, 0.3, now(), now(), now(),
				to_tsvector('`+stemmed+`', $1 || ' ' || i) FROM generate_series(1, $2) i`, fill.text, fill.n); err != nil {
			t.Fatal(err)
		}
	}
	hits, err := searchBothWays(t, db, "deploy alpha beta", memory.Filter{}, 10)
	if err != nil || len(hits) == 0 || hits[0].ID != old.ID {
		t.Fatalf("hits %v, %v; want %s first", hits, err, old.ID)
	}
}

// TestSearchKeywordDoesNotCountWordsKnownCommon: a word the table's
// statistics know to be in far more memories than the rare-word budget is
// not counted (thousands of rows read for nothing) once a search has
// recorded the statistics' common words; the search still finds its newest
// matches, and a rare word's old match.
func TestSearchKeywordDoesNotCountWordsKnownCommon(t *testing.T) {
	ctx := context.Background()
	db := openSchema(t)
	old := &memory.Memory{ID: memory.NewID(time.Now().Add(-time.Hour)), Content: "the deploy renders a flamegraph",
		Type: memory.TypePattern, Namespace: "project:a", Importance: 0.5, Confidence: 0.3}
	if _, _, err := db.InsertMemory(ctx, old, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.pool.Exec(ctx, `INSERT INTO memories (id, content, content_hash, memory_type, namespace, importance,
		confidence, created_at, updated_at, accessed_at, search_words)
		SELECT 'mem_1_' || i, 'deploy step ' || i, md5(i::text), 'session', 'project:a', 0.5, 0.3, now(), now(), now(),
			to_tsvector('`+stemmed+`', 'deploy step ' || i) FROM generate_series(1, $1) i`, 3*rareWordMatches); err != nil {
		t.Fatal(err)
	}
	if _, err := db.pool.Exec(ctx, `ANALYZE memories`); err != nil {
		t.Fatal(err)
	}
	// The first search finds no record of the common words and makes it
	// in the background.
	if _, err := db.SearchKeyword(ctx, "deploy", memory.Filter{}, 10); err != nil {
		t.Fatal(err)
	}
	db.common.running.Wait()
	var common string
	if err := db.pool.QueryRow(ctx, `SELECT value FROM meta WHERE key = $1`, metaCommonWords).Scan(&common); err != nil || !strings.Contains(common, "'deploy'") {
		t.Fatalf("common words recorded: %q, %v", common, err)
	}
	query, p := rareKeywordSQL(ctx, keywords.Terms("deploy"), memory.Filter{}, 10, false)
	rows, err := db.pool.Query(ctx, "EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) "+query, p...)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	plan := strings.Join(lines, "\n")
	_, term, _ := strings.Cut(plan, "CTE term0")
	if first, _, _ := strings.Cut(strings.TrimSpace(term), "\n"); !strings.Contains(first, "actual rows=0") {
		t.Errorf("the common word was counted:\n%s", plan)
	}
	if hits, err := searchBothWays(t, db, "deploy", memory.Filter{}, 10); err != nil || len(hits) != 10 {
		t.Errorf("hits %v, %v", hits, err)
	}
	// A rare word is still counted, and its old match found past the window.
	if hits, err := searchBothWays(t, db, "deploy flamegraph", memory.Filter{}, 10); err != nil || len(hits) == 0 || hits[0].ID != old.ID {
		t.Errorf("hits %v, %v; want %s first", hits, err, old.ID)
	}
	// The common word hides where the window ends, so a new memory with
	// the rare word is found both in the window and among the rare word's
	// matches: it is a hit once.
	recent := &memory.Memory{ID: memory.NewID(time.Now()), Content: "the deploy flamegraph again",
		Type: memory.TypePattern, Namespace: "project:a", Importance: 0.5, Confidence: 0.3}
	if _, _, err := db.InsertMemory(ctx, recent, nil); err != nil {
		t.Fatal(err)
	}
	hits, err := searchBothWays(t, db, "deploy flamegraph", memory.Filter{}, 10)
	if err != nil || len(hits) != 10 {
		t.Fatalf("hits %v, %v", hits, err)
	}
	seen := map[string]int{}
	for _, h := range hits {
		seen[h.ID]++
	}
	if seen[old.ID] != 1 || seen[recent.ID] != 1 {
		t.Errorf("hits %v: want %s and %s once each", hits, old.ID, recent.ID)
	}
}

// TestKeywordWindowInForce: the keyword statement tells that the window is
// in force (and searches the rare words past it) exactly when rankWindow
// or more memories match the query, counting a memory that holds two of
// its words once.
func TestKeywordWindowInForce(t *testing.T) {
	ctx := context.Background()
	db := openSchema(t)
	for _, fill := range []struct {
		text string
		n    int
	}{{"alpha", rankWindow - 600}, {"beta", 599}, {"gamma delta", rankWindow - 800}} {
		if _, err := db.pool.Exec(ctx, `INSERT INTO memories (id, content, content_hash, memory_type, namespace, importance,
			confidence, created_at, updated_at, accessed_at, search_words)
			SELECT 'mem_' || md5($1) || '_' || i, $1 || ' ' || i, md5($1 || i), 'session', 'project:a', 0.5, 0.3, now(), now(), now(),
				to_tsvector('`+stemmed+`', $1 || ' ' || i) FROM generate_series(1, $2) i`, fill.text, fill.n); err != nil {
			t.Fatal(err)
		}
	}
	inForce := func(query string) bool {
		t.Helper()
		sql, p := rareKeywordSQL(ctx, keywords.Terms(query), memory.Filter{}, 10, false)
		var windowed, stale bool
		if _, err := db.rankedHits(ctx, sql, p, &windowed, &stale); err != nil {
			t.Fatal(err)
		}
		return windowed
	}
	for query, want := range map[string]bool{
		"alpha":       false, // 1,400 matches
		"alpha beta":  false, // 1,999
		"gamma delta": false, // 2,400 words in 1,200 memories
	} {
		if got := inForce(query); got != want {
			t.Errorf("%q: window in force %v, want %v", query, got, want)
		}
	}
	if _, err := db.pool.Exec(ctx, `INSERT INTO memories (id, content, content_hash, memory_type, namespace, importance,
		confidence, created_at, updated_at, accessed_at, search_words)
		VALUES ('mem_beta_more', 'beta more', 'beta more', 'session', 'project:a', 0.5, 0.3, now(), now(), now(),
			to_tsvector('`+stemmed+`', 'beta more'))`); err != nil {
		t.Fatal(err)
	}
	if !inForce("alpha beta") { // 2,000
		t.Errorf("%q: window not in force with %d matches", "alpha beta", rankWindow)
	}
}

// TestKeywordRankingsApartOnlyAlone: a process that lives on ranks the
// keyword window and the rare words at once, unless the vector search runs
// beside them; a fresh process keeps them in one statement.
func TestKeywordRankingsApartOnlyAlone(t *testing.T) {
	ctx := context.Background()
	db := openSchema(t)
	if db.rankApart(ctx) {
		t.Errorf("a fresh process ranks apart")
	}
	db.opened = time.Now().Add(-time.Minute)
	if !db.rankApart(ctx) {
		t.Errorf("a process open for a minute ranks in one statement")
	}
	if db.rankApart(memory.WithVectorBeside(ctx)) {
		t.Errorf("a keyword search beside the vector search ranks apart")
	}
}
