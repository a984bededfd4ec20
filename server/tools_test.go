package server

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-mcp/recall/memory"
)

// toolNames are the tools of the Python Recall plus memory_edge_forget_tool,
// the conversation history tools and the three reading steps over captured
// sessions (recall_*).
var toolNames = []string{
	"file_activity_add", "file_activity_recent",
	"memory_analyze_health", "memory_apply_tool", "memory_check_supersedes",
	"memory_context_tool", "memory_count_tool", "memory_detect_contradictions",
	"memory_edge_forget_tool", "memory_forget_tool", "memory_inspect_graph_tool",
	"memory_list_tool", "memory_outcome_tool", "memory_recall_tool",
	"memory_relate_tool", "memory_store_tool", "memory_validate_tool",
	"read_history", "recall_details", "recall_search", "recall_timeline",
	"search_global_history", "search_project_history",
	"validation_history_tool",
}

// maxToolsListChars bounds tools/list: every client sends it to the model in
// every conversation.
const maxToolsListChars = 13000

func TestToolsListNamesDefaultsAndSize(t *testing.T) {
	cs := newFixture(t).connect(t)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	byName := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		byName[tool.Name] = tool
		if tool.Description == "" {
			t.Errorf("%s has no description", tool.Name)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, toolNames) {
		t.Fatalf("tools = %v\nwant %v", names, toolNames)
	}

	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tools/list: %d characters", len(b))
	if len(b) > maxToolsListChars {
		t.Errorf("tools/list is %d characters, more than %d", len(b), maxToolsListChars)
	}

	// The defaults of the tool table are in the schemas, where clients see them.
	wantDefaults := map[string]map[string]any{
		"memory_store_tool":            {"memory_type": "session", "namespace": "global", "importance": 0.5},
		"memory_edge_forget_tool":      {"direction": "both"},
		"memory_recall_tool":           {"n_results": 5.0, "include_related": false, "max_depth": 1.0, "max_expanded": 20.0, "decay_factor": 0.7},
		"memory_inspect_graph_tool":    {"max_depth": 2.0, "direction": "both", "include_scores": true, "decay_factor": 0.7, "output_format": "json"},
		"memory_relate_tool":           {"weight": 1.0, "force": false},
		"memory_context_tool":          {"token_budget": 4000.0},
		"memory_forget_tool":           {"n_results": 5.0, "confirm": true, "force": false},
		"memory_validate_tool":         {"adjustment": 0.1},
		"memory_detect_contradictions": {"similarity_threshold": 0.7, "create_edges": true},
		"memory_check_supersedes":      {"create_edge": true},
		"memory_analyze_health":        {"include_contradictions": true, "include_low_confidence": true, "include_stale": true, "stale_days": 30.0},
		"memory_list_tool":             {"limit": 100.0, "offset": 0.0, "order_by": "created_at", "descending": true},
		"validation_history_tool":      {"limit": 50.0},
		"file_activity_recent":         {"limit": 20.0, "days": 14.0},
		"search_project_history":       {"context_before_after": 3.0, "threshold": 0.2, "max_results": 10.0, "offset": 0.0, "include_subagents": true},
		"search_global_history":        {"context_before_after": 3.0, "threshold": 0.2, "max_results": 10.0, "offset": 0.0, "include_subagents": true},
		"read_history":                 {"window": 10.0},
	}
	for tool, defaults := range wantDefaults {
		var schema struct {
			Properties map[string]struct {
				Default any `json:"default"`
			} `json:"properties"`
		}
		raw, _ := json.Marshal(byName[tool].InputSchema)
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatal(err)
		}
		for param, want := range defaults {
			if got := schema.Properties[param].Default; got != want {
				t.Errorf("%s.%s default = %v, want %v", tool, param, got, want)
			}
		}
	}
}

// TestStoreToolRecordsItsDoor: a memory stored through memory_store_tool
// says it came in through MCP (the viewer's source filter reads it).
func TestStoreToolRecordsItsDoor(t *testing.T) {
	f := newFixture(t)
	id := store(t, f.connect(t), map[string]any{"content": "Releases are tagged from main"})
	m, err := f.mem.Get(context.Background(), id)
	if err != nil || m.Source != memory.SourceMCP {
		t.Fatalf("stored through the tool: %+v, %v; want source %q", m, err, memory.SourceMCP)
	}
}
