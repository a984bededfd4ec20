package sqlite

import (
	"context"
	"slices"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

func TestFTSQuery(t *testing.T) {
	for in, want := range map[string]string{
		"claude-mem":          `("claudemem" OR "claude mem")`,
		"UserService":         `("userservice" OR "user service")`,
		`say "hi" AND NEAR(`:  `"say" OR "near"`,
		"*":                   "",
		"":                    "",
		"  \t\n":              "",
		"what is the of ?!":   "",
		"🦀 rust 🦀":            `"rust"`,
		"Go go GO":            `"go"`,
		"café naïve":          `"café" OR "naïve"`,
		"col:value -excluded": `("colvalue" OR "col value") OR "excluded"`,
	} {
		if got := ftsQuery(in, "OR"); got != want {
			t.Errorf("ftsQuery(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestSearchKeyword(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	mem := mustInsert(t, db, newMemory("claude-mem keeps memories in Chroma", "global", memory.TypeDecision), nil)
	sqlite := mustInsert(t, db, newMemory("SQLite WAL mode lets readers run while one process writes", "project:a", memory.TypePattern), nil)
	both := mustInsert(t, db, newMemory("SQLite WAL and SQLite busy timeouts: SQLite everywhere", "project:b", memory.TypePattern), nil)

	hits, err := db.SearchKeyword(ctx, "sqlite", memory.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if got := hitIDs(hits); !slices.Equal(got, []string{both.ID, sqlite.ID}) {
		t.Errorf("search sqlite = %v, want [%s %s] (more mentions first)", got, both.ID, sqlite.ID)
	}
	if hits[0].Score <= hits[1].Score || hits[1].Score <= 0 {
		t.Errorf("scores must be positive and best first: %+v", hits)
	}

	hits, _ = db.SearchKeyword(ctx, "claude-mem", memory.Filter{}, 10)
	if got := hitIDs(hits); !slices.Equal(got, []string{mem.ID}) {
		t.Errorf("search claude-mem = %v, want [%s]", got, mem.ID)
	}

	hits, _ = db.SearchKeyword(ctx, "sqlite", memory.Filter{Namespaces: []string{"project:a"}}, 10)
	if got := hitIDs(hits); !slices.Equal(got, []string{sqlite.ID}) {
		t.Errorf("search sqlite in project:a = %v", got)
	}
	hits, _ = db.SearchKeyword(ctx, "sqlite", memory.Filter{}, 1)
	if len(hits) != 1 {
		t.Errorf("limit 1 gave %d hits", len(hits))
	}
}

func TestSearchKeywordNastyInput(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	m := mustInsert(t, db, newMemory(`Quote "AND" NEAR(x) in claude-mem docs`, "global", memory.TypeSession), nil)
	for _, q := range []string{`"`, `*`, `AND`, `NEAR(`, `-`, `(((`, `)`, `a OR`, `🦀`, ``, `""""`, `col:x`, `^near`, "\x00"} {
		hits, err := db.SearchKeyword(ctx, q, memory.Filter{}, 10)
		if err != nil {
			t.Errorf("SearchKeyword(%q) failed: %v", q, err)
		}
		want := 0
		if q == "NEAR(" || q == "^near" {
			want = 1 // a plain word that occurs in the content; "AND" is a stop word, "col:x" a code word it lacks
		}
		if len(hits) != want {
			t.Errorf("SearchKeyword(%q) = %v, want %d hits", q, hits, want)
		}
	}
	hits, _ := db.SearchKeyword(ctx, `claude-mem "near"`, memory.Filter{}, 10)
	if !slices.Equal(hitIDs(hits), []string{m.ID}) {
		t.Errorf("words among syntax still match: %v", hits)
	}
}

func TestKeywordIndexFollowsUpdatesAndDeletes(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	m := mustInsert(t, db, newMemory("the build uses bazel", "global", memory.TypeDecision), nil)
	if _, err := db.UpdateMemory(ctx, m.ID, func(m *memory.Memory) error {
		m.Content = "the build uses make"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if hits, _ := db.SearchKeyword(ctx, "bazel", memory.Filter{}, 10); len(hits) != 0 {
		t.Errorf("old content still found after update: %v", hits)
	}
	if hits, _ := db.SearchKeyword(ctx, "make", memory.Filter{}, 10); !slices.Equal(hitIDs(hits), []string{m.ID}) {
		t.Errorf("new content not found after update: %v", hits)
	}
	got, _ := db.GetMemory(ctx, m.ID)
	if got.ContentHash != memory.ContentHash("the build uses make") {
		t.Errorf("content hash not refreshed: %s", got.ContentHash)
	}
	if err := db.DeleteMemory(ctx, m.ID, false); err != nil {
		t.Fatal(err)
	}
	if hits, _ := db.SearchKeyword(ctx, "make", memory.Filter{}, 10); len(hits) != 0 {
		t.Errorf("deleted memory still found: %v", hits)
	}
	if _, err := db.SQL().Exec(`INSERT INTO memories_fts (memories_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
		t.Errorf("FTS index out of step with memories: %v", err)
	}
}

func TestSearchKeywordLeavesOutSuperseded(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	old := mustInsert(t, db, newMemory("deploy with make deploy", "global", memory.TypeDecision), nil)
	newer := mustInsert(t, db, newMemory("deploy with the release script", "global", memory.TypeDecision), nil)
	if _, err := db.InsertEdge(ctx, &memory.Edge{SourceID: newer.ID, TargetID: old.ID, Relation: memory.RelationSupersedes, Weight: 1}); err != nil {
		t.Fatal(err)
	}
	hits, _ := db.SearchKeyword(ctx, "deploy", memory.Filter{}, 10)
	if !slices.Equal(hitIDs(hits), []string{newer.ID}) {
		t.Errorf("superseded memory found: %v", hits)
	}
	hits, _ = db.SearchKeyword(ctx, "deploy", memory.Filter{IncludeSuperseded: true}, 10)
	if len(hits) != 2 {
		t.Errorf("IncludeSuperseded found %v", hits)
	}
}
