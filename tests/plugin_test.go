package tests

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/hook"
)

// The plugin files at the repository root are what Claude Code installs; these
// tests check that they start commands the binary has.

func readJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestPluginHooksRunRecallHookEvents(t *testing.T) {
	var cfg struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	readJSONFile(t, "../hooks/hooks.json", &cfg)
	want := map[string]string{
		"SessionStart": "session-start", "UserPromptSubmit": "user-prompt-submit",
		"PostToolUse": "post-tool-use", "Stop": "stop", "PreCompact": "pre-compact",
		"SessionEnd": "session-end",
	}
	if len(cfg.Hooks) != len(want) {
		t.Fatalf("hooks.json wires %d events, want %d", len(cfg.Hooks), len(want))
	}
	for name, event := range want {
		groups := cfg.Hooks[name]
		if len(groups) != 1 || len(groups[0].Hooks) != 1 {
			t.Fatalf("%s: want one command hook, got %+v", name, groups)
		}
		h := groups[0].Hooks[0]
		if h.Type != "command" || h.Command != "recall hook "+event {
			t.Errorf("%s runs %q (%s), want `recall hook %s`", name, h.Command, h.Type, event)
		}
		if ev, err := hook.ParseEvent(strings.TrimPrefix(h.Command, "recall hook ")); err != nil || ev != event {
			t.Errorf("%s: the binary does not accept %q: %v", name, h.Command, err)
		}
		// The hook gives up on Ollama after RECALL_HOOK_TIMEOUT (100ms) and on
		// everything 2s later; Claude Code must wait longer than that.
		if h.Timeout <= 5 {
			t.Errorf("%s timeout %ds leaves the hook no time to give up on its own", name, h.Timeout)
		}
	}
	// Every tool call is captured (one journal line each), not only file tools.
	if m := cfg.Hooks["PostToolUse"][0].Matcher; m != "*" {
		t.Errorf("PostToolUse matcher %q, want every tool (*)", m)
	}
}

func TestPluginStartsTheMCPServer(t *testing.T) {
	var mcp struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	readJSONFile(t, "../.mcp.json", &mcp)
	s, ok := mcp.MCPServers["recall"]
	if !ok || s.Command != "recall" || strings.Join(s.Args, " ") != "serve" {
		t.Fatalf(".mcp.json should start `recall serve`, got %+v", mcp.MCPServers)
	}
	var manifest struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	readJSONFile(t, "../.claude-plugin/plugin.json", &manifest)
	if manifest.Name != "recall" || manifest.Version == "" {
		t.Fatalf("plugin.json = %+v, want name recall and a version", manifest)
	}
}

// TestMarketplaceListsThisPlugin: `/plugin marketplace add` on the repository
// reads .claude-plugin/marketplace.json; its entry must point at this
// directory's plugin, under the plugin's own name and version.
func TestMarketplaceListsThisPlugin(t *testing.T) {
	var market struct {
		Name  string `json:"name"`
		Owner struct {
			Name string `json:"name"`
		} `json:"owner"`
		Plugins []struct {
			Name    string `json:"name"`
			Source  string `json:"source"`
			Version string `json:"version"`
		} `json:"plugins"`
	}
	readJSONFile(t, "../.claude-plugin/marketplace.json", &market)
	var plugin struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	readJSONFile(t, "../.claude-plugin/plugin.json", &plugin)
	if market.Name == "" || market.Owner.Name == "" || len(market.Plugins) != 1 {
		t.Fatalf("marketplace.json needs a name, an owner name and one plugin: %+v", market)
	}
	p := market.Plugins[0]
	if p.Name != plugin.Name || p.Version != plugin.Version {
		t.Errorf("marketplace entry %s %s, plugin.json %s %s", p.Name, p.Version, plugin.Name, plugin.Version)
	}
	if fi, err := os.Stat("../" + p.Source + "/.claude-plugin/plugin.json"); p.Source == "" || err != nil || fi.IsDir() {
		t.Errorf("marketplace source %q does not lead to the plugin: %v", p.Source, err)
	}
}

func TestPluginSkillTellsWhenToSearchHistory(t *testing.T) {
	b, err := os.ReadFile("../skills/conversation-history/SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	front, body, ok := strings.Cut(strings.TrimPrefix(text, "---\n"), "\n---\n")
	if !strings.HasPrefix(text, "---\n") || !ok {
		t.Fatalf("SKILL.md has no frontmatter")
	}
	if !strings.Contains(front, "name: conversation-history") || !strings.Contains(front, "description: ") {
		t.Errorf("frontmatter lacks name or description:\n%s", front)
	}
	// The tools it names are the server's (the server tests check those names).
	for _, tool := range []string{"search_project_history", "search_global_history", "read_history"} {
		if !strings.Contains(body, tool) {
			t.Errorf("SKILL.md does not say when to use %s", tool)
		}
	}
}
