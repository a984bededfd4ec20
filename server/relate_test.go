package server

import (
	"strings"
	"testing"
)

// TestRelateToolSupersedesAGoldenRuleOnlyWithForce: memory_relate_tool keeps
// the rule the review queue and the viewer keep: a supersedes edge onto a
// golden rule needs force, and the error says so once.
func TestRelateToolSupersedesAGoldenRuleOnlyWithForce(t *testing.T) {
	cs := newFixture(t).connect(t)
	golden := store(t, cs, map[string]any{"content": "Never deploy on Fridays.", "memory_type": "golden_rule"})
	newer := store(t, cs, map[string]any{"content": "Deploys on Fridays are fine before noon.", "memory_type": "decision"})

	text := callErr(t, cs, "memory_relate_tool", map[string]any{"source_id": newer, "target_id": golden, "relation": "supersedes"}, golden, "golden rule", "force")
	if strings.Count(text, "force") != 1 {
		t.Errorf("error %q gives its advice more than once", text)
	}
	out := call(t, cs, "memory_relate_tool", map[string]any{"source_id": newer, "target_id": golden, "relation": "supersedes", "force": true})
	if id, _ := out["edge_id"].(float64); id <= 0 {
		t.Errorf("with force: %v, want the new edge's id", out)
	}
}
