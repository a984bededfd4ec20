package tests

import (
	"context"
	"encoding/json"
	"testing"
)

// TestStaleDaysSettingIsTheToolDefault: RECALL_STALE_DAYS is what
// memory_analyze_health uses when a client leaves stale_days out (the schema
// default clients see and fill in).
func TestStaleDaysSettingIsTheToolDefault(t *testing.T) {
	env, _ := recallEnv(t, "RECALL_STALE_DAYS=7")
	cs, _ := startStdio(t, env)
	defer cs.Close()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name != "memory_analyze_health" {
			continue
		}
		b, _ := json.Marshal(tool.InputSchema)
		var schema struct {
			Properties map[string]struct {
				Default any `json:"default"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(b, &schema); err != nil {
			t.Fatal(err)
		}
		if d := schema.Properties["stale_days"].Default; d != 7.0 {
			t.Errorf("stale_days default %v, want 7 from RECALL_STALE_DAYS", d)
		}
		return
	}
	t.Fatal("memory_analyze_health not listed")
}
