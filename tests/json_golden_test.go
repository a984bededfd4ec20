package tests

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite tests/testdata/json/*.json from what recall prints")

// What varies from run to run is replaced before comparing: ids, times,
// scores (they depend on the fusion weights) and the database path.
var (
	goldenID    = regexp.MustCompile(`mem_\d+_[0-9a-f]+`)
	goldenTime  = regexp.MustCompile(`"\d{4}-\d\d-\d\dT[0-9:.]+(Z|[+-]\d\d:\d\d)"`)
	goldenScore = regexp.MustCompile(`"(score|vector_weight)": [0-9.e-]+`)
)

func normalizeJSON(s string) string {
	ids := map[string]string{}
	s = goldenID.ReplaceAllStringFunc(s, func(id string) string {
		if _, ok := ids[id]; !ok {
			ids[id] = "MEMORY_" + string(rune('A'+len(ids)))
		}
		return ids[id]
	})
	s = goldenTime.ReplaceAllString(s, `"TIME"`)
	return goldenScore.ReplaceAllString(s, `"$1": SCORE`)
}

// TestJSONOutputIsStable compares every command's --json with the files in
// testdata/json: the field names are the MCP tools', and scripts rely on
// them. A deliberate change is made with go test ./tests -run
// TestJSONOutputIsStable -update-golden, and reviewed in the diff.
func TestJSONOutputIsStable(t *testing.T) {
	c := newCLIEnv(t)
	c.vars["RECALL_CURATION"] = "off" // no background links: the output is the same every run
	add := c.ok("add", "--json", "--type", "decision", "--namespace", "project:shop", "Orders MUST be cached in Redis with a five minute TTL")
	id := goldenID.FindString(add)
	old := c.store("Orders are cached in memcached", "--type", "decision", "--namespace", "project:shop")
	c.call("memory_relate_tool", `{"source_id":"`+id+`","target_id":"`+old+`","relation":"supersedes"}`)
	c.call("memory_outcome_tool", `{"memory_id":"`+id+`","success":true}`)
	c.ok("edit", id, "--importance", "0.8")
	outputs := map[string]string{
		"add":     add,
		"list":    c.ok("list", "--json"),
		"search":  c.ok("search", "--json", "redis cache orders"),
		"show":    c.ok("show", "--json", id),
		"rm":      c.ok("rm", "--json", old),
		"trash":   c.ok("restore", "--json"),
		"restore": c.ok("restore", "--json", old),
	}
	for name, out := range outputs {
		got := normalizeJSON(out)
		path := filepath.Join("testdata", "json", name+".json")
		if *updateGolden {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (make it with -update-golden)", err)
		}
		if got != string(want) {
			t.Errorf("recall %s --json changed; want %s:\n%s\ngot:\n%s", name, path, want, got)
		}
	}
	if !strings.Contains(outputs["list"], `"memory_type": "decision"`) || !strings.Contains(outputs["show"], `"relation": "supersedes"`) {
		t.Errorf("the outputs lack the tools' field names:\n%s\n%s", outputs["list"], outputs["show"])
	}
}
