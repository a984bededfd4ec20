package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// teamServer is a `recall serve --http` with an administrator's token and
// two people, alice and bob, added with `recall users add`.
type teamServer struct {
	*httpServer
	cli               *cliEnv
	admin, alice, bob string
}

const adminToken = "admin-token-of-the-team-e2e-0123456789abcdef"

func startTeam(t testing.TB) *teamServer {
	t.Helper()
	c := newCLIEnv(t)
	c.vars["RECALL_HTTP_TOKEN"] = adminToken
	c.vars["RECALL_LOG_LEVEL"] = "warn"
	ts := &teamServer{cli: c, admin: adminToken}
	ts.alice = strings.TrimSpace(c.ok("users", "add", "alice"))
	ts.bob = strings.TrimSpace(c.ok("users", "add", "bob"))
	if len(ts.alice) < 40 || ts.alice == ts.bob {
		t.Fatalf("tokens %q and %q: want two long, distinct tokens", ts.alice, ts.bob)
	}
	ts.httpServer = startHTTP(t, c.environ())
	return ts
}

func (ts *teamServer) session(t testing.TB, token string) *mcp.ClientSession {
	t.Helper()
	cs, err := connectHTTP(context.Background(), ts.url, token)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// missingLike is an id of the same form as id that names nothing.
func missingLike(id string) string {
	last := id[len(id)-1]
	repl := byte('0')
	if last == '0' {
		repl = '1'
	}
	return id[:len(id)-1] + string(repl)
}

// sameAsMissing calls tool with args naming id (another person's private
// memory) and with the same args naming an id that does not exist, and fails
// unless both answer alike (the ids aside).
func sameAsMissing(t *testing.T, cs *mcp.ClientSession, tool, id string, args map[string]any) {
	t.Helper()
	missing := missingLike(id)
	with := func(v string) map[string]any {
		out := map[string]any{}
		for k, a := range args {
			if a == "ID" {
				a = v
			}
			out[k] = a
		}
		return out
	}
	hidden := callTool(t, cs, tool, with(id))
	absent := callTool(t, cs, tool, with(missing))
	if hidden.isError != absent.isError || strings.ReplaceAll(hidden.text, id, "X") != strings.ReplaceAll(absent.text, missing, "X") {
		t.Errorf("%s on another's private memory answers\n  %s\nbut on a missing one\n  %s", tool, hidden.text, absent.text)
	}
}

func TestTeamPrivateStaysPrivateSharedIsShared(t *testing.T) {
	ts := startTeam(t)
	alice, bob, admin := ts.session(t, ts.alice), ts.session(t, ts.bob), ts.session(t, ts.admin)

	// Alice keeps a note to herself, a golden rule of her own, and a shared note
	// related to her private one.
	priv := ok(t, alice, "memory_store_tool", map[string]any{"content": "My kiwi password hint lives in the blue notebook", "namespace": "private", "memory_type": "decision"})
	privID := priv["id"].(string)
	aliceRule := ok(t, alice, "memory_store_tool", map[string]any{"content": "Alice MUST stretch every hour", "namespace": "private", "memory_type": "golden_rule"})["id"].(string)
	shared := ok(t, alice, "memory_store_tool", map[string]any{"content": "The deploy script lives in tools/deploy", "memory_type": "decision"})["id"].(string)
	teamRule := ok(t, admin, "memory_store_tool", map[string]any{"content": "Everyone MUST run the tests before pushing", "memory_type": "golden_rule"})["id"].(string)
	ok(t, alice, "memory_relate_tool", map[string]any{"source_id": shared, "target_id": privID, "relation": "relates_to"})
	ok(t, alice, "memory_validate_tool", map[string]any{"memory_id": privID, "success": true})

	got := ok(t, alice, "memory_list_tool", map[string]any{"namespace": "private"})
	if b, _ := json.Marshal(got); !strings.Contains(string(b), privID) || !strings.Contains(string(b), `"namespace":"user:alice"`) {
		t.Fatalf("alice's private list: %s", b)
	}

	// Bob reads, lists, counts, searches, inspects and changes nothing of hers.
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"memory_recall_tool", map[string]any{"query": "kiwi password notebook"}},
		{"memory_recall_tool", map[string]any{"query": "kiwi", "namespace": "user:alice"}},
		{"memory_recall_tool", map[string]any{"query": "deploy script", "include_related": true, "max_depth": 3}},
		{"memory_list_tool", map[string]any{}},
		{"memory_list_tool", map[string]any{"namespace": "user:alice"}},
		{"memory_context_tool", map[string]any{"query": "kiwi"}},
		{"memory_inspect_graph_tool", map[string]any{"memory_id": shared, "max_depth": 3}},
		{"memory_forget_tool", map[string]any{"query": "kiwi password notebook", "confirm": true}},
		{"memory_analyze_health", map[string]any{}},
		{"memory_analyze_health", map[string]any{"namespace": "user:alice"}},
	} {
		r := callTool(t, bob, c.tool, c.args)
		if strings.Contains(r.text, privID) || strings.Contains(r.text, "blue notebook") || strings.Contains(r.text, "stretch") {
			t.Errorf("bob's %s(%v) shows alice's private memory: %s", c.tool, c.args, r.text)
		}
	}
	if n := ok(t, bob, "memory_count_tool", map[string]any{"namespace": "user:alice"})["count"]; n != 0.0 {
		t.Errorf("bob counts %v memories in user:alice, want 0", n)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"memory_inspect_graph_tool", map[string]any{"memory_id": "ID"}},
		{"memory_relate_tool", map[string]any{"source_id": shared, "target_id": "ID", "relation": "relates_to"}},
		{"memory_validate_tool", map[string]any{"memory_id": "ID", "success": false}},
		{"memory_apply_tool", map[string]any{"memory_id": "ID", "context": "trying"}},
		{"memory_outcome_tool", map[string]any{"memory_id": "ID", "success": true}},
		{"validation_history_tool", map[string]any{"memory_id": "ID"}},
		{"memory_forget_tool", map[string]any{"memory_id": "ID", "force": true}},
		{"memory_edge_forget_tool", map[string]any{"memory_id": "ID"}},
		{"memory_detect_contradictions", map[string]any{"memory_id": "ID"}},
		{"memory_check_supersedes", map[string]any{"memory_id": "ID"}},
	} {
		sameAsMissing(t, bob, c.tool, privID, c.args)
	}
	fails(t, bob, "memory_store_tool", map[string]any{"content": "planted in alice's notes", "namespace": "user:alice"}, "user:")

	// Golden rules: the team's go to everyone, alice's own only to her.
	bobCtx := ok(t, bob, "memory_context_tool", map[string]any{})["context"].(string)
	aliceCtx := ok(t, alice, "memory_context_tool", map[string]any{})["context"].(string)
	if !strings.Contains(bobCtx, "run the tests before pushing") || strings.Contains(bobCtx, "stretch") {
		t.Errorf("bob's context:\n%s", bobCtx)
	}
	if !strings.Contains(aliceCtx, "run the tests before pushing") || !strings.Contains(aliceCtx, "stretch") {
		t.Errorf("alice's context:\n%s", aliceCtx)
	}

	// Everything is still there, untouched, for alice and the administrator.
	for who, cs := range map[string]*mcp.ClientSession{"alice": alice, "admin": admin} {
		hist := ok(t, cs, "validation_history_tool", map[string]any{"memory_id": privID})
		if b, _ := json.Marshal(hist); !strings.Contains(string(b), `"author":"alice"`) {
			t.Errorf("%s: the history of alice's memory does not name her: %s", who, b)
		}
		g := ok(t, cs, "memory_inspect_graph_tool", map[string]any{"memory_id": shared})
		if b, _ := json.Marshal(g); !strings.Contains(string(b), privID) {
			t.Errorf("%s: the graph of the shared note lacks the private end: %s", who, b)
		}
	}
	_ = aliceRule
	_ = teamRule

	// A wrong token, a replaced one and a removed person's get 401.
	for _, tok := range []string{"not-a-token", ts.alice + "x"} {
		if code, _ := mcpPost(t, ts.url, tok); code != http.StatusUnauthorized {
			t.Errorf("token %q: status %d, want 401", tok, code)
		}
	}
	old := ts.bob
	ts.bob = strings.TrimSpace(ts.cli.ok("users", "token", "bob"))
	if code, hdr := mcpPost(t, ts.url, old); code != http.StatusUnauthorized || !strings.HasPrefix(hdr, "Bearer") {
		t.Errorf("bob's replaced token: status %d, WWW-Authenticate %q; want 401 with a Bearer challenge", code, hdr)
	}
	if code, _ := mcpPost(t, ts.url, ts.bob); code != http.StatusOK {
		t.Errorf("bob's new token: status %d, want 200", code)
	}
	ts.cli.ok("users", "remove", "bob")
	if code, _ := mcpPost(t, ts.url, ts.bob); code != http.StatusUnauthorized {
		t.Errorf("removed bob's token: status %d, want 401", code)
	}
	// The open session of a removed person goes no further either.
	if _, err := bob.CallTool(context.Background(), &mcp.CallToolParams{Name: "memory_count_tool", Arguments: map[string]any{}}); err == nil {
		t.Error("removed bob's open session still answers")
	}
	list := ts.cli.ok("users", "list")
	if !strings.Contains(list, "alice") || strings.Contains(list, "bob") || strings.Contains(list, ts.alice) {
		t.Errorf("users list:\n%s", list)
	}
}

