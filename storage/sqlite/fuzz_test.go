package sqlite

import (
	"context"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

// FuzzKeywordSearch checks that no user text makes keyword search fail or change
// stored data. The seeds run in every plain `go test`.
func FuzzKeywordSearch(f *testing.F) {
	for _, seed := range []string{
		"claude-mem", `"`, `""`, "*", "AND", "OR", "NOT", "NEAR(", "NEAR(a b, 2)", "-", "-x", "(", ")", "((a)",
		"a AND (b OR", "col:value", "^start", "{a b}:c", "🦀🔥", "", " ", "\x00", "\xff\xfe", "a'b", "x*",
		"memories_fts", "'; DROP TABLE memories; --", "ünïcödé", "日本語のテキスト",
	} {
		f.Add(seed)
	}
	db := openTest(f)
	ctx := context.Background()
	for _, c := range []string{"claude-mem stores memories", `quotes " and stars * and AND`, "日本語のテキスト"} {
		mustInsert(f, db, newMemory(c, "global", memory.TypeSession), nil)
	}
	before := fingerprint(f, db)

	f.Fuzz(func(t *testing.T, text string) {
		hits, err := db.SearchKeyword(ctx, text, memory.Filter{}, 10)
		if err != nil {
			t.Fatalf("SearchKeyword(%q): %v", text, err)
		}
		if ftsQuery(text, "OR") == "" && len(hits) != 0 {
			t.Fatalf("SearchKeyword(%q) without words found %v", text, hits)
		}
		if after := fingerprint(t, db); after != before {
			t.Fatalf("SearchKeyword(%q) changed stored data", text)
		}
	})
}

// fingerprint summarises the stored memories and keyword index.
func fingerprint(t testing.TB, db *DB) string {
	t.Helper()
	var s string
	err := db.SQL().QueryRow(`SELECT (SELECT count(*) FROM memories) || ':' ||
		(SELECT coalesce(group_concat(id || content, '|'), '') FROM memories) || ':' ||
		(SELECT count(*) FROM memories_fts_docsize) || ':' ||
		(SELECT coalesce(sum(access_count), 0) || max(updated_at) FROM memories)`).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
