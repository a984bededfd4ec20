package tests

import (
	"context"
	"database/sql"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// clientOf is a laptop's environment as a client of ts, with alice's token
// and a database path that must never be created.
func clientOf(t testing.TB, ts *teamServer, token string) *cliEnv {
	t.Helper()
	c := newCLIEnv(t)
	c.vars["RECALL_SERVER_URL"] = ts.url
	c.vars["RECALL_TOKEN"] = token
	c.vars["RECALL_HOOK_TIMEOUT"] = "2s"
	c.vars["RECALL_LOG_LEVEL"] = "warn"
	return c
}

func TestClientModeForwardsToolsAndOpensNoDatabase(t *testing.T) {
	ts := startTeam(t)
	laptop := clientOf(t, ts, ts.alice)
	laptop.vars["RECALL_HISTORY"] = "on"
	laptop.vars["RECALL_HISTORY_DIR"] = t.TempDir()
	cs := laptop.serve()

	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	local := 0
	for _, tool := range tools.Tools {
		if tool.Name == "search_project_history" || tool.Name == "search_global_history" || tool.Name == "read_history" {
			local++
			if !strings.Contains(tool.Description, "Runs on this machine") {
				t.Errorf("%s does not say it stays local: %q", tool.Name, tool.Description)
			}
		}
	}
	if local != 3 || len(tools.Tools) < 18 {
		t.Errorf("tools/list in client mode: %d tools, %d history tools", len(tools.Tools), local)
	}
	id := ok(t, cs, "memory_store_tool", map[string]any{"content": "Alice's laptop stores through the team server", "namespace": "private"})["id"].(string)
	admin := ts.session(t, ts.admin)
	got := ok(t, admin, "memory_list_tool", map[string]any{"namespace": "user:alice"})
	if b := mustJSON(t, got); !strings.Contains(b, id) {
		t.Errorf("the server's list of user:alice: %s", b)
	}
	fails(t, cs, "memory_store_tool", map[string]any{"content": "x", "namespace": "user:bob"}, "user:")

	// The CLI: recall call goes through the server (the other commands:
	// team_cli_test.go).
	out := laptop.ok("call", "memory_list_tool", `{"namespace": "private"}`)
	if !strings.Contains(out, id) {
		t.Errorf("recall call in client mode:\n%s", out)
	}
	// recall search goes through the server, as alice: her private memory
	// and the shared ones, never bob's.
	bobs := ok(t, ts.session(t, ts.bob), "memory_store_tool", map[string]any{"content": "Bob's laptop stores through the team server too", "namespace": "private"})["id"].(string)
	found := laptop.ok("search", "laptop stores through the team server")
	if !strings.Contains(found, id) || strings.Contains(found, bobs) {
		t.Errorf("recall search in client mode (alice's %s, not bob's %s):\n%s", id, bobs, found)
	}
	if r := laptop.run("", "search", "--related", "--since", "2026-01-01", "anything"); r.code != 2 || !strings.Contains(r.stderr, "drop --related") {
		t.Errorf("recall search --related --since in client mode: exit %d, stderr %q", r.code, r.stderr)
	}
	listed := laptop.ok("list", "--namespace", "private")
	if !strings.Contains(listed, id) || strings.Contains(listed, bobs) || !strings.Contains(listed, "showing 1-1 of 1") {
		t.Errorf("recall list --namespace private in client mode:\n%s", listed)
	}

	// recall ui: the team server's viewer on this machine, with alice's token.
	uiAddr := freeAddr(t)
	_, port, _ := strings.Cut(uiAddr, ":")
	ui := exec.Command(recallBin, "ui", "--port", port)
	ui.Env = laptop.environ()
	ui.Stderr = stderrFile(t)
	if err := ui.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ui.Process.Kill(); ui.Wait() })
	var code int
	var body string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get("http://" + uiAddr + "/api/memories?namespace=private"); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			code, body = resp.StatusCode, string(b)
			break
		}
	}
	if code != http.StatusOK || !strings.Contains(body, id) {
		t.Errorf("recall ui in client mode: %d %s", code, body)
	}
	req, _ := http.NewRequest("GET", "http://"+uiAddr+"/api/memories", nil)
	req.Host = "evil.example.com"
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("recall ui in client mode answered a foreign Host: %v %v", resp, err)
	}
	if _, err := os.Stat(laptop.dbPath); !os.IsNotExist(err) {
		t.Errorf("client mode opened a local database at %s (%v)", laptop.dbPath, err)
	}
}

