package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/keywords"
	"github.com/recall-mcp/recall/memory"
)

// TestKeywordsStemSplitCodeWordsAndKeepCodesExact drives the keyword side with
// the queries a user types: word forms, the spellings of one identifier, file
// paths, error codes, and queries without a content word.
func TestKeywordsStemSplitCodeWordsAndKeepCodesExact(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	cache := mustInsert(t, db, newMemory("We cache the rendered pages for an hour", "global", memory.TypeDecision), nil)
	camel := mustInsert(t, db, newMemory("UserService owns the login flow", "global", memory.TypePattern), nil)
	snake := mustInsert(t, db, newMemory("the user_service table is sharded by tenant", "global", memory.TypePattern), nil)
	kebab := mustInsert(t, db, newMemory("deploy user-service before the gateway", "global", memory.TypeDecision), nil)
	plain := mustInsert(t, db, newMemory("the user service answers in 20 ms", "global", memory.TypeSession), nil)
	path := mustInsert(t, db, newMemory("internal/auth/session.go refreshes tokens", "global", memory.TypeSession), nil)
	reset := mustInsert(t, db, newMemory("Retry on ECONNRESET from the proxy", "global", memory.TypePattern), nil)
	dup := mustInsert(t, db, newMemory("Mongo E11000 means a duplicate key", "global", memory.TypePattern), nil)
	accent := mustInsert(t, db, newMemory("the café menu service", "global", memory.TypeSession), nil)
	users := []string{camel.ID, snake.ID, kebab.ID, plain.ID}

	for _, tc := range []struct {
		query string
		want  []string // in any order
	}{
		{"caching", []string{cache.ID}},
		{"cached pages", []string{cache.ID}},
		{"UserService", users},
		{"user_service", users},
		{"user-service", users},
		{"user service", users},
		{"userService", users},
		{"userservice", users[:3]}, // a lower-case run-together word cannot be split, so plain "user service" is not found
		{"internal/auth/session.go", []string{path.ID}},
		{"session.go", []string{path.ID}},
		{"ECONNRESET", []string{reset.ID}},
		{"econnreset", []string{reset.ID}},
		{"E11000", []string{dup.ID}},
		{"E1100", nil},
		{"cafe", []string{accent.ID}},
		{"what is the", nil},
		{"?!... -- ()", nil},
		{"write a haiku about autumn", nil},
	} {
		hits, err := db.MatchAllKeywords(ctx, tc.query, memory.Filter{}, 50)
		if err != nil {
			t.Fatalf("MatchAllKeywords(%q): %v", tc.query, err)
		}
		got := hitIDs(hits)
		slices.Sort(got)
		want := slices.Clone(tc.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("MatchAllKeywords(%q) = %v, want %v", tc.query, got, want)
		}
	}

	// Stop words never match on their own: "the" is in most memories above.
	if hits, _ := db.SearchKeyword(ctx, "the", memory.Filter{}, 50); len(hits) != 0 {
		t.Errorf("a stop word alone found %v", hits)
	}
}

func TestKeywordCoverageCountsContentWords(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	both := mustInsert(t, db, newMemory("Redis caches the sessions", "global", memory.TypeDecision), nil)
	one := mustInsert(t, db, newMemory("sessions expire after a day", "global", memory.TypeDecision), nil)
	none := mustInsert(t, db, newMemory("tabs, not spaces", "global", memory.TypePreference), nil)

	got, err := db.KeywordCoverage(ctx, "how are the sessions cached in redis?", []string{both.ID, one.ID, none.ID, "mem_1_absent"})
	if err != nil {
		t.Fatal(err)
	}
	// Content words: sessions, cached, redis.
	want := map[string]float64{both.ID: 1, one.ID: 1.0 / 3}
	if len(got) != len(want) || got[both.ID] != want[both.ID] || got[one.ID] != want[one.ID] {
		t.Errorf("coverage = %v, want %v", got, want)
	}
}

