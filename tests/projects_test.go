package tests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// gitRepo makes a real git repository at dir with one commit.
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "init", "-q")
	gitIn(t, dir, "commit", "-q", "--allow-empty", "-m", "start")
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

var namespaceLine = regexp.MustCompile("memories are in namespace `([^`]+)`")

// sessionContext runs session-start in cwd and returns the injected context
// and the namespace it names.
func sessionContext(t *testing.T, c *cliEnv, cwd string) (text, namespace string) {
	t.Helper()
	a, r := c.hook("session-start", hookInput(t, "SessionStart", cwd, map[string]any{"source": "startup"}))
	if a == nil {
		t.Fatalf("session-start in %s answered nothing; stderr:\n%s", cwd, r.stderr)
	}
	text = a.HookSpecificOutput.AdditionalContext
	m := namespaceLine.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("session-start in %s names no namespace:\n%s", cwd, text)
	}
	return text, m[1]
}

func TestTwoDirectoriesWithOneNameAreTwoProjects(t *testing.T) {
	c := newCLIEnv(t)
	work := filepath.Join(c.dir, "work", "api")
	play := filepath.Join(c.dir, "play", "api")
	gitRepo(t, work)
	gitRepo(t, play)
	c.store("You MUST write commit messages in the imperative mood", "--type", "preference")
	// Stored before any hook ran, as in a database made by an older Recall.
	secret := c.store("The api MUST sign requests with the production HMAC key", "--type", "decision", "--namespace", "project:api")

	workCtx, workNS := sessionContext(t, c, filepath.Join(work))
	if workNS != "project:api" || !strings.Contains(workCtx, secret) || !strings.Contains(workCtx, "rooted at "+work) {
		t.Fatalf("the first root to claim project:api should get it and its memory %s; namespace %s:\n%s", secret, workNS, workCtx)
	}
	playCtx, playNS := sessionContext(t, c, play)
	if playNS == workNS || !strings.HasPrefix(playNS, "project:api-") {
		t.Fatalf("a second root called api got %s, want a distinct project:api-<hash>", playNS)
	}
	if strings.Contains(playCtx, secret) || strings.Contains(playCtx, "HMAC") {
		t.Fatalf("play/api was given work/api's memory %s:\n%s", secret, playCtx)
	}
	a, _ := c.hook("user-prompt-submit", hookInput(t, "UserPromptSubmit", play, map[string]any{"prompt": "how should the api sign requests with HMAC?"}))
	if a != nil && strings.Contains(a.HookSpecificOutput.AdditionalContext, secret) {
		t.Fatalf("the prompt hook in play/api listed work/api's memory:\n%s", a.HookSpecificOutput.AdditionalContext)
	}

	// A worktree of work/api, anywhere on disk, is the same project.
	wt := filepath.Join(c.dir, "elsewhere", "api-hotfix")
	gitIn(t, work, "worktree", "add", "-q", "-b", "hotfix", wt)
	wtCtx, wtNS := sessionContext(t, c, filepath.Join(wt))
	if wtNS != workNS || !strings.Contains(wtCtx, secret) {
		t.Fatalf("a worktree of work/api got %s, want %s with its memories:\n%s", wtNS, workNS, wtCtx)
	}

	var listed struct {
		Projects []struct {
			Namespace string   `json:"namespace"`
			Roots     []string `json:"roots"`
			Memories  int      `json:"memories"`
		} `json:"projects"`
	}
	if err := json.Unmarshal([]byte(c.ok("projects", "--json")), &listed); err != nil {
		t.Fatal(err)
	}
	roots := map[string][]string{}
	for _, p := range listed.Projects {
		roots[p.Namespace] = p.Roots
	}
	if len(roots[workNS]) != 1 || roots[workNS][0] != work || len(roots[playNS]) != 1 || roots[playNS][0] != play {
		t.Fatalf("recall projects lists %v, want %s -> %s and %s -> %s", listed.Projects, workNS, work, playNS, play)
	}
}

func TestRecallProjectPinsTheNamespace(t *testing.T) {
	c := newCLIEnv(t)
	dir := filepath.Join(c.dir, "checkout")
	gitRepo(t, dir)
	ci := c.store("CI builds MUST run with -race", "--type", "decision", "--namespace", "project:ci-pipeline")
	c.vars["RECALL_PROJECT"] = "ci-pipeline"
	text, ns := sessionContext(t, c, dir)
	if ns != "project:ci-pipeline" || !strings.Contains(text, ci) || !strings.Contains(text, "pinned by RECALL_PROJECT") {
		t.Fatalf("with RECALL_PROJECT=ci-pipeline session-start used %s:\n%s", ns, text)
	}
	c.vars["RECALL_PROJECT"] = "project:\x07bad"
	if r := c.run("", "projects"); r.code == 0 || !strings.Contains(r.stderr, "RECALL_PROJECT") {
		t.Fatalf("a bad RECALL_PROJECT should be refused naming the variable; exit %d stderr %s", r.code, r.stderr)
	}
}

func TestProjectsRenameAndMerge(t *testing.T) {
	c := newCLIEnv(t)
	a1 := c.store("Shared rule: errors MUST be wrapped with context", "--type", "pattern", "--namespace", "project:old-api")
	a2 := c.store("Old api MUST keep v1 routes", "--type", "decision", "--namespace", "project:old-api")
	b1 := c.store("Shared rule: errors MUST be wrapped with context", "--type", "pattern", "--namespace", "project:api")
	c.ok("call", "memory_relate_tool", `{"source_id": "`+a2+`", "target_id": "`+a1+`", "relation": "relates_to"}`)

	if out := c.ok("projects", "rename", "old-api", "legacy-api"); !strings.Contains(out, "2 memories moved") {
		t.Fatalf("rename: %s", out)
	}
	if r := c.run("", "projects", "rename", "legacy-api", "api"); r.code == 0 || !strings.Contains(r.stderr, "merge") {
		t.Fatalf("renaming onto a used namespace should be refused with a hint to merge; exit %d: %s", r.code, r.stderr)
	}
	out := c.ok("projects", "merge", "legacy-api", "api")
	if !strings.Contains(out, "1 memory moved") || !strings.Contains(out, "duplicate "+a1+" folded into "+b1) {
		t.Fatalf("merge should move one memory and fold the duplicate %s into %s:\n%s", a1, b1, out)
	}
	list := c.call("memory_list_tool", `{"namespace": "project:api"}`)
	if list["count"] != 2.0 {
		t.Fatalf("project:api holds %v memories after the merge, want 2: %v", list["count"], list)
	}
	g := c.call("memory_inspect_graph_tool", `{"memory_id": "`+a2+`"}`)
	if !strings.Contains(mustJSON(t, g["edges"]), b1) {
		t.Fatalf("the edge to the folded duplicate should now point at %s: %v", b1, g["edges"])
	}
	if n := checkDatabase(t, c.dbPath); n != 2 {
		t.Fatalf("database holds %d memories, want 2", n)
	}
}
