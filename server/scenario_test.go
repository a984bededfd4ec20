package server

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

// TestEveryToolWithGoodArguments walks through every tool the way an agent
// uses them and checks what comes back.
func TestEveryToolWithGoodArguments(t *testing.T) {
	cs := newFixture(t).connect(t)

	a := store(t, cs, map[string]any{
		"content":     "You MUST use table-driven tests in Go packages.",
		"memory_type": "preference",
		"namespace":   "project:demo",
		"importance":  0.8,
		"metadata":    map[string]any{"source": "review"},
	})
	stored := call(t, cs, "memory_store_tool", map[string]any{"content": "The release build SHOULD strip debug symbols."})
	b := stored["id"].(string)
	if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(stored["content_hash"].(string)) {
		t.Errorf("content_hash = %v, want 16 hex characters", stored["content_hash"])
	}
	if _, ok := stored["auto_relationships"].([]any); !ok {
		t.Errorf("auto_relationships = %v, want a list", stored["auto_relationships"])
	}
	if stored["memory_type"] != "session" || stored["namespace"] != "global" {
		t.Errorf("defaults: memory_type %v namespace %v, want session and global", stored["memory_type"], stored["namespace"])
	}
	dup := call(t, cs, "memory_store_tool", map[string]any{"content": "  You MUST use table-driven tests in Go packages.\n", "namespace": "project:demo"})
	if dup["id"] != a || dup["duplicate"] != true {
		t.Errorf("storing the same content again: id %v duplicate %v, want %s true", dup["id"], dup["duplicate"], a)
	}

	rec := call(t, cs, "memory_recall_tool", map[string]any{"query": "table-driven tests"})
	mems := rec["memories"].([]any)
	if len(mems) == 0 || mems[0].(map[string]any)["id"] != a {
		t.Fatalf("recall table-driven tests: %v, want %s first", mems, a)
	}
	// Two memories are too few to judge the vectors by: they count in full.
	if rec["search_mode"] != "hybrid" || rec["vector_weight"] != 1.0 {
		t.Errorf("recall search_mode %v, vector_weight %v; want hybrid with weight 1", rec["search_mode"], rec["vector_weight"])
	}
	if _, ok := rec["score"].(float64); !ok {
		t.Errorf("recall score = %v, want a number", rec["score"])
	}
	if rec["total"].(float64) != float64(len(mems)) {
		t.Errorf("recall total %v for %d memories", rec["total"], len(mems))
	}

	rel := call(t, cs, "memory_relate_tool", map[string]any{"source_id": a, "target_id": b, "relation": "relates_to"})
	edgeID := rel["edge_id"].(float64)
	if edgeID <= 0 {
		t.Errorf("edge_id = %v", rel["edge_id"])
	}
	graph := call(t, cs, "memory_inspect_graph_tool", map[string]any{"memory_id": a, "output_format": "mermaid"})
	if n := len(graph["edges"].([]any)); n != 1 {
		t.Errorf("inspect: %d edges, want 1", n)
	}
	if !strings.Contains(graph["mermaid"].(string), "graph") {
		t.Errorf("inspect mermaid = %q", graph["mermaid"])
	}
	related := call(t, cs, "memory_recall_tool", map[string]any{"query": "table-driven tests", "n_results": 1, "include_related": true})
	if exp, _ := related["expanded"].([]any); len(exp) != 1 || exp[0].(map[string]any)["id"] != b {
		t.Errorf("recall include_related expanded = %v, want %s", related["expanded"], b)
	}

	if c := call(t, cs, "memory_count_tool", nil); c["count"] != 2.0 {
		t.Errorf("count = %v, want 2", c["count"])
	}
	c := call(t, cs, "memory_count_tool", map[string]any{"namespace": "project:demo"})
	if c["count"] != 1.0 || c["filters"].(map[string]any)["namespace"] != "project:demo" {
		t.Errorf("count in project:demo = %v", c)
	}
	list := call(t, cs, "memory_list_tool", map[string]any{"limit": 1, "order_by": "importance"})
	page := list["pagination"].(map[string]any)
	if list["count"] != 1.0 || page["has_more"] != true || list["memories"].([]any)[0].(map[string]any)["id"] != a {
		t.Errorf("list limit 1 by importance: %v", list)
	}

	applied := call(t, cs, "memory_apply_tool", map[string]any{"memory_id": a, "context": "writing parser tests", "session_id": "s1"})
	if applied["event_id"].(float64) <= 0 {
		t.Errorf("apply event_id = %v", applied["event_id"])
	}
	out := call(t, cs, "memory_outcome_tool", map[string]any{"memory_id": a, "success": true, "session_id": "s1"})
	if out["outcome_success"] != true || !near(out["new_confidence"], 0.4) || out["promoted"] != false {
		t.Errorf("outcome success: %v, want new_confidence 0.4", out)
	}
	val := call(t, cs, "memory_validate_tool", map[string]any{"memory_id": a, "success": false})
	if !near(val["old_confidence"], 0.4) || !near(val["new_confidence"], 0.25) {
		t.Errorf("validate failure: %v, want 0.4 -> 0.25", val)
	}
	hist := call(t, cs, "validation_history_tool", map[string]any{"memory_id": a})
	sum := hist["summary"].(map[string]any)
	if sum["succeeded"] != 1.0 || sum["failed"] != 1.0 || !near(sum["success_rate"], 0.5) {
		t.Errorf("history summary = %v", sum)
	}

	det := call(t, cs, "memory_detect_contradictions", map[string]any{"memory_id": a})
	if _, ok := det["contradictions"].([]any); !ok {
		t.Errorf("detect contradictions = %v, want a list", det)
	}
	sup := call(t, cs, "memory_check_supersedes", map[string]any{"memory_id": a, "create_edge": false})
	if _, ok := sup["reason"].(string); !ok || sup["edge_created"] != false {
		t.Errorf("check supersedes = %v", sup)
	}
	health := call(t, cs, "memory_analyze_health", nil)
	if _, ok := health["recommendations"].([]any); !ok {
		t.Errorf("health = %v, want recommendations", health)
	}
	ctxOut := call(t, cs, "memory_context_tool", map[string]any{"query": "tests", "project": "demo"})
	if text := ctxOut["context"].(string); !strings.Contains(text, "table-driven") || ctxOut["token_estimate"].(float64) <= 0 {
		t.Errorf("context = %v", ctxOut)
	}

	call(t, cs, "file_activity_add", map[string]any{"file_path": "/src/app/main.go", "action": "Edit", "project_root": "/src/app"})
	added := call(t, cs, "file_activity_add", map[string]any{"file_path": "/src/app/main.go", "action": "read", "project_root": "/src/app"})
	if added["activity_id"].(float64) <= 0 || added["file_type"] == "" {
		t.Errorf("file_activity_add = %v, want activity_id and an inferred file_type", added)
	}
	recent := call(t, cs, "file_activity_recent", map[string]any{"project_root": "/src/app"})
	files := recent["files"].([]any)
	if recent["count"] != 1.0 || files[0].(map[string]any)["access_count"] != 2.0 {
		t.Errorf("file_activity_recent = %v, want main.go touched twice", recent)
	}

	gone := call(t, cs, "memory_edge_forget_tool", map[string]any{"edge_id": edgeID})
	if gone["deleted_count"] != 1.0 {
		t.Errorf("edge forget = %v", gone)
	}
	dry := callFailure(t, cs, "memory_forget_tool", map[string]any{"input": b, "confirm": false}, "Deletion not confirmed")
	would, _ := dry["would_delete"].(map[string]any)
	if ids := dry["deleted_ids"].([]any); len(ids) != 0 || would == nil || len(would["deleted_ids"].([]any)) != 1 {
		t.Errorf("forget without confirm = %v, want nothing deleted and one memory in would_delete", dry)
	}
	forgot := call(t, cs, "memory_forget_tool", map[string]any{"memory_id": b})
	if forgot["deleted_count"] != 1.0 {
		t.Errorf("forget = %v", forgot)
	}
	if c := call(t, cs, "memory_count_tool", nil); c["count"] != 1.0 {
		t.Errorf("count after forget = %v, want 1", c["count"])
	}
}