// KeywordCoverage gives the same fractions whether it has FTS5 seek a few
// memories or read each word's list of rows for many.
func TestKeywordCoverageOfFewAndManyAgree(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	words := []string{"Redis caches", "the UserService sessions", "orders expire", "cached pages", "user_service logins"}
	var ids []string
	for i := range 2 * seekRowsUpTo {
		var held []string
		for j, w := range words {
			if (i>>j)&1 == 1 || i == j {
				held = append(held, w)
			}
		}
		ids = append(ids, mustInsert(t, db, newMemory(fmt.Sprintf("note %d: %s", i, strings.Join(held, ", ")), "global", memory.TypeDecision), nil).ID)
	}
	query := "Which user service sessions does Redis cache, and when do orders expire?"
	many, err := db.KeywordCoverage(ctx, query, ids)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(ids); i += seekRowsUpTo {
		few, err := db.KeywordCoverage(ctx, query, ids[i:i+seekRowsUpTo])
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids[i : i+seekRowsUpTo] {
			if few[id] != many[id] {
				t.Errorf("%s covers %.2f asked with %d others, %.2f with %d", id, few[id], seekRowsUpTo-1, many[id], len(ids)-1)
			}
		}
	}
	if len(many) < len(ids)-1 {
		t.Errorf("only %d of %d memories cover any word: %v", len(many), len(ids), many)
	}
}

// TestMigrationRebuildsKeywordIndexOfOldDatabase builds a database with the
// schema before stemming (version 2), opens it with this build and checks that
// old memories are found by stems and by every spelling of their code words.
func TestMigrationRebuildsKeywordIndexOfOldDatabase(t *testing.T) {
	ctx := context.Background()
	path, old := databaseBefore(t, "stemmed_keywords.sql")
	contents := []string{"We cache the rendered pages", "UserService owns the login flow", "tabs not spaces"}
	for i, c := range contents {
		m := newMemory(c, "global", memory.TypeDecision)
		_, err := old.Exec(`INSERT INTO memories (id, content, content_hash, memory_type, namespace, importance,
			confidence, created_at, updated_at, accessed_at) VALUES (?, ?, ?, 'decision', 'global', 0.5, 0.3, ?, ?, ?)`,
			m.ID, c, m.ContentHash, "2025-01-0"+strconv.Itoa(i+1)+"T00:00:00.000000000Z",
			"2025-01-01T00:00:00.000000000Z", "2025-01-01T00:00:00.000000000Z")
		if err != nil {
			t.Fatal(err)
		}
	}
	var before int
	old.QueryRow(`SELECT count(*) FROM memories_fts WHERE memories_fts MATCH 'caching'`).Scan(&before)
	old.Close()
	if before != 0 {
		t.Fatalf("the old index should not stem, found %d", before)
	}

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"caching", "user service", "user_service", "UserService"} {
		hits, err := db.MatchAllKeywords(ctx, q, memory.Filter{}, 10)
		if err != nil || len(hits) != 1 {
			t.Errorf("after migration MatchAllKeywords(%q) = %v, %v; want 1 hit", q, hits, err)
		}
	}
	if n, _ := db.CountMemories(ctx, memory.Filter{}); n != len(contents) {
		t.Errorf("migration left %d memories, want %d", n, len(contents))
	}
	var integrity string
	if err := db.SQL().QueryRow(`INSERT INTO memories_fts (memories_fts, rank) VALUES ('integrity-check', 1) RETURNING 'ok'`).Scan(&integrity); err != nil {
		t.Errorf("keyword index integrity check: %v", err)
	}
}

// TestMigrationFillsTheSearchWordsOfOldJournalEntries: the journal's
// keyword migration fills the other spellings of the code words of every
// entry written before it (more than one batch of them), so an old entry
// about "UserService" is found by "user service".
func TestMigrationFillsTheSearchWordsOfOldJournalEntries(t *testing.T) {
	ctx := context.Background()
	path, old := databaseBefore(t, "journal_keywords.sql")
	const entries = 1001 // a batch of the backfill and one more
	if _, err := old.Exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		INSERT INTO journal (kind, namespace, session_id, title, created_at)
		SELECT 'observation', 'project:shop', 's1', 'Edited UserService step ' || i, '2025-01-01T00:00:00.000000000Z' FROM n`, entries); err != nil {
		t.Fatal(err)
	}
	old.Close()

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var filled int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM journal WHERE search_words LIKE '%user service%'`).Scan(&filled); err != nil || filled != entries {
		t.Errorf("%d of %d old entries have their search words (%v)", filled, entries, err)
	}
	hits, err := db.SearchEntries(ctx, "user service step 1001", nil, 5)
	if err != nil || len(hits) == 0 || hits[0].Entry.Title != "Edited UserService step 1001" {
		t.Errorf("SearchEntries(user service step 1001) = %+v, %v; want the last old entry first", hits, err)
	}
}

