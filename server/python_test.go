package server

import (
	"fmt"
	"strings"
	"testing"
)

// TestNullMeansNotGiven sends null for optional arguments, as clients of the
// Python Recall do for its Optional parameters: each takes its default.
func TestNullMeansNotGiven(t *testing.T) {
	cs := newFixture(t).connect(t)
	out := call(t, cs, "memory_store_tool", map[string]any{"content": "Deploys MUST be tagged.", "namespace": nil, "importance": nil, "metadata": nil, "memory_type": nil})
	if out["namespace"] != "global" || out["memory_type"] != "session" || out["error"] != nil {
		t.Errorf("store with nulls = %v, want the defaults and error null", out)
	}
	rec := call(t, cs, "memory_recall_tool", map[string]any{"query": "deploys", "namespace": nil, "memory_type": nil, "min_importance": nil, "include_edge_types": nil})
	if rec["total"] != 1.0 {
		t.Errorf("recall with nulls = %v, want one memory", rec)
	}
	call(t, cs, "memory_list_tool", map[string]any{"namespace": nil, "limit": nil, "descending": nil})
	// A required argument given as null is missing, said in words, never Go's.
	text := callErr(t, cs, "memory_store_tool", map[string]any{"content": nil}, "content")
	if strings.Contains(text, "reflect") {
		t.Errorf("error shows Go internals: %s", text)
	}
}

// TestFailuresHaveThePythonShape checks that tool errors of every origin
// (schema, service, refusal) carry {"success": false, "error": ...}.
func TestFailuresHaveThePythonShape(t *testing.T) {
	cs := newFixture(t).connect(t)
	callFailure(t, cs, "memory_store_tool", map[string]any{"content": "x", "importance": "high"}, "importance")
	callFailure(t, cs, "memory_store_tool", map[string]any{"content": "x", "namespace": "myproject"}, "namespace")
	callFailure(t, cs, "memory_validate_tool", map[string]any{"memory_id": "mem_1700000000000_deadbeef", "success": true}, "not found")
	golden := store(t, cs, map[string]any{"content": "Secrets MUST NOT be committed.", "memory_type": "golden_rule"})
	callFailure(t, cs, "memory_forget_tool", map[string]any{"memory_id": golden}, "force")
}

// TestListClampsTheLimit asks for more than 1000 memories: the Python Recall
// clamps, so do we, and the result says so.
func TestListClampsTheLimit(t *testing.T) {
	cs := newFixture(t).connect(t)
	store(t, cs, map[string]any{"content": "Logs SHOULD be structured."})
	out := call(t, cs, "memory_list_tool", map[string]any{"limit": 5000})
	p := out["pagination"].(map[string]any)
	if p["limit"] != 1000.0 || !strings.Contains(out["warning"].(string), "1000") {
		t.Errorf("list limit 5000 = pagination %v warning %v, want 1000 and a warning", p, out["warning"])
	}
}

// TestExpandedRelevanceIsThePathsOwn checks the Python Recall's relevance of a
// memory reached along edges: decay per hop times the edge weights, in [0, 1],
// with the path of edge types and the explanation.
func TestExpandedRelevanceIsThePathsOwn(t *testing.T) {
	cs := newFixture(t).connect(t)
	a := store(t, cs, map[string]any{"content": "Kubernetes clusters MUST use network policies."})
	b := store(t, cs, map[string]any{"content": "A breach of the payments namespace happened in March."})
	c := store(t, cs, map[string]any{"content": "Incident reviews SHOULD name a follow-up owner."})
	call(t, cs, "memory_relate_tool", map[string]any{"source_id": a, "target_id": b, "relation": "caused_by", "weight": 0.8})
	call(t, cs, "memory_relate_tool", map[string]any{"source_id": b, "target_id": c, "relation": "relates_to", "weight": 0.5})
	rec := call(t, cs, "memory_recall_tool", map[string]any{"query": "kubernetes network policies", "n_results": 1, "include_related": true, "max_depth": 2})
	exp := rec["expanded"].([]any)
	if len(exp) != 2 {
		t.Fatalf("expanded = %v, want b and c", exp)
	}
	for i, want := range []struct {
		id        string
		relevance float64
		path      string
		says      string
	}{
		{b, 0.56, "[caused_by]", "1 hop via caused_by, combined weight 0.56"},
		{c, 0.196, "[caused_by relates_to]", "2 hops via caused_by → relates_to, combined weight 0.20"},
	} {
		e := exp[i].(map[string]any)
		if e["id"] != want.id || e["relevance_score"] != want.relevance || fmt.Sprint(e["path"]) != want.path || e["explanation"] != want.says {
			t.Errorf("expanded[%d] = %v, want relevance %v, path %s, %q", i, e, want.relevance, want.path, want.says)
		}
	}
}
