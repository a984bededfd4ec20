package history

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// copyTree copies the fixture transcripts into a temporary projects directory.
func copyTree(t testing.TB) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "projects")
	err := os.CopyFS(root, os.DirFS("testdata/projects"))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func openIndex(t testing.TB) *Index {
	t.Helper()
	ix, err := Open(context.Background(), filepath.Join(t.TempDir(), "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func update(t testing.TB, ix *Index, root string, limits Limits) UpdateStats {
	t.Helper()
	st, err := ix.Update(context.Background(), UpdateOptions{Root: root, Limits: limits})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func search(t testing.TB, ix *Index, q Query) *Response {
	t.Helper()
	if q.MaxResults == 0 {
		q.MaxResults = 10
	}
	resp, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func matchedUUIDs(r *Response) []string {
	var out []string
	for _, res := range r.Results {
		out = append(out, res.Matched.UUID)
	}
	return out
}

func TestUpdateIndexesEveryLayout(t *testing.T) {
	root := copyTree(t)
	ix := openIndex(t)
	st := update(t, ix, root, Limits{})
	// main session, new-layout subagent, old-layout subagent, zero-byte,
	// summary-only, blog session, subagent without its parent session
	if st.Files != 7 || st.Read != 7 || st.Malformed != 2 {
		t.Errorf("stats %+v", st)
	}
	if st.Messages != 9+2+2+2+1 {
		t.Errorf("indexed %d messages", st.Messages)
	}

	// Subagents are found, both layouts, and the orphan; include_subagents=false drops them.
	for _, q := range []string{"codebase caller", "Postgres migrations", "RSS feed"} {
		if r := search(t, ix, Query{Text: q, IncludeSubagents: true}); r.TotalMatches == 0 {
			t.Errorf("%q: no match in subagent conversations", q)
		}
		if r := search(t, ix, Query{Text: q, IncludeSubagents: false}); r.TotalMatches != 0 {
			t.Errorf("%q without subagents: %v", q, matchedUUIDs(r))
		}
	}
	// The old layout's session id is read from its records.
	r := search(t, ix, Query{Text: "Postgres migrations", IncludeSubagents: true})
	if r.Results[0].Matched.SessionID != shopSession || r.Results[0].Matched.Project != "/home/dev/shop" {
		t.Errorf("old-layout subagent match: %+v", r.Results[0].Matched)
	}
	// Compaction summaries are searchable; thinking is not.
	if got := matchedUUIDs(search(t, ix, Query{Text: "continued from a previous conversation"})); !slices.Equal(got, []string{"u-0009"}) {
		t.Errorf("compaction summary: %v", got)
	}
	if r := search(t, ix, Query{Text: "zebras", IncludeSubagents: true}); r.TotalMatches != 0 {
		t.Errorf("thinking was indexed")
	}
}

func TestKeywordRulesApply(t *testing.T) {
	root := copyTree(t)
	ix := openIndex(t)
	update(t, ix, root, Limits{})
	for _, q := range []string{"user_service", "user-service", "UserService", "user service"} {
		if got := matchedUUIDs(search(t, ix, Query{Text: q})); !slices.Contains(got, "u-0001") {
			t.Errorf("%q does not find UserService: %v", q, got)
		}
	}
	if got := matchedUUIDs(search(t, ix, Query{Text: "cafe"})); !slices.Equal(got, []string{"b-0002"}) {
		t.Errorf("diacritics: %v", got)
	}
	if got := matchedUUIDs(search(t, ix, Query{Text: "refusing tokens"})); !slices.Contains(got, "a-0004") {
		t.Errorf("stemming: refusing should find refused: %v", got)
	}
	for _, q := range []string{`"`, `AND`, `auth*`, `(login`, `NEAR(a b)`, `col:x`} {
		if _, err := ix.Search(context.Background(), Query{Text: q, MaxResults: 5}); err != nil {
			t.Errorf("query %q failed: %v", q, err)
		}
	}
	r := search(t, ix, Query{Text: "how did we the"})
	if r.TotalMatches != 0 || !strings.Contains(r.Note, "stop words") {
		t.Errorf("stop words alone: %d matches, note %q", r.TotalMatches, r.Note)
	}
}

func TestSearchFiltersByProjectAndDate(t *testing.T) {
	root := copyTree(t)
	ix := openIndex(t)
	update(t, ix, root, Limits{})
	if r := search(t, ix, Query{Text: "pnpm", Projects: []string{"/home/dev/shop"}}); r.TotalMatches != 0 {
		t.Errorf("blog message found in shop: %v", matchedUUIDs(r))
	}
	if r := search(t, ix, Query{Text: "pnpm", Projects: []string{"/home/dev/blog"}}); r.TotalMatches != 2 {
		t.Errorf("blog search: %v", matchedUUIDs(r))
	}
	r := search(t, ix, Query{Text: "anything", Projects: []string{"/home/dev/none"}})
	if !strings.Contains(r.Note, "/home/dev/none") || !strings.Contains(r.Note, "indexed") {
		t.Errorf("unindexed project note: %q", r.Note)
	}

	day := func(s string) time.Time { d, _ := time.Parse("2006-01-02", s); return d }
	// u-0007 is at 2025-01-15T23:59:59.999Z, u-0009 at 2025-01-16T00:00:00Z.
	got := matchedUUIDs(search(t, ix, Query{Text: "login screenshot JWT", After: day("2025-01-15"), Before: day("2025-01-16")}))
	if !slices.Contains(got, "u-0007") || slices.Contains(got, "u-0009") {
		t.Errorf("before is exclusive, the last millisecond of the day is in: %v", got)
	}
	got = matchedUUIDs(search(t, ix, Query{Text: "leeway", After: day("2025-01-16")}))
	if !slices.Equal(got, []string{"u-0009"}) {
		t.Errorf("after is inclusive: %v", got)
	}
}

func TestSearchContextAndMergedWindows(t *testing.T) {
	root := copyTree(t)
	ix := openIndex(t)
	update(t, ix, root, Limits{})
	// "auth" is in u-0001, a-0002, u-0003 (middleware path), a-0004: one window.
	r := search(t, ix, Query{Text: "auth", Context: 3, Projects: []string{"/home/dev/shop"}})
	if r.TotalMatches != 1 {
		t.Fatalf("overlapping windows not merged: %v", matchedUUIDs(r))
	}
	res := r.Results[0]
	var ctxIDs []string
	matches := 0
	for _, v := range res.Context {
		ctxIDs = append(ctxIDs, v.UUID)
		if *v.IsMatch {
			matches++
		}
	}
	if len(ctxIDs) < 4 || matches < 2 || res.Score <= 0 || res.Score > 1 {
		t.Errorf("context %v (%d matches), score %v", ctxIDs, matches, res.Score)
	}
	r = search(t, ix, Query{Text: "auth", Context: 0, Projects: []string{"/home/dev/shop"}})
	if r.TotalMatches < 4 || len(r.Results[0].Context) != 1 {
		t.Errorf("without context: %d matches, %d context", r.TotalMatches, len(r.Results[0].Context))
	}
}

func TestOneIndexerAtATime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "not-yet", "history.db") // the first run creates the directory
	first, err := TryLock(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := TryLock(path); err != ErrBusy {
		t.Fatalf("second lock: %v, want ErrBusy", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := WaitLock(ctx, path); err == nil {
		t.Fatal("WaitLock took a held lock")
	}
	first.Unlock()
	again, err := WaitLock(context.Background(), path)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	again.Unlock()
}
