package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProjectsIsARead runs `recall projects` in a plain directory called
// shop: nothing is bound, so a real git project called shop opened later
// still gets project:shop.
func TestProjectsIsARead(t *testing.T) {
	c := newCLIEnv(t)
	plain := filepath.Join(c.dir, "downloads", "shop")
	if err := os.MkdirAll(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	c.cwd = plain
	out := c.ok("projects")
	if !strings.Contains(out, "not a project yet") {
		t.Errorf("projects in an unbound directory should say it is not a project yet:\n%s", out)
	}
	var listed struct {
		Projects []any `json:"projects"`
	}
	if err := json.Unmarshal([]byte(c.ok("projects", "--json")), &listed); err != nil || len(listed.Projects) != 0 {
		t.Fatalf("after two reads the projects are %v (%v), want none bound", listed.Projects, err)
	}
	repo := filepath.Join(c.dir, "code", "shop")
	gitRepo(t, repo)
	c.cwd = c.dir
	c.store("You MUST write commit messages in the imperative mood", "--type", "preference")
	if _, ns := sessionContext(t, c, repo); ns != "project:shop" {
		t.Errorf("the real project shop got %s after projects ran in another shop directory, want project:shop", ns)
	}
}

// TestStoreInAGitProjectGoesToTheProject stores from inside a repository
// without --namespace, and by a bare project name from elsewhere.
func TestStoreInAGitProjectGoesToTheProject(t *testing.T) {
	c := newCLIEnv(t)
	repo := filepath.Join(c.dir, "shop-api")
	gitRepo(t, repo)
	sub := filepath.Join(repo, "internal", "billing")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	c.cwd = sub
	out := c.ok("store", "--type", "decision", "Invoices are numbered per tenant")
	if !strings.Contains(out, "project:shop-api)") {
		t.Errorf("store inside the shop-api repository printed %q, want the memory in project:shop-api", out)
	}
	if here := c.ok("projects"); !strings.Contains(here, "this directory: project:shop-api") {
		t.Errorf("projects disagrees with store:\n%s", here)
	}
	c.cwd = c.dir
	out = c.ok("store", "--namespace", "shop-api", "Refunds go through the ledger")
	if !strings.Contains(out, "project:shop-api)") {
		t.Errorf("store --namespace shop-api printed %q, want project:shop-api", out)
	}
	out = c.ok("store", "Outside any repository a memory is global")
	if !strings.Contains(out, ", global)") {
		t.Errorf("store outside git printed %q, want global", out)
	}
	if got := c.ok("list", "--namespace", "shop-api"); strings.Count(got, "\nmem_") != 2 {
		t.Errorf("list --namespace shop-api:\n%s\nwant the two memories of the project", got)
	}
}

// TestListSaysWhenSupersededMemoriesAreHidden supersedes one memory of two:
// list names the hidden one and --all shows it.
func TestListSaysWhenSupersededMemoriesAreHidden(t *testing.T) {
	c := newCLIEnv(t)
	old := c.store("Deploys run from the staging branch", "--type", "decision")
	newer := c.store("Deploys run from the main branch with tags", "--type", "decision")
	c.call("memory_relate_tool", `{"source_id":"`+newer+`","target_id":"`+old+`","relation":"supersedes"}`)
	out := c.ok("list")
	if strings.Contains(out, old) || !strings.Contains(out, "showing 1-1 of 1 (1 superseded memory hidden: --all lists them)") {
		t.Errorf("list should hide %s and say so:\n%s", old, out)
	}
	if all := c.ok("list", "--all"); !strings.Contains(all, old) || !strings.Contains(all, "showing 1-2 of 2\n") {
		t.Errorf("list --all should show both:\n%s", all)
	}
}

// TestImportTwiceThroughTheCLIAddsNothing exports a memory with two
// outcomes and a file touch, and reads the export twice into a new database.
func TestImportTwiceThroughTheCLIAddsNothing(t *testing.T) {
	c := newCLIEnv(t)
	id := c.store("Migrations run in one transaction each", "--type", "decision")
	c.call("memory_outcome_tool", `{"memory_id":"`+id+`","success":true}`)
	c.call("memory_outcome_tool", `{"memory_id":"`+id+`","success":false,"error_msg":"the lock timed out"}`)
	c.call("file_activity_add", `{"file_path":"/src/shop/db.go","action":"edit","project_root":"/src/shop"}`)
	export := filepath.Join(c.dir, "export.jsonl")
	c.ok("export", "-o", export)

	other := newCLIEnv(t)
	first := other.ok("import", export)
	if !strings.Contains(first, "imported 1 memory, 0 edges, 2 validation events, 1 file activity row from") {
		t.Errorf("first import: %q", first)
	}
	second := other.ok("import", export)
	if !strings.Contains(second, "imported 0 memories, 0 edges, 0 validation events, 0 file activity rows") ||
		!strings.Contains(second, "1 memory was already stored") {
		t.Errorf("second import should add nothing and say the memory was there:\n%s", second)
	}
	h := other.call("validation_history_tool", `{"memory_id":"`+id+`"}`)
	sum := h["summary"].(map[string]any)
	if sum["succeeded"] != 1.0 || sum["total_events"] != 2.0 {
		t.Errorf("history after two imports: %v, want one success of two events", sum)
	}
	files := other.call("file_activity_recent", `{"project_root":"/src/shop"}`)
	if got := mustJSON(t, files); !strings.Contains(got, `"access_count":1,`) {
		t.Errorf("file activity after two imports: %s", mustJSON(t, files))
	}
}

// TestReindexErrorsSayTheCommandOnce runs reindex with Ollama down.
func TestReindexErrorsSayTheCommandOnce(t *testing.T) {
	c := newCLIEnv(t)
	c.store("Logs go to stderr")
	c.ollama.Close()
	r := c.run("", "reindex")
	if r.code != 1 || strings.Contains(r.stderr, "reindex: reindex:") || !strings.Contains(r.stderr, "recall reindex: ") {
		t.Errorf("reindex without Ollama: code %d, stderr:\n%s", r.code, r.stderr)
	}
}

// TestOllamaOffIsQuiet says once that there is no Ollama: store, search and
// doctor stop warning about it.
func TestOllamaOffIsQuiet(t *testing.T) {
	c := newCLIEnv(t)
	c.ollama.Close()
	loud := c.run("", "store", "Releases are tagged from main")
	if !strings.Contains(loud.stdout+loud.stderr, "Ollama") {
		t.Fatalf("with Ollama down and not switched off, store should say so:\n%s%s", loud.stdout, loud.stderr)
	}
	c.vars["RECALL_OLLAMA"] = "off"
	delete(c.vars, "RECALL_LOG_LEVEL")
	for _, args := range [][]string{{"store", "Hotfixes branch from the last tag"}, {"search", "hotfix tag"}, {"list"}} {
		r := c.run("", args...)
		if r.code != 0 || strings.Contains(r.stdout+r.stderr, "Ollama") || strings.Contains(r.stdout+r.stderr, "pending") || strings.Contains(r.stdout, "keyword search only") {
			t.Errorf("recall %v with RECALL_OLLAMA=off: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
	if out := c.ok("search", "hotfix tag"); !strings.Contains(out, "Hotfixes branch from the") {
		t.Errorf("keyword search with Ollama off:\n%s", out)
	}
	if doc := c.run("", "doctor"); !strings.Contains(doc.stdout, "Ollama: off (RECALL_OLLAMA=off)") || strings.Contains(doc.stdout, "ollama serve") {
		t.Errorf("doctor with Ollama off:\n%s", doc.stdout)
	}
}

// TestHistoryIndexPrintsWhatItDidNotLogLines indexes by hand: what it did on
// stdout, and no log lines on stderr unless asked (-v).
func TestHistoryIndexPrintsWhatItDidNotLogLines(t *testing.T) {
	c := newCLIEnv(t)
	projects, _ := fakeClaudeProjects(t, c)
	c.vars["RECALL_HISTORY"] = "on"
	c.vars["RECALL_HISTORY_DIR"] = projects
	c.vars["RECALL_HISTORY_EMBED"] = "off"
	delete(c.vars, "RECALL_LOG_LEVEL")
	r := c.run("", "history", "index")
	if r.code != 0 || !strings.Contains(r.stdout, "indexed ") || strings.Contains(r.stderr, "level=") {
		t.Errorf("history index: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if v := c.run("", "history", "index", "-v"); !strings.Contains(v.stderr, "level=INFO") {
		t.Errorf("history index -v should log what it does:\n%s", v.stderr)
	}
}
