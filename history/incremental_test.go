package history

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

func TestUpdateReadsOnlyWhatWasAppended(t *testing.T) {
	root := copyTree(t)
	ix := openIndex(t)
	update(t, ix, root, Limits{})

	st := update(t, ix, root, Limits{})
	if st.Read != 0 || st.Messages != 0 || st.Bytes != 0 {
		t.Errorf("unchanged tree read again: %+v", st)
	}

	// Claude Code finishes the half-written line and writes another.
	main := filepath.Join(root, "-home-dev-shop", shopSession+".jsonl")
	appendTo(t, main, `ten"},"uuid":"u-0012","sessionId":"`+shopSession+`","timestamp":"2025-01-16T00:01:00Z"}`+"\n"+
		`{"type":"assistant","uuid":"a-0013","sessionId":"`+shopSession+`","timestamp":"2025-01-16T00:01:05Z","message":{"role":"assistant","content":[{"type":"text","text":"Kubernetes probes added."}]}}`+"\n")
	st = update(t, ix, root, Limits{})
	if st.Read != 1 || st.Messages != 2 || st.Rewritten != 0 {
		t.Errorf("append: %+v", st)
	}
	if got := matchedUUIDs(search(t, ix, Query{Text: "half written"})); !slices.Equal(got, []string{"u-0012"}) {
		t.Errorf("completed line: %v", got)
	}
	// Positions continue: the new message's window reaches back into the old ones.
	r := search(t, ix, Query{Text: "Kubernetes probes", Context: 2})
	if len(r.Results) != 1 || len(r.Results[0].Context) != 3 || r.Results[0].Context[0].UUID != "a-0011" {
		t.Errorf("window of appended message: %+v", r.Results)
	}
}

func TestUpdateNoticesRewrittenAndRemovedFiles(t *testing.T) {
	root := copyTree(t)
	ix := openIndex(t)
	update(t, ix, root, Limits{})

	blog := filepath.Join(root, "-home-dev-blog", "7a7a7a7a-0000-4000-8000-000000000007.jsonl")
	rewritten := `{"type":"user","uuid":"r-1","sessionId":"7a7a","cwd":"/home/dev/blog","timestamp":"2024-03-01T00:00:00Z","message":{"role":"user","content":"Switch the blog to Hugo` + strings.Repeat(" now", 300) + `"}}` + "\n"
	if err := os.WriteFile(blog, []byte(rewritten), 0o600); err != nil {
		t.Fatal(err)
	}
	st := update(t, ix, root, Limits{})
	if st.Rewritten != 1 {
		t.Errorf("rewrite not noticed: %+v", st)
	}
	if r := search(t, ix, Query{Text: "pnpm"}); r.TotalMatches != 0 {
		t.Errorf("old content of a rewritten file still found: %v", matchedUUIDs(r))
	}
	if got := matchedUUIDs(search(t, ix, Query{Text: "Hugo"})); !slices.Equal(got, []string{"r-1"}) {
		t.Errorf("new content: %v", got)
	}

	if err := os.Remove(blog); err != nil {
		t.Fatal(err)
	}
	st = update(t, ix, root, Limits{})
	if st.Removed != 1 {
		t.Errorf("removal not noticed: %+v", st)
	}
	if r := search(t, ix, Query{Text: "Hugo"}); r.TotalMatches != 0 {
		t.Errorf("removed file still found")
	}
}

func TestUpdateWithoutProjectsDirectory(t *testing.T) {
	ix := openIndex(t)
	st := update(t, ix, filepath.Join(t.TempDir(), "no-such-dir"), Limits{})
	if st.Files != 0 {
		t.Errorf("%+v", st)
	}
	r := search(t, ix, Query{Text: "anything"})
	if r.TotalMatches != 0 || r.Note == "" {
		t.Errorf("empty index: %+v", r)
	}
}

func TestLimitsExcludeSessionsAndCountThem(t *testing.T) {
	root := copyTree(t)
	ix := openIndex(t)
	st := update(t, ix, root, Limits{Projects: []string{"/home/dev/blog"}})
	// The shop's 5 transcripts are 4 sessions: one subagent's conversation
	// is part of its session (an older layout's subagent names none: it
	// counts as one).
	if st.Excluded != 4 {
		t.Errorf("excluded %d, want the shop's 4 sessions", st.Excluded)
	}
	r := search(t, ix, Query{Text: "pnpm"})
	if r.ExcludedSessions != 4 || r.TotalMatches == 0 {
		t.Errorf("excluded_sessions %d, matches %d", r.ExcludedSessions, r.TotalMatches)
	}
	if r := search(t, ix, Query{Text: "login"}); r.TotalMatches != 0 {
		t.Errorf("excluded project searchable")
	}

	// Files older than MaxAge are left out too; an already indexed one is dropped.
	old := filepath.Join(root, "-home-dev-blog", "7a7a7a7a-0000-4000-8000-000000000007.jsonl")
	past := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	st = update(t, ix, root, Limits{MaxAge: 24 * time.Hour})
	if st.Removed != 1 {
		t.Errorf("aged-out file not dropped: %+v", st)
	}
	if r := search(t, ix, Query{Text: "pnpm"}); r.TotalMatches != 0 {
		t.Errorf("aged-out file searchable")
	}
}

func TestPagesNeverRepeatOrSkip(t *testing.T) {
	root := filepath.Join(t.TempDir(), "projects")
	dir := filepath.Join(root, "-home-dev-many")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// 25 sessions of 8 messages each mentioning "deploy" (some twice, so ranks tie and differ).
	for s := range 25 {
		var lines string
		for i := range 8 {
			text := fmt.Sprintf("step %d of session %d", i, s)
			if i%4 == 0 {
				text += " deploy"
			}
			if (s+i)%8 == 0 {
				text += " deploy again"
			}
			lines += fmt.Sprintf(`{"type":"user","uuid":"s%d-m%d","sessionId":"s%d","cwd":"/home/dev/many","timestamp":"2025-02-01T00:00:%02dZ","message":{"role":"user","content":%q}}`+"\n", s, i, s, i, text)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%d.jsonl", s)), []byte(lines), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ix := openIndex(t)
	update(t, ix, root, Limits{})
	all := search(t, ix, Query{Text: "deploy", Context: 1, MaxResults: 1000})
	var paged []string
	for offset := 0; ; offset += 7 {
		r, err := ix.Search(context.Background(), Query{Text: "deploy", Context: 1, MaxResults: 7, Offset: offset})
		if err != nil {
			t.Fatal(err)
		}
		if r.TotalMatches != all.TotalMatches || r.Offset != offset {
			t.Fatalf("page at %d: total %d offset %d", offset, r.TotalMatches, r.Offset)
		}
		paged = append(paged, matchedUUIDs(r)...)
		if !r.HasMore {
			break
		}
	}
	if !slices.Equal(paged, matchedUUIDs(all)) || len(paged) != all.TotalMatches || len(paged) < 50 {
		t.Errorf("pages gave %d results, one page %d, total %d", len(paged), len(all.Results), all.TotalMatches)
	}
}
