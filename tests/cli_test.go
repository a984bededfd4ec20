package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/embedding/ollamatest"
)

// cliEnv runs the recall binary against its own database and fake Ollama, with
// nothing inherited from the machine's RECALL_* settings.
type cliEnv struct {
	t      testing.TB
	dir    string
	dbPath string
	ollama *ollamatest.Server
	vars   map[string]string
	cwd    string // working directory of the runs: a temporary directory outside git unless set
}

func newCLIEnv(t testing.TB) *cliEnv {
	t.Helper()
	dir := dataDir(t)
	// The runs' working directory is outside any git repository, so that
	// a store without --namespace goes to global, not to this repository's project.
	c := &cliEnv{t: t, dir: dir, dbPath: filepath.Join(dir, "recall.db"), ollama: ollamatest.New(t), cwd: dir}
	c.vars = map[string]string{
		"RECALL_SQLITE_PATH": c.dbPath,
		"RECALL_OLLAMA_HOST": c.ollama.URL(),
		"RECALL_LOG_LEVEL":   "debug",
		// A hook's time is its vector budget plus 2 s. Tests read what a hook
		// wrote right after it; on a busy machine a fresh hook process can
		// pass a deadline of a few seconds and keep its write in the spool.
		// Tests of a hook's timing set their own.
		"RECALL_HOOK_TIMEOUT": "10s",
		"HOME":                dir, // doctor looks for Claude Code's files under it
		// No background history indexer outlives a test unless it asks for one.
		"RECALL_HISTORY": "off",
	}
	return c
}

// cliResult is what one run of the binary printed and how it exited.
type cliResult struct {
	stdout, stderr string
	code           int
}

