package tests

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-mcp/recall/history"
)

// promptLine is one prompt of a Claude Code transcript.
func promptLine(uuid, session, cwd, text string) string {
	return `{"type":"user","uuid":"` + uuid + `","sessionId":"` + session + `","cwd":"` + cwd +
		`","timestamp":"2025-03-01T10:00:00Z","message":{"role":"user","content":"` + text + `"}}` + "\n"
}

// A project's history is every worktree's: Claude Code keys a session by the
// directory it ran in, and a worktree's sessions belong to its repository.
// A running server's search sees a message written just before it, with no
// indexer run in between.
func TestHistorySearchSeesWorktreesAndNewMessages(t *testing.T) {
	c := newCLIEnv(t)
	repo := filepath.Join(c.dir, "repo")
	os.MkdirAll(repo, 0o755)
	gitIn(t, repo, "init", "-q")
	gitIn(t, repo, "commit", "-q", "--allow-empty", "-m", "start")
	wt := filepath.Join(c.dir, "wt", "repo-feature")
	gitIn(t, repo, "worktree", "add", "-q", "-b", "feature", wt)
	repo, _ = filepath.EvalSymlinks(repo)
	wt, _ = filepath.EvalSymlinks(wt)

	projects := filepath.Join(c.dir, "claude", "projects")
	write := func(cwd, session, line string) string {
		dir := filepath.Join(projects, history.EscapeProject(cwd))
		os.MkdirAll(dir, 0o700)
		path := filepath.Join(dir, session+".jsonl")
		appendTranscript(t, path, line)
		return path
	}
	write(repo, "s-main", promptLine("m-1", "s-main", repo, "tune the zeppelin cache eviction"))
	wtPath := write(wt, "s-feature", promptLine("f-1", "s-feature", wt, "refactor the zeppelin cache keys in the worktree"))
	other := filepath.Join(c.dir, "elsewhere")
	write(other, "s-other", promptLine("o-1", "s-other", other, "zeppelin facts for a quiz"))

	c.vars["RECALL_HISTORY"] = "on"
	c.vars["RECALL_HISTORY_DIR"] = projects
	c.vars["RECALL_HISTORY_EMBED"] = "off"
	for _, dir := range []string{repo, wt} {
		cmd := exec.Command(recallBin)
		cmd.Dir = dir
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
		found := func(query string) []string {
			t.Helper()
			out := ok(t, cs, "search_project_history", map[string]any{"query": query, "context_before_after": 0})
			var ids []string
			for _, r := range out["results"].([]any) {
				ids = append(ids, r.(map[string]any)["matched_message"].(map[string]any)["uuid"].(string))
			}
			return ids
		}
		// Nothing indexed before: the search reads what it needs.
		if got := strings.Join(found("zeppelin cache"), ","); !strings.Contains(got, "m-1") || !strings.Contains(got, "f-1") || strings.Contains(got, "o-1") {
			t.Errorf("server in %s: project search found %q; want the main root's and the worktree's sessions, not another project's", dir, got)
		}
		// Claude Code writes a message; the next search sees it.
		n := "n-" + filepath.Base(dir)
		appendTranscript(t, wtPath, promptLine(n, "s-feature", wt, "the blimp hangar config for "+filepath.Base(dir)))
		if got := found("blimp hangar " + filepath.Base(dir)); len(got) != 1 || got[0] != n {
			t.Errorf("server in %s: a message written just before the search: found %v, want %s", dir, got, n)
		}
		cs.Close()
	}
	c.waitForIndexer(0) // a background refresh, if the server started one
}
