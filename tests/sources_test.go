package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEachDoorRecordsItself: memories stored through the CLI, an agent's MCP
// tool (recall serve over stdio) and an import of a memory server's file say
// which door they came in through; recall show prints it and recall list
// --source picks them out.
func TestEachDoorRecordsItself(t *testing.T) {
	c := newCLIEnv(t)
	byCLI := c.store("Deploys wait for a green build", "--type", "decision", "--namespace", "global")
	cs := c.serve()
	byTool, _ := ok(t, cs, "memory_store_tool", map[string]any{"content": "Releases are tagged from main", "namespace": "global"})["id"].(string)
	cs.Close()
	graph := filepath.Join(c.dir, "memory.jsonl")
	if err := os.WriteFile(graph, []byte(`{"type":"entity","name":"Billing","entityType":"service","observations":["Invoices are sent on the first of the month"]}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c.ok("import", graph)

	for source, want := range map[string]string{"cli": byCLI, "mcp": byTool, "import": "Billing (service)"} {
		out := c.ok("list", "--source", source)
		if strings.Count(out, "\nmem_") != 1 || !strings.Contains(out, want) {
			t.Errorf("recall list --source %s: want only %s:\n%s", source, want, out)
		}
	}
	if show := c.ok("show", byCLI); !strings.Contains(show, " through cli ·") {
		t.Errorf("recall show of a memory stored with the CLI:\n%s", show)
	}
	if show := c.ok("show", byTool); !strings.Contains(show, " through mcp ·") {
		t.Errorf("recall show of a memory stored through MCP:\n%s", show)
	}
	if r := c.run("", "list", "--source", "Carrier Pigeon"); r.code != 2 || !strings.Contains(r.stderr, "mcp, cli, viewer, capture, import") {
		t.Errorf("an unknown source: exit %d, %q; want a usage error naming the doors", r.code, r.stderr)
	}
}
