package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// What a new user tripped over, each driven through the built binary.

func TestStoreDashReadsTheContentFromStdin(t *testing.T) {
	c := newCLIEnv(t)
	r := c.run("Deploys MUST go through the pipeline.\nNever by hand.\n", "store", "-")
	if r.code != 0 || !strings.Contains(r.stdout, "stored mem_") {
		t.Fatalf("store -: code %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	out := c.ok("search", "--json", "deploys pipeline")
	if !strings.Contains(out, `"content": "Deploys MUST go through the pipeline.\nNever by hand."`) {
		t.Errorf("the stored memory is not the stdin content:\n%s", out)
	}
	if strings.Contains(out, `"content": "-"`) {
		t.Errorf("a memory \"-\" was stored:\n%s", out)
	}
}

func TestListPastTheEndSaysThereIsNothing(t *testing.T) {
	c := newCLIEnv(t)
	c.store("One memory is enough here.")
	out := c.ok("list", "--offset", "100")
	if !strings.Contains(out, "nothing at offset 100") || strings.Contains(out, "showing") {
		t.Errorf("list --offset past the end printed:\n%s", out)
	}
}

func TestHookWithoutAKnownEventExitsZero(t *testing.T) {
	c := newCLIEnv(t)
	for _, args := range [][]string{{"hook"}, {"hook", "Bogus"}, {"hook", "session-start", "extra"}} {
		r := c.run(`{"session_id":"s"}`, args...)
		if r.code != 0 {
			t.Errorf("recall %v: exit %d, want 0 (exit 2 blocks Claude Code)", args, r.code)
		}
		if r.stdout != "" || !strings.Contains(r.stderr, "session-start") {
			t.Errorf("recall %v: stdout %q, stderr %q; want nothing on stdout and the accepted events on stderr", args, r.stdout, r.stderr)
		}
	}
}

func TestVersionMatchesThePlugin(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", ".claude-plugin", "plugin.json"))
	if err != nil {
		t.Fatal(err)
	}
	var plugin struct{ Version string }
	if err := json.Unmarshal(b, &plugin); err != nil || plugin.Version == "" {
		t.Fatalf("plugin.json version: %q, %v", plugin.Version, err)
	}
	c := newCLIEnv(t)
	out := c.ok("version")
	if !strings.HasPrefix(out, "recall "+plugin.Version+" (module ") {
		t.Errorf("recall version printed %q, want recall %s (module ...)", out, plugin.Version)
	}
	// The MCP server reports the same version to clients.
	env, _ := recallEnv(t)
	cs, _ := startStdio(t, env)
	defer cs.Close()
	if v := cs.InitializeResult().ServerInfo.Version; v != plugin.Version {
		t.Errorf("serverInfo.version %q, want %s", v, plugin.Version)
	}
}

func TestHumanCommandsLogNothingUnlessAsked(t *testing.T) {
	c := newCLIEnv(t)
	delete(c.vars, "RECALL_LOG_LEVEL")
	c.ollama.Close() // the noisiest case: Ollama down
	r := c.run("", "store", "Quiet commands SHOULD print one message.")
	if r.code != 0 || r.stderr != "" {
		t.Errorf("store: code %d, stderr %q; want 0 and no log lines", r.code, r.stderr)
	}
	if n := strings.Count(r.stdout, "Ollama"); n != 1 {
		t.Errorf("store with Ollama down mentions Ollama %d times, want once:\n%s", n, r.stdout)
	}
	for _, args := range [][]string{{"search", "quiet"}, {"list"}, {"stats"}} {
		if r := c.run("", args...); r.code != 0 || r.stderr != "" {
			t.Errorf("recall %v: code %d, stderr %q; want no log lines", args, r.code, r.stderr)
		}
	}
	if r := c.run("", "store", "-v", "Verbose commands MAY log."); r.code != 0 || !strings.Contains(r.stderr, "level=") {
		t.Errorf("store -v: code %d, stderr %q; want log lines", r.code, r.stderr)
	}
	c.vars["RECALL_LOG_LEVEL"] = "debug"
	if r := c.run("", "store", "Configured logs MAY be chatty."); !strings.Contains(r.stderr, "level=") {
		t.Errorf("store with RECALL_LOG_LEVEL=debug logged nothing")
	}
}

func TestDoctorFailsOnlyForWhatIsEssential(t *testing.T) {
	c := newCLIEnv(t)
	blocker := filepath.Join(c.dir, "not-a-directory")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c.vars["RECALL_SQLITE_PATH"] = filepath.Join(blocker, "recall.db")
	r := c.run("", "doctor")
	if r.code != 1 || !strings.Contains(r.stdout, "[FAIL] database") || !strings.Contains(r.stdout, "essential") {
		t.Errorf("doctor with an unusable database path: code %d, want 1 and an essential FAIL\n%s", r.code, r.stdout)
	}
}

// TestBuildWithoutTheTagNamesIt: without -tags sqlite_fts5 the build fails
// and says which tag, rather than a binary failing at run time with "no such
// module: fts5".
func TestBuildWithoutTheTagNamesIt(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the compiler")
	}
	cmd := exec.Command("go", "build", "-o", os.DevNull, "../cmd/recall")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatal("recall built without -tags sqlite_fts5")
	}
	if !strings.Contains(string(out), "-tags sqlite_fts5") {
		t.Errorf("the build error does not name the tag:\n%s", out)
	}
}

// TestServeFillsPendingEmbeddingsAtStart: memories stored while Ollama was
// down get their vectors when `recall serve` next starts, without a call.
func TestServeFillsPendingEmbeddingsAtStart(t *testing.T) {
	c := newCLIEnv(t)
	up := c.vars["RECALL_OLLAMA_HOST"]
	c.vars["RECALL_OLLAMA_HOST"] = "http://127.0.0.1:9" // nothing listens there
	for i := range 40 {
		c.store(fmt.Sprintf("Stored while Ollama was down, number %d.", i))
	}
	if out := c.ok("stats"); !strings.Contains(out, "40 pending") {
		t.Fatalf("stats before serve:\n%s", out)
	}
	c.vars["RECALL_OLLAMA_HOST"] = up
	var env []string
	for k, v := range c.vars {
		env = append(env, k+"="+v)
	}
	cs, _ := startStdio(t, append(os.Environ(), env...))
	defer cs.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out := c.ok("stats")
		if strings.Contains(out, ", 0 pending") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("recall serve did not fill the pending embeddings at start:\n%s", out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
