package tests

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"syscall"
	"testing"
)

var wantTools = []string{
	"file_activity_add", "file_activity_recent",
	"memory_analyze_health", "memory_apply_tool", "memory_check_supersedes",
	"memory_context_tool", "memory_count_tool", "memory_detect_contradictions",
	"memory_edge_forget_tool", "memory_forget_tool", "memory_inspect_graph_tool",
	"memory_list_tool", "memory_outcome_tool", "memory_recall_tool",
	"memory_relate_tool", "memory_store_tool", "memory_validate_tool",
	"validation_history_tool",
}

func TestStdioListsTheEighteenTools(t *testing.T) {
	env, _ := recallEnv(t)
	cs, _ := startStdio(t, env)
	defer cs.Close()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, wantTools) {
		t.Fatalf("tools = %v\nwant %v", names, wantTools)
	}
	b, _ := json.Marshal(res)
	t.Logf("tools/list: %d characters", len(b))
	if len(b) > 12000 {
		t.Errorf("tools/list is %d characters, more than 12000", len(b))
	}
	if init := cs.InitializeResult(); init.ServerInfo.Name != "recall" || init.Instructions == "" {
		t.Errorf("initialize: server %q, instructions %q", init.ServerInfo.Name, init.Instructions)
	}
}

// TestStdioEveryTool drives every tool of the built binary as an agent would.
func TestStdioEveryTool(t *testing.T) {
	env, dbPath := recallEnv(t)
	cs, _ := startStdio(t, env)

	a := ok(t, cs, "memory_store_tool", map[string]any{
		"content": "You MUST run gofmt before committing Go code.", "memory_type": "preference", "namespace": "project:e2e", "importance": 0.9,
	})["id"].(string)
	b := ok(t, cs, "memory_store_tool", map[string]any{"content": "CI SHOULD run go vet on every push."})["id"].(string)

	rec := ok(t, cs, "memory_recall_tool", map[string]any{"query": "gofmt before committing"})
	if m := rec["memories"].([]any); len(m) == 0 || m[0].(map[string]any)["id"] != a {
		t.Errorf("recall: %v, want %s first", rec["memories"], a)
	}
	edge := ok(t, cs, "memory_relate_tool", map[string]any{"source_id": a, "target_id": b, "relation": "relates_to"})["edge_id"]
	if g := ok(t, cs, "memory_inspect_graph_tool", map[string]any{"memory_id": a}); len(g["nodes"].([]any)) != 2 {
		t.Errorf("inspect nodes = %v, want 2", g["nodes"])
	}
	if c := ok(t, cs, "memory_count_tool", map[string]any{})["count"]; c != 2.0 {
		t.Errorf("count = %v", c)
	}
	if l := ok(t, cs, "memory_list_tool", map[string]any{"namespace": "project:e2e"}); l["count"] != 1.0 {
		t.Errorf("list project:e2e = %v", l)
	}
	ok(t, cs, "memory_apply_tool", map[string]any{"memory_id": a, "context": "committing", "session_id": "e2e"})
	if o := ok(t, cs, "memory_outcome_tool", map[string]any{"memory_id": a, "success": true}); o["new_confidence"].(float64) <= 0.3 {
		t.Errorf("outcome = %v, want confidence above 0.3", o)
	}
	if v := ok(t, cs, "memory_validate_tool", map[string]any{"memory_id": a, "success": true}); v["new_confidence"].(float64) <= v["old_confidence"].(float64) {
		t.Errorf("validate = %v", v)
	}
	if h := ok(t, cs, "validation_history_tool", map[string]any{"memory_id": a}); len(h["events"].([]any)) < 2 {
		t.Errorf("history = %v", h)
	}
	ok(t, cs, "memory_detect_contradictions", map[string]any{"memory_id": a, "create_edges": false})
	ok(t, cs, "memory_check_supersedes", map[string]any{"memory_id": a, "create_edge": false})
	ok(t, cs, "memory_analyze_health", map[string]any{"namespace": "project:e2e"})
	if c := ok(t, cs, "memory_context_tool", map[string]any{"project": "e2e"}); !strings.Contains(c["context"].(string), "gofmt") {
		t.Errorf("context lacks the project memory: %v", c["context"])
	}
	ok(t, cs, "file_activity_add", map[string]any{"file_path": "/repo/main.go", "action": "write", "project_root": "/repo"})
	if f := ok(t, cs, "file_activity_recent", map[string]any{"project_root": "/repo"}); f["count"] != 1.0 {
		t.Errorf("recent files = %v", f)
	}
	if e := ok(t, cs, "memory_edge_forget_tool", map[string]any{"edge_id": edge}); e["deleted_count"] != 1.0 {
		t.Errorf("edge forget = %v", e)
	}
	if f := ok(t, cs, "memory_forget_tool", map[string]any{"input": b}); f["deleted_count"] != 1.0 {
		t.Errorf("forget = %v", f)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("recall exited with %v after stdin closed, want status 0", err)
	}
	if n := checkDatabase(t, dbPath); n != 1 {
		t.Errorf("database holds %d memories, want 1", n)
	}
}

