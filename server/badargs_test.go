package server

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestBadArgumentsAreToolErrors checks that every kind of bad argument comes
// back as a tool error naming the field and what is accepted, and that the
// server keeps answering afterwards.
func TestBadArgumentsAreToolErrors(t *testing.T) {
	cs := newFixture(t).connect(t)
	id := store(t, cs, map[string]any{"content": "Builds SHOULD be reproducible."})
	other := store(t, cs, map[string]any{"content": "Releases MUST be signed."})
	unknown := "mem_1700000000000_deadbeef"

	cases := []struct {
		name  string
		tool  string
		args  map[string]any
		wants []string
	}{
		{"wrong type", "memory_store_tool", map[string]any{"content": "x", "importance": "high"}, []string{"importance", "number"}},
		{"missing required", "memory_store_tool", map[string]any{"memory_type": "session"}, []string{"content"}},
		{"unknown argument", "memory_store_tool", map[string]any{"content": "x", "namspace": "global"}, []string{"namspace"}},
		{"empty content", "memory_store_tool", map[string]any{"content": "   "}, []string{"content", "non-empty"}},
		{"bad namespace", "memory_store_tool", map[string]any{"content": "x", "namespace": "myproject"}, []string{"namespace", "project:<name>"}},
		{"bad memory type", "memory_store_tool", map[string]any{"content": "x", "memory_type": "fact"}, []string{"memory_type", "preference"}},
		{"importance out of range", "memory_store_tool", map[string]any{"content": "x", "importance": 1.5}, []string{"importance", "0 to 1"}},
		{"negative importance", "memory_store_tool", map[string]any{"content": "x", "importance": -0.1}, []string{"importance", "0 to 1"}},
		{"list limit -5", "memory_list_tool", map[string]any{"limit": -5}, []string{"limit", "1000"}},
		{"bad order_by", "memory_list_tool", map[string]any{"order_by": "size"}, []string{"order_by", "created_at"}},
		{"bad recall namespace", "memory_recall_tool", map[string]any{"query": "builds", "namespace": "project:"}, []string{"namespace"}},
		{"decay factor out of range", "memory_recall_tool", map[string]any{"query": "builds", "decay_factor": 7}, []string{"decay_factor"}},
		{"bad edge type", "memory_recall_tool", map[string]any{"query": "builds", "include_edge_types": []string{"likes"}}, []string{"include_edge_types", "relates_to"}},
		{"unknown id", "memory_inspect_graph_tool", map[string]any{"memory_id": unknown}, []string{unknown, "not found"}},
		{"malformed id", "memory_inspect_graph_tool", map[string]any{"memory_id": "42"}, []string{"memory_id", "mem_<digits>_<hex>"}},
		{"bad direction", "memory_inspect_graph_tool", map[string]any{"memory_id": id, "direction": "up"}, []string{"direction", "outgoing"}},
		{"bad relation", "memory_relate_tool", map[string]any{"source_id": id, "target_id": other, "relation": "likes"}, []string{"relation", "relates_to"}},
		{"relate unknown target", "memory_relate_tool", map[string]any{"source_id": id, "target_id": unknown, "relation": "relates_to"}, []string{unknown}},
		{"forget unknown id", "memory_forget_tool", map[string]any{"memory_id": unknown}, []string{unknown, "not found"}},
		{"validate unknown id", "memory_validate_tool", map[string]any{"memory_id": unknown, "success": true}, []string{unknown, "not found"}},
		{"outcome without success", "memory_outcome_tool", map[string]any{"memory_id": id}, []string{"success"}},
		{"history bad event type", "validation_history_tool", map[string]any{"memory_id": id, "event_type": "exploded"}, []string{"event_type", "applied"}},
		{"bad file action", "file_activity_add", map[string]any{"file_path": "/a.go", "action": "delete"}, []string{"action", "multiedit"}},
		{"negative days", "file_activity_recent", map[string]any{"days": -3}, []string{"days"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := callErr(t, cs, c.tool, c.args, c.wants...)
			if contains(text, "validating root") || contains(text, "/properties/") {
				t.Errorf("error %q speaks of the schema, not of the argument", text)
			}
			t.Logf("%s: %s", c.tool, text)
		})
	}

	// Numbers JSON cannot hold as a float64, and numbers where text belongs.
	raw := []struct{ tool, args, want string }{
		{"memory_store_tool", `{"content": "x", "importance": 1e400}`, "1e400"},
		{"memory_store_tool", `{"content": "x", "importance": "NaN"}`, "importance"},
		{"memory_recall_tool", `{"query": 12}`, "query"},
	}
	for _, r := range raw {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: r.tool, Arguments: json.RawMessage(r.args)})
		if err != nil {
			t.Errorf("%s %s: protocol error %v, want a tool error", r.tool, r.args, err)
			continue
		}
		text := ContentText(res)
		if !res.IsError || !contains(text, r.want) {
			t.Errorf("%s %s: isError %v %q, want a tool error mentioning %q", r.tool, r.args, res.IsError, text, r.want)
		}
		for _, internal := range []string{"Go struct", "interface {}", "reflect", "validating root", "/properties/"} {
			if contains(text, internal) {
				t.Errorf("%s %s: error %q shows internals (%q)", r.tool, r.args, text, internal)
			}
		}
		t.Logf("%s %s: %s", r.tool, r.args, text)
	}

	// After all that the server still answers.
	if c := call(t, cs, "memory_count_tool", nil); c["count"] != 2.0 {
		t.Errorf("count = %v, want 2", c["count"])
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || (len(s) >= len(sub) && indexOf(s, sub) >= 0)
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// TestNullArgumentsTakeTheDefaults sends "arguments": null, which some clients
// do for tools without required parameters.
func TestNullArgumentsTakeTheDefaults(t *testing.T) {
	cs := newFixture(t).connect(t)
	store(t, cs, map[string]any{"content": "Health checks SHOULD run weekly."})
	for _, tool := range []string{"memory_analyze_health", "memory_list_tool", "file_activity_recent", "memory_count_tool"} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage("null")})
		if err != nil {
			t.Fatalf("%s with null arguments: %v", tool, err)
		}
		if res.IsError {
			t.Fatalf("%s with null arguments: %s", tool, ContentText(res))
		}
	}
	list := call(t, cs, "memory_list_tool", nil)
	if p := list["pagination"].(map[string]any); p["limit"] != 100.0 {
		t.Errorf("list with null arguments: limit %v, want the default 100", p["limit"])
	}
}