// TestGoldenRuleNeedsForce promotes a memory and checks that forget refuses it
// until force is given.
func TestGoldenRuleNeedsForce(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t)
	id := store(t, cs, map[string]any{"content": "You MUST NOT commit secrets.", "memory_type": "decision"})
	val := call(t, cs, "memory_validate_tool", map[string]any{"memory_id": id, "success": true, "adjustment": 0.6})
	if val["promoted"] != true || val["memory_type"] != "golden_rule" {
		t.Fatalf("validate to 0.9 = %v, want promoted to golden_rule", val)
	}
	// The promotion is in the change log, as caused through the MCP tools.
	if log, err := f.mem.Changes(t.Context(), id); err != nil || len(log) != 1 || log[0].Action != memory.ChangePromote || log[0].Source != memory.SourceMCP {
		t.Errorf("change log after the promotion: %+v, %v; want one promote from mcp", log, err)
	}
	if msg := callErr(t, cs, "memory_forget_tool", map[string]any{"memory_id": id}, id, "force=true"); strings.Count(msg, "force") != 1 {
		t.Errorf("the golden rule's error should give its advice once: %q", msg)
	}
	if c := call(t, cs, "memory_count_tool", nil); c["count"] != 1.0 {
		t.Fatalf("golden rule deleted without force")
	}
	forgot := call(t, cs, "memory_forget_tool", map[string]any{"memory_id": id, "force": true})
	if !slices.Contains(forgot["deleted_ids"].([]any), any(id)) {
		t.Errorf("forget with force = %v", forgot)
	}
}

func near(v any, want float64) bool {
	f, ok := v.(float64)
	return ok && f > want-1e-9 && f < want+1e-9
}
