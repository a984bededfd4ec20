package tests

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-mcp/recall/history"
)

const shopSession = "5b0c1d2e-0000-4000-8000-000000000001"

// fakeClaudeProjects writes the history package's transcript fixtures as
// Claude Code would have written them for two real project directories, and
// returns the projects directory and the shop project's root.
func fakeClaudeProjects(t *testing.T, c *cliEnv) (projects, shop string) {
	t.Helper()
	shop, _ = newProject(t, c, "shop")
	blog, _ := newProject(t, c, "blog")
	projects = filepath.Join(c.dir, "claude", "projects")
	rename := strings.NewReplacer("/home/dev/shop", shop, "/home/dev/blog", blog,
		"-home-dev-shop", history.EscapeProject(shop), "-home-dev-blog", history.EscapeProject(blog))
	src := "../history/testdata/projects"
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dst := filepath.Join(projects, rename.Replace(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return err
		}
		return os.WriteFile(dst, []byte(rename.Replace(string(b))), 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	return projects, shop
}

type historyStats struct {
	Messages int `json:"messages"`
	Embedded int `json:"embedded"`
}

func (c *cliEnv) historyStats() historyStats {
	c.t.Helper()
	var st historyStats
	if err := json.Unmarshal([]byte(c.ok("history", "stats", "--json")), &st); err != nil {
		c.t.Fatal(err)
	}
	return st
}

// waitForIndexer waits until the background indexer has indexed want
// messages and let go of the index.
func (c *cliEnv) waitForIndexer(want int) {
	c.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if c.historyStats().Messages >= want {
			if l, err := history.TryLock(filepath.Join(c.dir, "history.db")); err == nil {
				l.Unlock()
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.t.Fatalf("the background indexer did not index %d messages; stats %+v", want, c.historyStats())
}

func TestHistoryIndexedByHookAndSearchedThroughMCP(t *testing.T) {
	c := newCLIEnv(t)
	projects, shop := fakeClaudeProjects(t, c)
	c.vars["RECALL_HISTORY"] = "on"
	c.vars["RECALL_HISTORY_DIR"] = projects
	c.vars["RECALL_LOG_LEVEL"] = "warn"

	// SessionStart answers as before and starts the indexer in the background.
	c.hook("SessionStart", hookInput(t, "SessionStart", shop, nil))
	c.waitForIndexer(16)

	// An MCP client started in a subdirectory of the shop project.
	cmd := exec.Command(recallBin)
	cmd.Dir = filepath.Join(shop, "internal", "api")
	for k, v := range c.vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, "PATH="+os.Getenv("PATH"))
	cmd.Stderr = stderrFile(t)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		cs.Close()
		c.waitForIndexer(0) // the server's own refresh, if it started one
	}()

	out := ok(t, cs, "search_project_history", map[string]any{"query": "JWT clock skew"})
	results := out["results"].([]any)
	if len(results) == 0 {
		t.Fatalf("no results: %v", out)
	}
	m := results[0].(map[string]any)["matched_message"].(map[string]any)
	if m["project"] != shop || m["session_id"] != shopSession {
		t.Errorf("matched message %v, want project %s", m, shop)
	}
	if out := ok(t, cs, "search_project_history", map[string]any{"query": "pnpm"}); out["total_matches"] != 0.0 {
		t.Errorf("the blog's conversation is not the shop's: %v", out)
	}
	if out := ok(t, cs, "search_global_history", map[string]any{"query": "pnpm uv", "after": "2024-01-01"}); out["total_matches"] == 0.0 {
		t.Errorf("global search: %v", out)
	}
	fails(t, cs, "search_global_history", map[string]any{"query": "x", "after": "01/15/2025"}, "after", "ISO 8601")

	w := ok(t, cs, "read_history", map[string]any{"session_id": shopSession, "uuid": "a-0004", "window": 1})
	if len(w["messages"].([]any)) != 3 {
		t.Errorf("read_history: %v", w)
	}

	// Claude Code appends; `recall history index` reads the new lines (and
	// embeds), and the running server finds them.
	main := filepath.Join(projects, history.EscapeProject(shop), shopSession+".jsonl")
	f, err := os.OpenFile(main, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`ten"},"uuid":"u-0012","sessionId":"` + shopSession + `","timestamp":"2025-01-16T00:01:00Z","cwd":"` + shop + `"}` + "\n")
	f.Close()
	// The running server's own background index (started with it, at
	// whatever moment a loaded machine lets it run) may read the line before
	// `recall history index` does: then the command finds nothing new. Either
	// way the line is indexed once, with its vector.
	idx := c.ok("history", "index")
	if !strings.Contains(idx, "indexed 1 new message from 1 of 7 transcripts") && !strings.Contains(idx, "indexed 0 new messages from 0 of 7 transcripts") {
		t.Errorf("index printed %q", idx)
	}
	c.waitForIndexer(17)
	if st := c.historyStats(); st.Messages != 17 || st.Embedded != 17 {
		t.Errorf("after the appended line the index holds %+v, want 17 messages, each with its vector", st)
	}
	out = ok(t, cs, "search_project_history", map[string]any{"query": "half written"})
	if out["total_matches"] != 1.0 || out["mode"] != "hybrid" {
		t.Errorf("appended message through MCP: %v", out)
	}
}

func TestHistoryCLI(t *testing.T) {
	c := newCLIEnv(t)
	projects, shop := fakeClaudeProjects(t, c)
	c.vars["RECALL_HISTORY"] = "on"
	c.vars["RECALL_HISTORY_DIR"] = projects
	c.cwd = shop

	c.ok("history", "index", "--no-embed")
	if st := c.historyStats(); st.Messages != 16 || st.Embedded != 0 {
		t.Errorf("stats after a keyword-only index: %+v", st)
	}
	out := c.ok("history", "search", "token bucket")
	if !strings.Contains(out, "golang.org/x/time/rate") || !strings.Contains(out, "> u-0010") {
		t.Errorf("search printed %q", out)
	}
	var resp struct {
		TotalMatches int `json:"total_matches"`
	}
	if err := json.Unmarshal([]byte(c.ok("history", "search", "pnpm", "--global", "--json")), &resp); err != nil || resp.TotalMatches != 1 {
		t.Errorf("--global --json: %+v %v", resp, err)
	}
	out = c.ok("history", "show", shopSession, "--around", "u-0005", "--window", "1")
	if !strings.Contains(out, ">>> [2025-01-15T10:01:10.000Z] user u-0005") || !strings.Contains(out, "a-0004") || strings.Contains(out, "u-0001") {
		t.Errorf("show printed %q", out)
	}
	r := c.run("", "history", "search", "x", "--before", "soon")
	if r.code == 0 || !strings.Contains(r.stderr, "before") || !strings.Contains(r.stderr, "2025-01-15") {
		t.Errorf("bad date: %+v", r)
	}
	// The MCP tool run once from the shell finds what the search finds.
	if got := c.call("search_project_history", `{"query": "token bucket"}`); !strings.Contains(mustJSON(t, got["results"]), `"uuid":"u-0010"`) {
		t.Errorf("recall call search_project_history should find u-0010: %v", got)
	}
	// A one-shot command reads what its search needs and returns: it leaves
	// no indexer running after it (a running server refreshes in the
	// background; a command that has ended should not).
	if _, err := os.Stat(filepath.Join(c.dir, "history-index.log")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a history search from the shell started a background indexer (history-index.log: %v)", err)
	}

	// A missing transcripts directory is no history yet, not an error.
	c.vars["RECALL_HISTORY_DIR"] = filepath.Join(c.dir, "nothing-here")
	c.ok("history", "index", "--no-embed")
	if out := c.ok("history", "search", "anything"); !strings.Contains(out, "no conversation") {
		t.Errorf("empty index: %q", out)
	}
}

func TestHookPreCompactStartsTheIndexerAndSaysNothing(t *testing.T) {
	c := newCLIEnv(t)
	projects, shop := fakeClaudeProjects(t, c)
	c.vars["RECALL_HISTORY"] = "on"
	c.vars["RECALL_HISTORY_DIR"] = projects
	c.vars["RECALL_HISTORY_EMBED"] = "off"
	a, _ := c.hook("PreCompact", hookInput(t, "PreCompact", shop, map[string]any{"trigger": "manual"}))
	if a != nil {
		t.Errorf("pre-compact answered %+v", a)
	}
	c.waitForIndexer(16)
}

func TestHookStartsNoSecondIndexer(t *testing.T) {
	c := newCLIEnv(t)
	projects, shop := fakeClaudeProjects(t, c)
	c.vars["RECALL_HISTORY"] = "on"
	c.vars["RECALL_HISTORY_DIR"] = projects
	// Another process is indexing: it holds the lock.
	held, err := history.TryLock(filepath.Join(c.dir, "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	c.hook("PreCompact", hookInput(t, "PreCompact", shop, nil))
	c.hook("SessionStart", hookInput(t, "SessionStart", shop, nil))
	time.Sleep(500 * time.Millisecond) // time for a wrongly started indexer to index
	held.Unlock()
	if st := c.historyStats(); st.Messages != 0 {
		t.Errorf("a second indexer ran beside the first: %+v", st)
	}
}