func TestClientModeHooksLoseNothingWhileTheServerIsAway(t *testing.T) {
	ts := startTeam(t)
	laptop := clientOf(t, ts, ts.alice)
	_, cwd := newProject(t, laptop, "shop")
	prompt := func(i int) string {
		return hookInput(t, "UserPromptSubmit", cwd, map[string]any{"prompt": "prompt number " + string(rune('a'+i)) + " about the orders cache"})
	}
	admin := ts.session(t, ts.admin)
	ok(t, admin, "memory_store_tool", map[string]any{"content": "Orders MUST be cached for five minutes", "memory_type": "decision"})

	// With the server up, a prompt is answered with what to inject.
	a, r := laptop.hook("user-prompt-submit", hookInput(t, "UserPromptSubmit", cwd, map[string]any{"prompt": "How long are orders cached?"}))
	if a == nil || !strings.Contains(r.stdout, "cached for five minutes") {
		t.Errorf("prompt hook through the team server answered %q; stderr:\n%s", r.stdout, r.stderr)
	}
	// The server goes away: hooks answer nothing within their budget and keep
	// their events.
	addr := strings.TrimPrefix(ts.url, "http://")
	ts.stop(t)
	// RECALL_E2E_OUTAGE (a duration, 30s by hand) keeps the server away that
	// long, a prompt every second; by default five prompts in a row.
	outage, _ := time.ParseDuration(os.Getenv("RECALL_E2E_OUTAGE"))
	away := time.Now()
	var slowest time.Duration
	sent := 0
	for i := 1; sent < 5 || time.Since(away) < outage; i++ {
		start := time.Now()
		a, r := laptop.hook("user-prompt-submit", prompt(i%5+1))
		took := time.Since(start)
		slowest = max(slowest, took)
		if a != nil || took > 5*time.Second {
			t.Errorf("prompt %d with the server away: answer %q after %s", i, r.stdout, took)
		}
		sent++
		if outage > 0 {
			time.Sleep(time.Second - min(took, time.Second))
		}
	}
	t.Logf("server away %s: %d prompts, the slowest hook %s", time.Since(away).Round(time.Second), sent, slowest)
	outbox := laptop.dbPath + ".outbox"
	if n := countJSON(t, outbox); n != sent {
		t.Errorf("outbox holds %d events, want %d", n, sent)
	}
	// It comes back: the next hook sends everything, once, in order.
	back := startHTTPAt(t, laptop.environForServer(ts), addr)
	laptop.hook("user-prompt-submit", prompt(6))
	laptop.hook("user-prompt-submit", prompt(6)) // the same prompt again is a new event
	if n := countJSON(t, outbox); n != 0 {
		t.Errorf("outbox holds %d events after the server came back, want 0", n)
	}
	// An event the server applied but whose answer never reached the laptop
	// comes again with its id: applied once.
	for range 2 {
		req, _ := http.NewRequest("POST", back.url+"/hook/user-prompt-submit", strings.NewReader(prompt(7)))
		req.Header.Set("Authorization", "Bearer "+ts.alice)
		req.Header.Set("Recall-Event-Id", "00000000000000000001-1-deadbeef")
		res, err := http.DefaultClient.Do(req)
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("resending an event: %v %v", res, err)
		}
		res.Body.Close()
	}
	back.stop(t)
	prompts := journalPrompts(t, ts.cli.dbPath)
	var want []string
	for i := 1; i <= sent; i++ {
		want = append(want, string(rune('a'+i%5+1)))
	}
	want = append(want, "g", "g", "h")
	prompts = prompts[1:] // the first, answered while the server was up
	if len(prompts) != len(want) {
		t.Fatalf("the server's journal holds %d prompts, want %d: %q", len(prompts), len(want), prompts)
	}
	for i, p := range prompts {
		if !strings.Contains(p, "prompt number "+want[i]+" ") {
			t.Errorf("prompt %d in the journal is %q, want number %s", i, p, want[i])
		}
	}
	if _, err := os.Stat(laptop.dbPath); !os.IsNotExist(err) {
		t.Errorf("client mode opened a local database at %s (%v)", laptop.dbPath, err)
	}
}

// environForServer is the environment of ts's server (its database, its
// token), for starting it again.
func (c *cliEnv) environForServer(ts *teamServer) []string { return ts.cli.environ() }

func countJSON(t *testing.T, dir string) int {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	return len(names)
}

