package tests

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-mcp/recall/internal/corpus"
)

// The only memories holding both "flamegraph" and "profiling"; the near misses
// hold one of the two.
var (
	flamegraphNotes = []string{
		"Open the flamegraph after profiling the billing package",
		"Profiling with pprof: read the flamegraph top-down",
		"A flamegraph from CPU profiling showed the JSON encoder hot",
	}
	flamegraphNearMisses = []string{
		"Profiling runs nightly in CI",
		"The flamegraph tool is vendored under tools/",
	}
)

// seedForget stores 200 varied memories, the near misses and the flamegraph
// notes through memory_store_tool, and returns the notes' ids, sorted.
func seedForget(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	for _, c := range append(corpus.Varied(200, 7), flamegraphNearMisses...) {
		ok(t, cs, "memory_store_tool", map[string]any{"content": c, "memory_type": "decision"})
	}
	var ids []string
	for _, c := range flamegraphNotes {
		ids = append(ids, ok(t, cs, "memory_store_tool", map[string]any{"content": c, "memory_type": "pattern"})["id"].(string))
	}
	slices.Sort(ids)
	return ids
}

func deletedIDs(t *testing.T, out map[string]any) []string {
	t.Helper()
	var ids []string
	for _, v := range out["deleted_ids"].([]any) {
		ids = append(ids, v.(string))
	}
	slices.Sort(ids)
	return ids
}

func memoryCount(t *testing.T, cs *mcp.ClientSession) int {
	t.Helper()
	return int(ok(t, cs, "memory_count_tool", map[string]any{})["count"].(float64))
}

func TestForgetToolDeletesOnlyWhatMatches(t *testing.T) {
	env, _ := recallEnv(t, "RECALL_CURATION=off")
	cs, _ := startStdio(t, env)
	defer cs.Close()
	want := seedForget(t, cs)
	total := memoryCount(t, cs)

	for _, q := range []string{"kubernetes helm chart", "write a haiku about autumn", "the and of"} {
		out := ok(t, cs, "memory_forget_tool", map[string]any{"query": q})
		if out["deleted_count"].(float64) != 0 || !strings.Contains(out["message"].(string), "nothing deleted") {
			t.Errorf("forget %q: %v, want nothing deleted and a message saying so", q, out)
		}
		out = ok(t, cs, "memory_forget_tool", map[string]any{"input": q})
		if out["deleted_count"].(float64) != 0 {
			t.Errorf("forget input %q deleted %v", q, out["deleted_ids"])
		}
	}
	if n := memoryCount(t, cs); n != total {
		t.Fatalf("queries about absent topics deleted %d memories", total-n)
	}

	dry := ok(t, cs, "memory_forget_tool", map[string]any{"query": "flamegraph profiling", "confirm": false})
	if got := deletedIDs(t, dry); !slices.Equal(got, want) || dry["dry_run"] != true {
		t.Errorf("confirm=false selected %v, want %v as a dry run", got, want)
	}
	if n := memoryCount(t, cs); n != total {
		t.Fatalf("confirm=false deleted %d memories", total-n)
	}

	out := ok(t, cs, "memory_forget_tool", map[string]any{"query": "flamegraph profiling"})
	if got := deletedIDs(t, out); !slices.Equal(got, want) {
		t.Fatalf("forget flamegraph profiling deleted %v, want exactly %v", got, want)
	}
	for _, d := range out["deleted"].([]any) {
		item := d.(map[string]any)
		if !slices.Contains(want, item["id"].(string)) || !strings.Contains(strings.ToLower(item["preview"].(string)), "flamegraph") {
			t.Errorf("deleted entry %v lacks its id or preview", item)
		}
	}
	if n := memoryCount(t, cs); n != total-3 {
		t.Errorf("%d memories left, want %d", n, total-3)
	}

	fails(t, cs, "memory_forget_tool", map[string]any{"memory_id": want[0]}, "not found")
}

func TestCLIForgetByQueryDeletesOnlyWhatMatches(t *testing.T) {
	c := newCLIEnv(t)
	c.vars["RECALL_CURATION"] = "off"
	cmd := exec.Command(recallBin, "serve")
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
	want := seedForget(t, cs)
	total := memoryCount(t, cs)
	cs.Close()

	if out := c.ok("forget", "--yes", "kubernetes", "helm", "chart"); !strings.Contains(out, "nothing deleted") {
		t.Errorf("forget of an absent topic printed %q", out)
	}
	out := c.ok("forget", "flamegraph", "profiling")
	if strings.Count(out, "would delete ") != 3 {
		t.Errorf("forget without --yes should show the 3 notes:\n%s", out)
	}
	out = c.ok("forget", "--yes", "flamegraph", "profiling")
	for _, id := range want {
		if !strings.Contains(out, "deleted "+id+"  ") {
			t.Errorf("forget --yes did not report %s with its preview:\n%s", id, out)
		}
	}
	if strings.Count(out, "deleted ") != 3 {
		t.Errorf("forget --yes deleted other memories:\n%s", out)
	}
	stats := c.call("memory_count_tool", "{}")
	if int(stats["count"].(float64)) != total-3 {
		t.Errorf("%v memories left, want %d", stats["count"], total-3)
	}
	r := c.run("", "forget", "mem_1700000000000_deadbeef")
	if r.code == 0 || !strings.Contains(r.stderr, "not found") {
		t.Errorf("forget of an absent id: code %d, stderr %q", r.code, r.stderr)
	}
}

func TestHookUserPromptSubmitInjectsNothingForUnrelatedPrompts(t *testing.T) {
	c := newCLIEnv(t)
	_, cwd := newProject(t, c, "shop-api")
	for _, note := range corpus.Varied(30, 3) {
		c.store(note, "--type", "decision", "--namespace", "project:shop-api")
	}
	drain := c.store("Drain the worker pool before a graceful shutdown", "--type", "pattern", "--namespace", "project:shop-api")
	unrelated := []string{"write a haiku about autumn", "what is the capital of France?", "please explain how rainbows form",
		"write a poem about a swimming pool at the beach"}
	for _, ollama := range []string{"up", "down"} {
		if ollama == "down" {
			c.vars["RECALL_OLLAMA_HOST"] = "http://127.0.0.1:1" // the keyword floor holds alone
		}
		for _, prompt := range unrelated {
			if a, r := c.hook("user-prompt-submit", hookInput(t, "UserPromptSubmit", cwd, map[string]any{"prompt": prompt})); a != nil {
				t.Errorf("Ollama %s: unrelated prompt %q injected:\n%s", ollama, prompt, r.stdout)
			}
		}
	}
	a, r := c.hook("user-prompt-submit", hookInput(t, "UserPromptSubmit", cwd, map[string]any{"prompt": "how do we handle graceful shutdown of the worker pool?"}))
	if a == nil {
		t.Fatalf("a prompt on stored topics injected nothing; stderr:\n%s", r.stderr)
	}
	if lines := indexLine.FindAllStringSubmatch(a.HookSpecificOutput.AdditionalContext, -1); len(lines) == 0 || lines[0][1] != drain {
		t.Errorf("want %s first:\n%s", drain, a.HookSpecificOutput.AdditionalContext)
	}
}