// mcpPost sends an initialize with token and returns the status and the
// WWW-Authenticate header.
func mcpPost(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode, res.Header.Get("WWW-Authenticate")
}

func TestTeamViewerAPIKeepsPrivateMemoriesPrivate(t *testing.T) {
	ts := startTeam(t)
	alice := ts.session(t, ts.alice)
	privID := ok(t, alice, "memory_store_tool", map[string]any{"content": "My kiwi password hint lives in the blue notebook", "namespace": "private", "memory_type": "decision"})["id"].(string)
	gone := ok(t, alice, "memory_store_tool", map[string]any{"content": "A private kiwi draft to throw away", "namespace": "private"})["id"].(string)
	shared := ok(t, alice, "memory_store_tool", map[string]any{"content": "The deploy script lives in tools/deploy", "memory_type": "decision"})["id"].(string)
	ok(t, alice, "memory_relate_tool", map[string]any{"source_id": shared, "target_id": privID, "relation": "contradicts"})
	ui := ts.url + "/ui/"
	if code, body := request(t, "DELETE", ui+"api/memories/"+gone, ts.alice, ""); code != http.StatusOK {
		t.Fatalf("alice deletes her draft in the viewer: %d %s", code, body)
	}

	// Every read route, as bob: nothing of alice's private memories.
	for _, path := range []string{
		"api/access", "api/memories", "api/memories?namespace=user:alice", "api/memories?q=kiwi+password",
		"api/memories/" + shared, "api/memories/" + shared + "/graph?depth=3", "api/trash", "api/health",
		"api/golden", "api/projects", "api/files", "api/export?format=json", "api/export?format=json&q=kiwi+password", "api/export?format=jsonl", "api/export?format=memory-jsonl", "api/review/contradictions",
		"api/review/stale?days=0",
	} {
		code, body := request(t, "GET", ui+path, ts.bob, "")
		if code >= 500 {
			t.Errorf("GET %s as bob: %d %s", path, code, body)
		}
		if strings.Contains(body, privID) || strings.Contains(body, gone) || strings.Contains(body, "blue notebook") || strings.Contains(body, "throw away") {
			t.Errorf("GET %s as bob shows alice's private memory: %s", path, body)
		}
	}
	// Every route naming her memory answers as for a missing one.
	missing := missingLike(privID)
	for _, r := range []struct{ method, path, body string }{
		{"GET", "api/memories/ID", ""},
		{"GET", "api/memories/ID/graph", ""},
		{"PATCH", "api/memories/ID", `{"content": "bob was here"}`},
		{"POST", "api/memories/ID/promote", `{"reason": "bob says so"}`},
		{"POST", "api/memories/ID/demote", `{"reason": "bob says so"}`},
		{"POST", "api/memories/ID/validate", `{"success": false}`},
		{"DELETE", "api/memories/ID", ""},
		{"POST", "api/trash/ID/restore", ""},
	} {
		id := privID
		if strings.HasPrefix(r.path, "api/trash") {
			id = gone
		}
		hc, hb := request(t, r.method, ui+strings.ReplaceAll(r.path, "ID", id), ts.bob, r.body)
		mc, mb := request(t, r.method, ui+strings.ReplaceAll(r.path, "ID", missingLike(id)), ts.bob, r.body)
		if hc != mc || strings.ReplaceAll(hb, id, "X") != strings.ReplaceAll(mb, missingLike(id), "X") {
			t.Errorf("%s %s as bob: %d %s; for a missing memory: %d %s", r.method, r.path, hc, hb, mc, mb)
		}
	}
	_ = missing
	// An import naming her namespace writes nothing there.
	exported := fmt.Sprintf(`{"record":"header","format":"recall-export","version":2}
{"record":"memory","id":%q,"content":"bob was here","content_hash":"x","memory_type":"session","namespace":"user:alice","importance":0.5,"confidence":0.3,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}
`, missing)
	if code, body := request(t, "POST", ui+"api/import", ts.bob, exported); code != http.StatusOK || !strings.Contains(body, `"memories":0`) {
		t.Errorf("POST api/import into user:alice as bob: %d %s", code, body)
	}
	if code, body := request(t, "POST", ui+"api/import?namespace=user:alice", ts.bob, `{"type":"entity","name":"x","entityType":"y","observations":["bob was here"]}`); code != http.StatusOK || !strings.Contains(body, `"memories":0`) {
		t.Errorf("POST api/import?namespace=user:alice as bob: %d %s", code, body)
	}
	code, body := request(t, "POST", ui+"api/memories/bulk", ts.bob, `{"action": "delete", "ids": ["`+privID+`"]}`)
	if strings.Contains(body, "blue notebook") || strings.Contains(body, "throw away") {
		t.Errorf("bulk delete as bob: %d %s", code, body)
	}
	// Alice's memory is untouched, and hers to see.
	code, body = request(t, "GET", ui+"api/memories/"+privID, ts.alice, "")
	if code != http.StatusOK || !strings.Contains(body, "kiwi password") {
		t.Errorf("alice reads her memory in the viewer: %d %s", code, body)
	}
	if code, body := request(t, "GET", ui+"api/trash", ts.alice, ""); !strings.Contains(body, gone) {
		t.Errorf("alice's trash: %d %s", code, body)
	}
	// The administrator sees everything, and who wrote what.
	code, body = request(t, "GET", ui+"api/export?format=json", ts.admin, "")
	if code != http.StatusOK || !strings.Contains(body, privID) || !strings.Contains(body, `"author":"alice"`) {
		t.Errorf("the administrator's export: %d %.400s", code, body)
	}
	// A stranger's token opens nothing.
	for _, path := range []string{"api/memories", "api/memories/" + shared} {
		if code, _ := request(t, "GET", ui+path, "stranger", ""); code != http.StatusUnauthorized {
			t.Errorf("GET %s with a stranger's token: %d, want 401", path, code)
		}
	}
}
