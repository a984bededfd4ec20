package server

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/history"
)

// newHistory is a history service over a fresh index of the transcripts
// under root, updated once.
func newHistory(t testing.TB, root string, emb *embedding.Client) *history.Service {
	t.Helper()
	ctx := context.Background()
	ix, err := history.Open(ctx, filepath.Join(t.TempDir(), "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if _, err := ix.Update(ctx, history.UpdateOptions{Root: root}); err != nil {
		t.Fatal(err)
	}
	return &history.Service{Index: ix, Root: root, Project: "/home/dev/shop", Embedder: emb,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

// historyFixture serves the history fixtures of the history package.
func historyFixture(t *testing.T) (*fixture, *history.Service) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "projects")
	if err := os.CopyFS(root, os.DirFS("../history/testdata/projects")); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	client, err := embedding.New(embedding.Options{Host: f.ollama.URL()})
	if err != nil {
		t.Fatal(err)
	}
	hs := newHistory(t, root, client)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	f.srv = New(Deps{Memory: f.mem, Curation: f.cur, Capture: f.reader, History: hs, Version: "test", Logger: log})
	return f, hs
}

func TestSearchProjectHistoryAnswersLikeTotalRecall(t *testing.T) {
	f, _ := historyFixture(t)
	cs := f.connect(t)
	out := call(t, cs, "search_project_history", map[string]any{"query": "JWT clock skew"})
	for _, k := range []string{"results", "query", "total_matches", "offset", "has_more", "excluded_sessions"} {
		if _, ok := out[k]; !ok {
			t.Errorf("response lacks %q: %v", k, out)
		}
	}
	results := out["results"].([]any)
	if len(results) == 0 {
		t.Fatalf("no results: %v", out)
	}
	first := results[0].(map[string]any)
	m := first["matched_message"].(map[string]any)
	for _, k := range []string{"role", "content", "timestamp", "project", "session_id", "uuid"} {
		if m[k] == nil || m[k] == "" {
			t.Errorf("matched_message lacks %q: %v", k, m)
		}
	}
	if m["project"] != "/home/dev/shop" {
		t.Errorf("project %v", m["project"])
	}
	// context_before_after defaults to 3: up to 7 messages, the match marked.
	ctxMsgs := first["context"].([]any)
	marked := false
	for _, c := range ctxMsgs {
		c := c.(map[string]any)
		if c["uuid"] == m["uuid"] && c["is_match"] == true {
			marked = true
		}
	}
	if len(ctxMsgs) < 2 || len(ctxMsgs) > 7 || !marked {
		t.Errorf("context %v", ctxMsgs)
	}

	// The project search stays in the project; the global one does not.
	if out := call(t, cs, "search_project_history", map[string]any{"query": "pnpm"}); out["total_matches"] != 0.0 {
		t.Errorf("project search found another project's message: %v", out)
	}
	if out := call(t, cs, "search_global_history", map[string]any{"query": "pnpm"}); out["total_matches"] == 0.0 {
		t.Errorf("global search missed the blog: %v", out)
	}
	// include_subagents defaults to true.
	if out := call(t, cs, "search_project_history", map[string]any{"query": "Postgres migrations"}); out["total_matches"] == 0.0 {
		t.Errorf("subagent conversation not searched by default: %v", out)
	}
	if out := call(t, cs, "search_project_history", map[string]any{"query": "Postgres migrations", "include_subagents": false}); out["total_matches"] != 0.0 {
		t.Errorf("include_subagents=false: %v", out)
	}
}

func TestSearchHistoryRejectsBadInput(t *testing.T) {
	f, _ := historyFixture(t)
	cs := f.connect(t)
	callErr(t, cs, "search_project_history", map[string]any{"query": "x", "after": "last tuesday"}, "after", "last tuesday", "2025-01-15")
	callErr(t, cs, "search_global_history", map[string]any{"query": "x", "before": "2025-13-45"}, "before", "ISO 8601")
	callErr(t, cs, "search_global_history", map[string]any{"query": "x", "threshold": 2}, "threshold", "0 to 1")
	callErr(t, cs, "search_global_history", map[string]any{"query": " "}, "query")
	callErr(t, cs, "search_global_history", map[string]any{"query": "x", "max_results": 0}, "max_results")
}

func TestReadHistoryDrillsDownFromAMatch(t *testing.T) {
	f, _ := historyFixture(t)
	cs := f.connect(t)
	out := call(t, cs, "read_history", map[string]any{"session_id": "5b0c1d2e-0000-4000-8000-000000000001", "uuid": "a-0004", "window": 1})
	msgs := out["messages"].([]any)
	var got []string
	for _, m := range msgs {
		got = append(got, m.(map[string]any)["uuid"].(string))
	}
	if strings.Join(got, ",") != "u-0003,a-0004,u-0005" {
		t.Errorf("window %v", got)
	}
	if msgs[1].(map[string]any)["is_match"] != true || out["project"] != "/home/dev/shop" {
		t.Errorf("anchor or project: %v", out)
	}
	callErr(t, cs, "read_history", map[string]any{"session_id": "no-such-session"}, "no-such-session")
	callErr(t, cs, "read_history", map[string]any{"session_id": "5b0c1d2e-0000-4000-8000-000000000001", "uuid": "nope"}, "nope")
}

func TestHistorySearchIsHybridOnceEmbeddedAndDegradesWithoutOllama(t *testing.T) {
	f, hs := historyFixture(t)
	cs := f.connect(t)
	client, _ := embedding.New(embedding.Options{Host: f.ollama.URL()})
	st, err := hs.Index.Embed(context.Background(), client, 4, 0)
	if err != nil || st.Pending != 0 || st.Messages != 16 {
		t.Fatalf("embed: %+v %v", st, err)
	}
	out := call(t, cs, "search_global_history", map[string]any{"query": "leeway for clock skew"})
	if out["mode"] != "hybrid" || out["total_matches"] == 0.0 {
		t.Errorf("hybrid search: %v", out)
	}
	// Found by meaning alone: every word of this query is a stop word of the
	// keyword index, but the fake model's vectors keep "how" and "do", which
	// u-0001 ("How do we fix ...") shares.
	out = call(t, cs, "search_global_history", map[string]any{"query": "how do", "threshold": 0.1})
	found := false
	for _, r := range out["results"].([]any) {
		if r.(map[string]any)["matched_message"].(map[string]any)["uuid"] == "u-0001" {
			found = true
		}
	}
	if !found {
		t.Errorf("match by meaning missing: %v", out)
	}

	f.ollama.Close()
	out = call(t, cs, "search_global_history", map[string]any{"query": "leeway"})
	if out["mode"] != "keyword" || !strings.Contains(out["note"].(string), "degraded") || out["total_matches"] == 0.0 {
		t.Errorf("without Ollama: %v", out)
	}
}

// A whole long conversation is read a page at a time: every message once,
// each page a bounded answer, a bad cursor refused with what is accepted.
func TestReadHistoryPagesThroughAWholeConversation(t *testing.T) {
	root := filepath.Join(t.TempDir(), "projects")
	const session = "9c4e7a10-0000-4000-8000-00000000long"
	var b strings.Builder
	for i := range 300 {
		role := []string{"user", "assistant"}[i%2]
		b.WriteString(`{"type":"` + role + `","uuid":"m-` + strconv.Itoa(i) + `","sessionId":"` + session + `","cwd":"/home/dev/shop","message":{"role":"` + role + `","content":"message ` + strconv.Itoa(i) + ` ` + strings.Repeat("about the checkout totals ", 40) + `"}}` + "\n")
	}
	if err := os.MkdirAll(filepath.Join(root, "-home-dev-shop"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "-home-dev-shop", session+".jsonl"), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	f.srv = New(Deps{Memory: f.mem, Curation: f.cur, Capture: f.reader, History: newHistory(t, root, nil), Version: "test",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	cs := f.connect(t)

	seen := 0
	args := map[string]any{"session_id": session}
	for pages := 1; ; pages++ {
		out := call(t, cs, "read_history", args)
		msgs := out["messages"].([]any)
		for _, m := range msgs {
			if want := "m-" + strconv.Itoa(seen); m.(map[string]any)["uuid"] != want {
				t.Fatalf("page %d: message %v, want %s", pages, m.(map[string]any)["uuid"], want)
			}
			seen++
		}
		if js, _ := json.Marshal(out); len(js) > 40<<10 || len(msgs) == 0 {
			t.Fatalf("page %d: %d messages, %d bytes", pages, len(msgs), len(js))
		}
		next, _ := out["next_cursor"].(string)
		if next == "" {
			break
		}
		if pages > 100 {
			t.Fatal("pages never end")
		}
		args["cursor"] = next
	}
	if seen != 300 {
		t.Fatalf("read %d of 300 messages", seen)
	}
	callErr(t, cs, "read_history", map[string]any{"session_id": session, "cursor": "soon"}, "cursor", "next_cursor")
	callErr(t, cs, "read_history", map[string]any{"session_id": session, "cursor": "99999999999"}, "cursor", "next_cursor")
	callErr(t, cs, "read_history", map[string]any{"session_id": session, "uuid": "m-3", "cursor": "0"}, "cursor", "uuid")
}
