//lint:file-ignore SA1019 the tests drive MCP roots, which the server still honours (see server/project.go).

package tests

import (
	"context"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// startStdioWith starts `recall serve` on stdio for a client built with opts
// and roots, speaking protocol (the latest when empty).
func startStdioWith(t *testing.T, env []string, protocol string, opts *mcp.ClientOptions, roots ...*mcp.Root) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(recallBin)
	cmd.Env = env
	cmd.Stderr = stderrFile(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-roots", Version: "1"}, opts)
	client.AddRoots(roots...)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatalf("start recall: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// contextMemories stores one memory in the project of dir (as the hooks name
// it) and one global, and returns their ids.
func contextMemories(t *testing.T, cs *mcp.ClientSession, ns string) (mine, global string) {
	t.Helper()
	mine = ok(t, cs, "memory_store_tool", map[string]any{"content": "Orders MUST be cached in Redis with a five minute TTL", "memory_type": "decision", "namespace": ns})["id"].(string)
	global = ok(t, cs, "memory_store_tool", map[string]any{"content": "You MUST write commit messages in the imperative mood", "memory_type": "preference"})["id"].(string)
	return mine, global
}

func TestContextWithoutProjectUsesTheClientsRoots(t *testing.T) {
	// The latest protocol answers roots/list in a second round trip of the
	// call; older ones let the server ask while serving the call.
	for _, protocol := range []string{"", "2025-06-18"} {
		t.Run("protocol "+protocol, func(t *testing.T) {
			env, _ := recallEnv(t)
			dir := filepath.Join(t.TempDir(), "shop-api")
			gitRepo(t, dir)
			cs := startStdioWith(t, env, protocol, nil, &mcp.Root{URI: fileURI(dir), Name: "shop-api"})
			mine, global := contextMemories(t, cs, "project:shop-api")

			out := ok(t, cs, "memory_context_tool", map[string]any{})
			text := out["context"].(string)
			p, _ := out["project"].(map[string]any)
			if p["namespace"] != "project:shop-api" || p["source"] != "roots" || p["root"] != dir {
				t.Fatalf("context project = %v, want project:shop-api from the client's roots (%s)", p, dir)
			}
			if !strings.Contains(text, mine) || !strings.Contains(text, global) {
				t.Fatalf("context from the client's roots should hold %s and %s:\n%s", mine, global, text)
			}
		})
	}
}

func TestContextWithoutProjectOrRootsIsGlobalOnly(t *testing.T) {
	env, _ := recallEnv(t)
	// A client that does not declare the roots capability.
	cs := startStdioWith(t, env, "", &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	mine, global := contextMemories(t, cs, "project:shop-api")

	out := ok(t, cs, "memory_context_tool", map[string]any{})
	text := out["context"].(string)
	p, _ := out["project"].(map[string]any)
	if p["namespace"] != "" || p["source"] != "none" || !strings.Contains(p["note"].(string), "global memories only") {
		t.Fatalf("context project = %v, want none, global memories only", p)
	}
	if strings.Contains(text, mine) || !strings.Contains(text, global) {
		t.Fatalf("without a project the context should hold the global %s and not %s:\n%s", global, mine, text)
	}
}

func TestContextFromTheCLIUsesTheWorkingDirectory(t *testing.T) {
	c := newCLIEnv(t)
	root, cwd := newProject(t, c, "shop-api")
	mine := c.store("Orders MUST be cached in Redis with a five minute TTL", "--type", "decision", "--namespace", "project:shop-api")
	c.cwd = cwd
	out := c.call("memory_context_tool", `{}`)
	p, _ := out["project"].(map[string]any)
	if p["namespace"] != "project:shop-api" || p["source"] != "cwd" || p["root"] != root {
		t.Fatalf("context project = %v, want project:shop-api from the working directory", p)
	}
	if !strings.Contains(out["context"].(string), mine) {
		t.Fatalf("context lacks %s:\n%s", mine, out["context"])
	}
}
