package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ollama/ollama/api"

	"github.com/recall-mcp/recall/embedding/ollamatest"
)

// waitForEdges polls memory_inspect_graph_tool until the memory has an edge or
// the wait runs out (background curation has no completion signal to wait on).
func waitForEdges(t *testing.T, cs *mcp.ClientSession, id string) []any {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		g := ok(t, cs, "memory_inspect_graph_tool", map[string]any{"memory_id": id})
		if edges, _ := g["edges"].([]any); len(edges) > 0 || time.Now().After(deadline) {
			return edges
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestModelCannotMakeAWorseValidatedMemorySupersedeABetterOne(t *testing.T) {
	ol := ollamatest.New(t)
	// The chat model is sure the new memory replaces the old one.
	ol.SetChat(func(api.ChatRequest) (string, error) {
		return `{"relation": "supersedes", "confidence": 0.95, "reason": "newer choice"}`, nil
	})
	env := append(os.Environ(),
		"RECALL_SQLITE_PATH="+filepath.Join(dataDir(t), "recall.db"),
		"RECALL_OLLAMA_HOST="+ol.URL(),
		"RECALL_LOG_LEVEL=WARN",
		"RECALL_HISTORY=off", // no background indexer reading the machine's transcripts
	)
	cs, _ := startStdio(t, env)
	defer cs.Close()

	proven := ok(t, cs, "memory_store_tool", map[string]any{
		"content": "Deploys to staging MUST use the blue green rollout with a health check", "memory_type": "decision",
	})["id"].(string)
	for range 4 { // 0.3 -> 0.7, four successes on record
		ok(t, cs, "memory_outcome_tool", map[string]any{"memory_id": proven, "success": true})
	}
	guess := ok(t, cs, "memory_store_tool", map[string]any{
		"content": "Deploys to staging MUST use the rolling rollout with a health check", "memory_type": "decision",
	})["id"].(string)

	edges := waitForEdges(t, cs, guess)
	if len(edges) != 1 {
		t.Fatalf("want one inferred edge between %s and %s, got %v", guess, proven, edges)
	}
	e := edges[0].(map[string]any)
	if e["relation"] != "contradicts" || e["source_id"] != guess || e["target_id"] != proven {
		t.Fatalf("the model's supersedes verdict against a better record should become %s contradicts %s, got %v", guess, proven, e)
	}
	rec := ok(t, cs, "memory_recall_tool", map[string]any{"query": "staging rollout deploys", "n_results": 5})
	found := false
	for _, m := range rec["memories"].([]any) {
		found = found || m.(map[string]any)["id"] == proven
	}
	if !found {
		t.Fatalf("the well-validated memory %s left recall: %v", proven, rec["memories"])
	}
	if r := ok(t, cs, "memory_analyze_health", map[string]any{}); !strings.Contains(mustJSON(t, r["contradictions"]), proven) {
		t.Errorf("health analysis should report the conflict with %s: %v", proven, r["contradictions"])
	}
}
