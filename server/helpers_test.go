package server

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/internal/servicetest"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/sqlite"
	"github.com/recall-mcp/recall/validation"
)

// fixture is a Recall server over a real database file and a fake Ollama.
type fixture struct {
	srv    *mcp.Server
	mem    *memory.Service
	cur    *validation.Service
	reader *capture.Reader
	db     *sqlite.DB
	ollama *ollamatest.Server
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	e := servicetest.New(t)
	hist := newHistory(t, filepath.Join(t.TempDir(), "no-transcripts-yet"), e.Client)
	reader := &capture.Reader{Store: e.DB, Memories: e.Mem}
	return &fixture{srv: New(Deps{Memory: e.Mem, Curation: e.Val, History: hist, Capture: reader, Version: "test", Logger: e.Log}),
		mem: e.Mem, cur: e.Val, reader: reader, db: e.DB, ollama: e.Ollama}
}

// connect opens a client session to the fixture's server over in-memory transports.
func (f *fixture) connect(t testing.TB) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// call calls a tool that must succeed and decodes its structured result.
func call(t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any) map[string]any {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): %v", tool, args, err)
	}
	if res.IsError {
		t.Fatalf("%s(%v): tool error: %s", tool, args, ContentText(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: structured result %s: %v", tool, b, err)
	}
	if out["success"] != true {
		t.Fatalf("%s: success is %v in %s", tool, out["success"], b)
	}
	return out
}

// callErr calls a tool that must fail with a tool error containing every one
// of wants, and returns the error text.
func callErr(t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any, wants ...string) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): protocol error %v, want a tool error", tool, args, err)
	}
	text := ContentText(res)
	if !res.IsError {
		t.Fatalf("%s(%v): succeeded with %s, want a tool error", tool, args, text)
	}
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s(%v): error %q does not mention %q", tool, args, text, w)
		}
	}
	return text
}

// callFailure calls a tool that must fail in the Python Recall's shape: a tool
// error whose structured content has success false and an error mentioning
// want. It returns the structured content.
func callFailure(t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any, want string) map[string]any {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): protocol error %v, want a tool error", tool, args, err)
	}
	if !res.IsError {
		t.Fatalf("%s(%v): succeeded with %s, want a tool error", tool, args, ContentText(res))
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil || out == nil {
		t.Fatalf("%s(%v): structured content %s is not an object", tool, args, b)
	}
	msg, _ := out["error"].(string)
	if out["success"] != false || !strings.Contains(msg, want) {
		t.Fatalf("%s(%v): structured content %s, want success false and an error mentioning %q", tool, args, b, want)
	}
	return out
}

// store stores a memory through the tool and returns its id.
func store(t testing.TB, cs *mcp.ClientSession, args map[string]any) string {
	t.Helper()
	out := call(t, cs, "memory_store_tool", args)
	id, _ := out["id"].(string)
	if !memory.LooksLikeID(id) {
		t.Fatalf("memory_store_tool returned id %v", out["id"])
	}
	return id
}

func countRequest() memory.CountRequest { return memory.CountRequest{} }