// journalPrompts reads the prompts the server's journal recorded, in order.
func journalPrompts(t *testing.T, dbPath string) []string {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+dbPath+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT body FROM journal WHERE kind = 'prompt' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var b string
		if err := rows.Scan(&b); err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// clone makes a person's clone of a repository under their laptop's
// directory, at a path of their own, with its origin remote.
func clone(t *testing.T, laptop *cliEnv, path, origin string) string {
	t.Helper()
	root := filepath.Join(laptop.dir, path)
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "internal"), 0o755); err != nil {
		t.Fatal(err)
	}
	config := "[remote \"origin\"]\n\turl = " + origin + "\n"
	if err := os.WriteFile(filepath.Join(root, ".git", "config"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// serveIn starts the laptop's `recall serve` in dir, as Claude Code starts
// it in the project it opened.
func (c *cliEnv) serveIn(dir string) *mcp.ClientSession {
	c.t.Helper()
	cmd := exec.Command(recallBin, "serve")
	cmd.Env = c.environ()
	cmd.Dir = dir
	cmd.Stderr = stderrFile(c.t)
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		c.t.Fatalf("start recall serve: %v", err)
	}
	c.t.Cleanup(func() { cs.Close() })
	return cs
}

// Two people, two laptops, one team server: each clones the team's
// repository where they like; their hooks and their agents' tools land in
// the one project of that repository on the server, and each reads back
// their own sessions alone.
func TestTwoLaptopsShareTheirRepositorysProjectAndKeepTheirSessions(t *testing.T) {
	ts := startTeam(t)
	alice, bob := clientOf(t, ts, ts.alice), clientOf(t, ts, ts.bob)
	aliceRoot := clone(t, alice, "src/shop-api", "git@github.com:acme/shop-api.git")
	bobRoot := clone(t, bob, "work/api", "https://github.com/acme/shop-api.git")
	admin := ts.session(t, ts.admin)
	ok(t, admin, "memory_store_tool", map[string]any{"content": "Orders MUST be cached for five minutes", "memory_type": "decision", "namespace": "project:shop-api"})

	prompt := func(laptop *cliEnv, cwd, session, text string) (*hookAnswer, cliResult) {
		return laptop.hook("user-prompt-submit", hookInput(t, "UserPromptSubmit", cwd, map[string]any{"session_id": session, "prompt": text}))
	}
	a, r := prompt(alice, filepath.Join(aliceRoot, "internal"), "alice-session-1", "How long are orders cached?")
	if a == nil || !strings.Contains(r.stdout, "cached for five minutes") {
		t.Errorf("alice's prompt was not given the project's memory: %q\n%s", r.stdout, r.stderr)
	}
	a, r = prompt(bob, bobRoot, "bob-session-1", "Are orders cached, and how long?")
	if a == nil || !strings.Contains(r.stdout, "cached for five minutes") {
		t.Errorf("bob's prompt was not given the project's memory: %q\n%s", r.stdout, r.stderr)
	}
	rows := journalRows(t, ts.cli.dbPath)
	if len(rows) != 2 {
		t.Fatalf("the server's journal = %+v, want two prompts", rows)
	}
	for _, row := range rows {
		if row.namespace != "project:shop-api" {
			t.Errorf("%s's prompt went to %s, want project:shop-api (the clones share it)", row.author, row.namespace)
		}
	}
	if rows[0].author != "alice" || rows[1].author != "bob" {
		t.Errorf("journal authors = %s, %s; want alice, bob", rows[0].author, rows[1].author)
	}

	// Each one's next session starts with their own recent sessions alone.
	start := func(laptop *cliEnv, cwd, session string) string {
		_, r := laptop.hook("session-start", hookInput(t, "SessionStart", cwd, map[string]any{"session_id": session, "source": "startup"}))
		return r.stdout
	}
	if out := start(bob, bobRoot, "bob-session-2"); strings.Contains(out, "How long are orders cached?") || !strings.Contains(out, "project:shop-api") {
		t.Errorf("bob's session start shows alice's session, or not the shared project:\n%s", out)
	}
	if out := start(alice, aliceRoot, "alice-session-2"); strings.Contains(out, "Are orders cached, and how long?") {
		t.Errorf("alice's session start shows bob's session:\n%s", out)
	}

	// Bob's agent, started in his clone, has the shared project as its
	// context's project, told by his laptop.
	cs := bob.serveIn(filepath.Join(bobRoot, "internal"))
	got := ok(t, cs, "memory_context_tool", map[string]any{"query": "orders cache"})
	if b := mustJSON(t, got); !strings.Contains(b, `"namespace":"project:shop-api"`) || !strings.Contains(b, `"source":"client"`) || !strings.Contains(b, "cached for five minutes") {
		t.Errorf("bob's context through his laptop: %s", b)
	}
	// His capture tools read back his sessions alone.
	found := mustJSON(t, ok(t, cs, "recall_search", map[string]any{"query": "orders cached"}))
	if strings.Contains(found, "How long are orders cached?") || !strings.Contains(found, "Are orders cached, and how long?") {
		t.Errorf("bob's journal search: %s", found)
	}
}

type journalRow struct{ namespace, author, body string }

// journalRows reads the prompts of the server's journal, in order.
func journalRows(t *testing.T, dbPath string) []journalRow {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+dbPath+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT namespace, author, body FROM journal WHERE kind = 'prompt' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []journalRow
	for rows.Next() {
		var r journalRow
		if err := rows.Scan(&r.namespace, &r.author, &r.body); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// A session left idle while the server was away loses nothing either: the
// laptop's `recall serve` sends what waits in the outbox once it is back,
// without another hook.
func TestClientModeServeSendsTheOutboxWhenTheServerReturns(t *testing.T) {
	ts := startTeam(t)
	laptop := clientOf(t, ts, ts.alice)
	_, cwd := newProject(t, laptop, "shop")
	laptop.serveIn(cwd)
	addr := strings.TrimPrefix(ts.url, "http://")
	ts.stop(t)
	laptop.hook("user-prompt-submit", hookInput(t, "UserPromptSubmit", cwd, map[string]any{"prompt": "the last prompt before lunch"}))
	outbox := laptop.dbPath + ".outbox"
	if n := countJSON(t, outbox); n != 1 {
		t.Fatalf("outbox holds %d events with the server away, want 1", n)
	}
	back := startHTTPAt(t, laptop.environForServer(ts), addr)
	deadline := time.Now().Add(20 * time.Second)
	for countJSON(t, outbox) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	back.stop(t)
	if n := countJSON(t, outbox); n != 0 {
		t.Fatalf("recall serve left %d events in the outbox after the server came back", n)
	}
	if rows := journalRows(t, ts.cli.dbPath); len(rows) != 1 || rows[0].body != "the last prompt before lunch" || rows[0].author != "alice" {
		t.Errorf("the server's journal = %+v, want alice's prompt once", rows)
	}
}

// The team server cannot stat a laptop's transcript: each entry is anchored
// at the transcript's size the laptop saw when the hook ran, also for an
// event that waited in the outbox while the transcript grew.
func TestClientEntriesAreAnchoredWhereTheLaptopsTranscriptWas(t *testing.T) {
	ts := startTeam(t)
	laptop := clientOf(t, ts, ts.alice)
	_, cwd := newProject(t, laptop, "shop")
	transcript := filepath.Join(laptop.dir, captureSession+".jsonl")
	toolCall := func(id string) string {
		return sessionHookInput(t, "PostToolUse", cwd, transcript, map[string]any{
			"tool_name": "Bash", "tool_use_id": id,
			"tool_input": map[string]any{"command": "go test ./..."}, "tool_response": map[string]any{"stdout": "ok"},
		})
	}
	size := func() int64 {
		fi, err := os.Stat(transcript)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	grow := func(uuid string) {
		appendTranscript(t, transcript, transcriptLine(t, "assistant", uuid,
			[]any{map[string]any{"type": "text", "text": strings.Repeat("running the tests ", 50)}}))
	}

	grow("a-1")
	want := map[string]int64{"toolu_up": size()}
	laptop.hook("post-tool-use", toolCall("toolu_up"))

	// Away: the event waits in the outbox while the transcript grows.
	addr := strings.TrimPrefix(ts.url, "http://")
	ts.stop(t)
	grow("a-2")
	want["toolu_away"] = size()
	laptop.hook("post-tool-use", toolCall("toolu_away"))
	grow("a-3")
	back := startHTTPAt(t, laptop.environForServer(ts), addr)
	want["toolu_back"] = size()
	laptop.hook("post-tool-use", toolCall("toolu_back"))
	back.stop(t)

	db, err := sql.Open("sqlite3", "file:"+ts.cli.dbPath+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got := map[string]int64{}
	rows, err := db.Query(`SELECT anchor_id, transcript_offset FROM journal WHERE kind = 'observation'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var off int64
		if err := rows.Scan(&id, &off); err != nil {
			t.Fatal(err)
		}
		got[id] = off
	}
	if len(got) != len(want) {
		t.Fatalf("the server's journal holds tool calls %v, want %v", got, want)
	}
	for id, off := range want {
		if got[id] != off {
			t.Errorf("tool call %s anchored at offset %d, want %d (the laptop's transcript when the hook ran)", id, got[id], off)
		}
	}
}