// run runs recall with args and stdin.
func (c *cliEnv) run(stdin string, args ...string) cliResult {
	c.t.Helper()
	cmd := exec.CommandContext(context.Background(), recallBin, args...)
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if _, overridden := c.vars[name]; !overridden && !strings.HasPrefix(name, "RECALL_") && !strings.HasPrefix(name, "OLLAMA_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	for k, v := range c.vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Dir = c.cwd
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	res := cliResult{stdout: out.String(), stderr: errOut.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		res.code = ee.ExitCode()
	} else if err != nil {
		c.t.Fatalf("run recall %v: %v", args, err)
	}
	return res
}

// ok runs recall and fails the test unless it exits 0.
func (c *cliEnv) ok(args ...string) string {
	c.t.Helper()
	r := c.run("", args...)
	if r.code != 0 {
		c.t.Fatalf("recall %s exited %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

var storedID = regexp.MustCompile(`stored (\S+) \(`)

// store stores a memory with the CLI and returns its id.
func (c *cliEnv) store(content string, flags ...string) string {
	c.t.Helper()
	out := c.ok(append(append([]string{"store"}, flags...), content)...)
	m := storedID.FindStringSubmatch(out)
	if m == nil {
		c.t.Fatalf("store printed no id: %q", out)
	}
	return m[1]
}

// call runs one tool and decodes its JSON result.
func (c *cliEnv) call(tool, args string) map[string]any {
	c.t.Helper()
	out := c.ok("call", tool, args)
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		c.t.Fatalf("recall call %s printed no JSON object: %v\n%s", tool, err, out)
	}
	return v
}

func TestCLIStoreSearchListForget(t *testing.T) {
	c := newCLIEnv(t)
	redis := c.store("Orders MUST be cached in Redis with a five minute TTL", "--type", "decision", "--namespace", "project:shop", "--importance", "0.8")
	tabs := c.store("You MUST indent Go code with tabs", "--type", "preference")

	if out := c.ok("store", "--type", "decision", "--namespace", "project:shop", "Orders MUST be cached in Redis with a five minute TTL"); !strings.Contains(out, "already stored "+redis) {
		t.Fatalf("storing the same content again should name the existing memory %s:\n%s", redis, out)
	}

	out := c.ok("search", "redis", "cache", "for", "orders")
	if lines := strings.Split(out, "\n"); len(lines) < 2 || !strings.Contains(lines[1], "100%   "+redis+"  decision    project:shop") || !strings.Contains(out, "Orders MUST be cache") {
		t.Fatalf("search should rank the Redis decision first:\n%s", out)
	}
	if strings.Contains(out, "keyword search only") {
		t.Fatalf("with Ollama up, search should not say it degraded:\n%s", out)
	}

	out = c.ok("search", "--namespace", "global", "indent", "tabs")
	if !strings.Contains(out, tabs) || strings.Contains(out, redis) {
		t.Fatalf("search in global should find only the tabs preference:\n%s", out)
	}

	out = c.ok("list")
	if !strings.Contains(out, redis) || !strings.Contains(out, tabs) || !strings.Contains(out, "showing 1-2 of 2") {
		t.Fatalf("list should show both memories:\n%s", out)
	}
	out = c.ok("list", "--type", "preference")
	if !strings.Contains(out, tabs) || strings.Contains(out, redis) {
		t.Fatalf("list --type preference should show only the preference:\n%s", out)
	}

	out = c.ok("forget", "Redis TTL")
	if !strings.Contains(out, "would delete "+redis) || !strings.Contains(out, "--yes") {
		t.Fatalf("forget by query without --yes should only show what it would delete:\n%s", out)
	}
	if !strings.Contains(c.ok("list"), redis) {
		t.Fatal("a dry run deleted the memory")
	}
	if out = c.ok("forget", redis); !strings.Contains(out, "deleted "+redis) {
		t.Fatalf("forget by id should delete:\n%s", out)
	}
	if out = c.ok("list"); strings.Contains(out, redis) || !strings.Contains(out, tabs) {
		t.Fatalf("after forget only the tabs preference should remain:\n%s", out)
	}
}

func TestCLISearchSaysWhenOllamaIsDown(t *testing.T) {
	c := newCLIEnv(t)
	id := c.store("Deploys MUST go through the staging cluster first", "--type", "decision")
	c.ollama.Close()
	out := c.ok("search", "staging", "deploys")
	if !strings.Contains(out, "keyword search only") || !strings.Contains(out, id) {
		t.Fatalf("search without Ollama should find by keywords and say so:\n%s", out)
	}
}

func TestCLIStoreRefusesBadInput(t *testing.T) {
	c := newCLIEnv(t)
	r := c.run("", "store", "--type", "opinion", "Tabs are nice")
	if r.code != 1 || !strings.Contains(r.stderr, "memory_type") || !strings.Contains(r.stderr, "preference") {
		t.Fatalf("an unknown type should fail naming the field and the accepted types; code %d, stderr %q", r.code, r.stderr)
	}
	r = c.run("", "store")
	if r.code != 2 || !strings.Contains(r.stderr, "missing the content") || !strings.Contains(r.stderr, "recall store --help") {
		t.Fatalf("store without content should be a usage error; code %d, stderr %q", r.code, r.stderr)
	}
	r = c.run("", "frobnicate")
	if r.code != 2 || !strings.Contains(r.stderr, `unknown command "frobnicate"`) {
		t.Fatalf("unknown command: code %d, stderr %q", r.code, r.stderr)
	}
}

func TestCLIStats(t *testing.T) {
	c := newCLIEnv(t)
	c.store("Use pnpm, never npm, in this repository", "--type", "preference", "--namespace", "project:web")
	c.store("Every endpoint MUST have an integration test", "--type", "pattern")
	out := c.ok("stats")
	for _, want := range []string{"memories:           2", "project:web 1", "global 1", "pattern 1", "preference 1", "mxbai-embed-large (dimension 1024), 0 pending", c.dbPath} {
		if !strings.Contains(out, want) {
			t.Errorf("stats lacks %q:\n%s", want, out)
		}
	}
	var st map[string]any
	if err := json.Unmarshal([]byte(c.ok("stats", "--json")), &st); err != nil || st["memories"] != float64(2) {
		t.Fatalf("stats --json = %v (%v), want memories 2", st, err)
	}
}

func TestCLIVersionAndHelp(t *testing.T) {
	c := newCLIEnv(t)
	if out := c.ok("version"); !strings.HasPrefix(out, "recall ") {
		t.Fatalf("version printed %q", out)
	}
	help := c.ok("--help")
	for _, want := range []string{"serve", "call", "hook", "doctor", "reindex", "recall help config"} {
		if !strings.Contains(help, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
	config := c.ok("help", "config")
	for _, want := range []string{"RECALL_SQLITE_PATH", "RECALL_OLLAMA_MODEL", "RECALL_HOOK_TIMEOUT", "RECALL_OLLAMA "} {
		if !strings.Contains(config, want) {
			t.Errorf("help config lacks %q", want)
		}
	}
	out := c.ok("search", "--help")
	if !strings.Contains(out, "recall search") || !strings.Contains(out, "--namespace") {
		t.Fatalf("search --help should explain the command and its flags:\n%s", out)
	}
}

func TestCLICallRunsATool(t *testing.T) {
	c := newCLIEnv(t)
	res := c.call("memory_store_tool", `{"content": "Migrations MUST be reversible", "memory_type": "pattern", "namespace": "project:db"}`)
	id, _ := res["id"].(string)
	if id == "" {
		t.Fatalf("memory_store_tool returned no id: %v", res)
	}
	count := c.call("memory_count_tool", `{"namespace": "project:db"}`)
	if count["count"] != float64(1) {
		t.Fatalf("memory_count_tool = %v, want count 1", count)
	}
	recalled := c.call("memory_recall_tool", `{"query": "reversible migrations", "namespace": "project:db"}`)
	if !strings.Contains(mustJSON(t, recalled), id) {
		t.Fatalf("memory_recall_tool did not return %s: %v", id, recalled)
	}
}

func TestCLICallReportsToolErrors(t *testing.T) {
	c := newCLIEnv(t)
	r := c.run("", "call", "memory_store_tool", `{"content": "x", "importance": 7}`)
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "importance") {
		t.Fatalf("a bad argument should exit 1 with the field named on stderr; code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = c.run("", "call", "no_such_tool", `{}`)
	if r.code != 1 || !strings.Contains(r.stderr, "no_such_tool") {
		t.Fatalf("an unknown tool should exit 1 naming it; code %d, stderr %q", r.code, r.stderr)
	}
	r = c.run("", "call", "memory_count_tool", `{not json`)
	if r.code != 2 || !strings.Contains(r.stderr, "not valid JSON") {
		t.Fatalf("malformed JSON arguments: code %d, stderr %q", r.code, r.stderr)
	}
}

func TestDoctorSaysWhichModelToPull(t *testing.T) {
	c := newCLIEnv(t)
	c.ollama.RemoveModel(ollamatest.DefaultEmbedModel)
	r := c.run("", "doctor")
	if r.code != 0 || !strings.Contains(r.stdout, "[warn] embedding model") || strings.Contains(r.stdout, "essential") {
		t.Fatalf("doctor with the embedding model missing exited %d, want 0 and a warning (Ollama is optional):\n%s", r.code, r.stdout)
	}
	if !strings.Contains(r.stdout, "ollama pull mxbai-embed-large") {
		t.Fatalf("doctor should say to pull the embedding model:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "[ok  ] database: schema") || !strings.Contains(r.stdout, "[ok  ] chat model llama3.2") {
		t.Fatalf("doctor should report the database and chat model fine:\n%s", r.stdout)
	}
}

func TestDoctorSaysToStartOllama(t *testing.T) {
	c := newCLIEnv(t)
	c.ollama.Close()
	r := c.run("", "doctor")
	if r.code != 0 || !strings.Contains(r.stdout, "[warn] Ollama") || !strings.Contains(r.stdout, "fix: ollama serve") || strings.Contains(r.stdout, "essential") {
		t.Fatalf("doctor without Ollama: code %d, want 0, a warning and the fix `ollama serve` (Ollama is optional):\n%s", r.code, r.stdout)
	}
}

func TestDoctorAllGood(t *testing.T) {
	c := newCLIEnv(t)
	c.store("Logs MUST go to stderr", "--type", "decision")
	r := c.run("", "doctor")
	if r.code != 0 || strings.Contains(r.stdout, "FAIL") || !strings.Contains(r.stdout, "embedding space: mxbai-embed-large, dimension 1024") {
		t.Fatalf("doctor with everything in place: code %d\n%s", r.code, r.stdout)
	}
}

func TestServeRefusesNonLoopbackAddress(t *testing.T) {
	c := newCLIEnv(t)
	r := c.run("", "serve", "--http", "0.0.0.0:0")
	if r.code != 1 || !strings.Contains(r.stderr, "--allow-remote") {
		t.Fatalf("serve on all interfaces: code %d, stderr %q", r.code, r.stderr)
	}
}

func TestServeReportsAnAddressInUse(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	c := newCLIEnv(t)
	r := c.run("", "serve", "--http", busy.Addr().String())
	if r.code == 0 || !strings.Contains(r.stderr, "address already in use") {
		t.Fatalf("serve on a taken port: code %d, stderr %q; want a failure naming the address in use", r.code, r.stderr)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestDoctorChecksClaudeCodeWiring(t *testing.T) {
	c := newCLIEnv(t)
	bin := filepath.Join(c.dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c.vars["PATH"] = bin + string(os.PathListSeparator) + os.Getenv("PATH")

	r := c.run("", "doctor")
	if r.code != 0 || !strings.Contains(r.stdout, "fix: claude mcp add --scope user recall -- recall serve") || !strings.Contains(r.stdout, "no recall hooks found") {
		t.Fatalf("doctor with Claude Code but no wiring should warn with the fix and exit 0; code %d\n%s", r.code, r.stdout)
	}

	settings := `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "recall hook session-start"}]}]}}`
	state := `{"mcpServers": {"recall": {"command": "recall", "args": ["serve"]}}}`
	if err := os.MkdirAll(filepath.Join(c.dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.dir, ".claude", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.dir, ".claude.json"), []byte(state), 0o644); err != nil {
		t.Fatal(err)
	}
	r = c.run("", "doctor")
	if r.code != 0 || !strings.Contains(r.stdout, "[ok  ] Claude Code: recall MCP server and hooks configured") {
		t.Fatalf("doctor with the wiring in place: code %d\n%s", r.code, r.stdout)
	}
}

func TestReindexAfterModelChange(t *testing.T) {
	c := newCLIEnv(t)
	id := c.store("Feature flags MUST be removed within a month of launch", "--type", "pattern")
	c.ollama.AddModel("nomic-embed-text")
	c.vars["RECALL_OLLAMA_MODEL"] = "nomic-embed-text"

	r := c.run("", "doctor")
	if r.code != 0 || !strings.Contains(r.stdout, "vectors were made by mxbai-embed-large") || !strings.Contains(r.stdout, "fix: recall reindex") {
		t.Fatalf("doctor after a model change should say to reindex; code %d\n%s", r.code, r.stdout)
	}
	if out := c.ok("search", "feature", "flags"); !strings.Contains(out, "keyword search only") || !strings.Contains(out, id) {
		t.Fatalf("before reindex search should fall back to keywords:\n%s", out)
	}

	r = c.run("", "reindex")
	if r.code != 0 || !strings.Contains(r.stderr, "re-embedding with nomic-embed-text") || !strings.Contains(r.stderr, "1/1 memories") || !strings.Contains(r.stderr, "done: 1 memory embedded") {
		t.Fatalf("reindex: code %d, stderr:\n%s", r.code, r.stderr)
	}
	if out := c.ok("stats"); !strings.Contains(out, "nomic-embed-text (dimension 1024), 0 pending") {
		t.Fatalf("after reindex the vectors should be nomic-embed-text's:\n%s", out)
	}
	if out := c.ok("search", "feature", "flags"); strings.Contains(out, "keyword search only") || !strings.Contains(out, id) {
		t.Fatalf("after reindex search should use vectors again:\n%s", out)
	}
}

func TestCLIForgetProtectsGoldenRules(t *testing.T) {
	c := newCLIEnv(t)
	id := c.store("You MUST NOT force-push to main", "--type", "golden_rule")
	r := c.run("", "forget", id)
	if r.code != 1 || !strings.Contains(r.stderr, "golden rule") || !strings.Contains(r.stderr, "--force") {
		t.Fatalf("forgetting a golden rule without --force: code %d, stderr %q", r.code, r.stderr)
	}
	if !strings.Contains(c.ok("list"), id) {
		t.Fatal("the golden rule was deleted without --force")
	}
	if out := c.ok("forget", "--force", id); !strings.Contains(out, "deleted "+id) {
		t.Fatalf("forget --force: %s", out)
	}
	if out := c.ok("list"); !strings.Contains(out, "no memories") {
		t.Fatalf("after forget --force the list should be empty:\n%s", out)
	}
}