// TestSearchKeywordFindsOldRareMatchesBeyondTheRankWindow: with more matches
// than the ranked window, an old memory holding the query's rare word still
// comes first, and filters still apply.
func TestSearchKeywordFindsOldRareMatchesBeyondTheRankWindow(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	old := mustInsert(t, db, newMemory("the deploy script renders a flamegraph", "project:a", memory.TypePattern), nil)
	tx, err := db.SQL().Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := range rankWindow + 100 {
		m := newMemory(fmt.Sprintf("deploy script step %d", i), "project:a", memory.TypeSession)
		if _, err := tx.Exec(`INSERT INTO memories (id, content, content_hash, memory_type, namespace, importance,
			confidence, created_at, updated_at, accessed_at) VALUES (?, ?, ?, 'session', 'project:a', 0.5, 0.3, '', '', '')`,
			m.ID, m.Content, m.ContentHash); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	// A long-lived process ranks the window and the older rare matches at
	// once, a hook's one after the other: both find it.
	hook, err := OpenWith(ctx, db.Path(), Options{ShortLived: true})
	if err != nil {
		t.Fatal(err)
	}
	defer hook.Close()
	for _, f := range []memory.Filter{{}, {Namespaces: []string{"project:a"}}, {Types: []memory.Type{memory.TypePattern}}} {
		for name, db := range map[string]*DB{"long-lived": db, "hook": hook} {
			hits, err := db.SearchKeyword(ctx, "deploy script flamegraph", f, 10)
			if err != nil || len(hits) == 0 || hits[0].ID != old.ID {
				t.Errorf("%s, filter %+v: hits %v, %v; want %s first", name, f, hitIDs(hits), err, old.ID)
			}
		}
	}
	hits, _ := db.SearchKeyword(ctx, "deploy script", memory.Filter{}, 10)
	if len(hits) != 10 {
		t.Errorf("common words alone: %d hits, want 10", len(hits))
	}
}

// TestSearchKeywordFindsOldMatchesOfSeveralWordsBeyondTheRankWindow: an old
// memory that holds several of the query's words, each of them in hundreds of
// newer memories (none rare on its own), is still found when more memories
// match than the ranked window holds: the words together are few enough to
// search past the window.
func TestSearchKeywordFindsOldMatchesOfSeveralWordsBeyondTheRankWindow(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	words := []string{"quorum", "lease", "fencing", "heartbeat"}
	old := mustInsert(t, db, newMemory("the quorum lease needs fencing tokens and a heartbeat", "project:a", memory.TypePattern), nil)
	tx, err := db.SQL().Begin()
	if err != nil {
		t.Fatal(err)
	}
	perWord := rankWindow/len(words) + 200 // more than the window in all, more than 500 each
	for i := range perWord * len(words) {
		m := newMemory(fmt.Sprintf("note %d about %s", i, words[i%len(words)]), "project:a", memory.TypeSession)
		if _, err := tx.Exec(`INSERT INTO memories (id, content, content_hash, memory_type, namespace, importance,
			confidence, created_at, updated_at, accessed_at) VALUES (?, ?, ?, 'session', 'project:a', 0.5, 0.3, '', '', '')`,
			m.ID, m.Content, m.ContentHash); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	hits, err := db.SearchKeyword(ctx, "quorum lease fencing heartbeat", memory.Filter{}, 10)
	if err != nil || len(hits) == 0 || hits[0].ID != old.ID {
		t.Errorf("hits %v, %v; want %s, which holds every word, first", hitIDs(hits), err, old.ID)
	}
}

func TestRarestWithinKeepsTheRarestWordsWithinTheBudget(t *testing.T) {
	terms := []keywords.Term{{"common"}, {"rare"}, {"middling"}, {"scarce"}}
	got := rarestWithin(terms, []int{9000, 10, 3000, 400}, 5000)
	want := []keywords.Term{{"rare"}, {"scarce"}, {"middling"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rarestWithin = %v, want %v", got, want)
	}
	if got := rarestWithin(terms, []int{9000, 6000, 5001, 7000}, 5000); len(got) != 0 {
		t.Errorf("every word above the budget: %v, want none", got)
	}
}

// databaseBefore makes a database at the schema just before the named
// migration, as an older build left it, and returns its path and a plain
// connection to fill it with old rows.
func databaseBefore(t *testing.T, migration string) (string, *sql.DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "old.db")
	old, err := sql.Open(driverName, dsn(path, Options{}, BusyTimeout))
	if err != nil {
		t.Fatal(err)
	}
	ms, err := schema.Load()
	if err != nil {
		t.Fatal(err)
	}
	version := versionOf(migration)
	for _, m := range ms[:version-1] {
		if _, err := old.Exec(m.SQL); err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
	}
	if _, err := old.Exec(`INSERT INTO meta (key, value) VALUES ('schema_version', ?)`, strconv.Itoa(version-1)); err != nil {
		t.Fatal(err)
	}
	return path, old
}