// TestStdioBadArguments checks that bad arguments are tool errors that say
// what is accepted, and that the process survives them.
func TestStdioBadArguments(t *testing.T) {
	env, _ := recallEnv(t)
	cs, _ := startStdio(t, env)
	defer cs.Close()
	id := ok(t, cs, "memory_store_tool", map[string]any{"content": "Errors MUST be wrapped with context."})["id"].(string)
	unknown := "mem_1700000000000_0badc0de"

	fails(t, cs, "memory_store_tool", map[string]any{"content": "x", "importance": "very"}, "importance", "number")
	fails(t, cs, "memory_store_tool", json.RawMessage(`{"content": "x", "importance": 1e999}`), "importance")
	fails(t, cs, "memory_store_tool", map[string]any{"content": "x", "importance": 3}, "importance", "0 to 1")
	fails(t, cs, "memory_store_tool", map[string]any{"content": "x", "namespace": "team"}, "namespace", "project:<name>")
	fails(t, cs, "memory_recall_tool", map[string]any{"query": 7}, "query", "string")
	fails(t, cs, "memory_list_tool", map[string]any{"limit": -5}, "limit", "1000")
	fails(t, cs, "memory_inspect_graph_tool", map[string]any{"memory_id": unknown}, unknown, "not found")
	fails(t, cs, "memory_apply_tool", map[string]any{"memory_id": unknown, "context": "x"}, unknown, "not found")
	fails(t, cs, "memory_relate_tool", map[string]any{"source_id": id, "target_id": unknown, "relation": "relates_to"}, unknown)
	fails(t, cs, "file_activity_add", map[string]any{"file_path": "/x", "action": "chmod"}, "action", "read, write, edit, multiedit")

	golden := ok(t, cs, "memory_store_tool", map[string]any{"content": "You MUST NOT force-push to main.", "memory_type": "decision"})["id"].(string)
	if v := ok(t, cs, "memory_validate_tool", map[string]any{"memory_id": golden, "success": true, "adjustment": 0.6}); v["promoted"] != true {
		t.Fatalf("validate to 0.9 did not promote: %v", v)
	}
	fails(t, cs, "memory_forget_tool", map[string]any{"memory_id": golden}, "force=true")
	if c := ok(t, cs, "memory_count_tool", map[string]any{})["count"]; c != 2.0 {
		t.Errorf("count after refused forget = %v, want 2", c)
	}
	ok(t, cs, "memory_forget_tool", map[string]any{"memory_id": golden, "force": true})
}

// TestStdioSIGTERMExitsCleanly stops a serving process with SIGTERM: it exits
// with status 0 and every acknowledged write is in an intact database.
func TestStdioSIGTERMExitsCleanly(t *testing.T) {
	env, dbPath := recallEnv(t)
	cs, cmd := startStdio(t, env)
	for i := range 20 {
		ok(t, cs, "memory_store_tool", map[string]any{"content": "Acknowledged memory number " + string(rune('A'+i))})
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cs.Close(); err != nil {
		t.Fatalf("recall after SIGTERM: %v, want exit status 0", err)
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit code %d after SIGTERM, want 0", code)
	}
	if n := checkDatabase(t, dbPath); n != 20 {
		t.Errorf("database holds %d memories after SIGTERM, want 20", n)
	}
}
