package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/hook"
	"github.com/recall-mcp/recall/storage/postgres/pgtest"
)

// TestPostgresEveryPart drives the built binary on PostgreSQL as users do:
// the CLI stores, a hook injects it, an MCP client over stdio finds it and
// adds its own, stats names the server, and an export read into a SQLite
// file holds the same memories.
func TestPostgresEveryPart(t *testing.T) {
	u := pgtest.Schema(t)
	c := newCLIEnv(t)
	c.vars["RECALL_DATABASE_URL"] = u
	_, cwd := newProject(t, c, "shop-api")
	rule := c.store("Orders MUST be cached in Redis with a five minute TTL", "--type", "decision", "--namespace", "project:shop-api")
	if again := c.store("Orders MUST be cached in Redis with a five minute TTL", "--type", "decision", "--namespace", "project:shop-api"); again != rule {
		t.Fatalf("the same text stored twice: %s and %s", rule, again)
	}

	a, r := c.hook("session-start", hookInput(t, "SessionStart", cwd, map[string]any{"source": "startup"}))
	if a == nil || !strings.Contains(a.HookSpecificOutput.AdditionalContext, "cached in Redis") {
		t.Fatalf("session-start on PostgreSQL did not inject the project's memory: %+v\nstderr: %s", a, r.stderr)
	}
	c.hook("post-tool-use", hookInput(t, "PostToolUse", cwd, map[string]any{
		"tool_name": "Edit", "tool_input": map[string]any{"file_path": filepath.Join(cwd, "orders.go")}, "tool_response": map[string]any{"success": true},
	}))

	env, _ := recallEnv(t, "RECALL_DATABASE_URL="+u)
	cs, _ := startStdio(t, env)
	found := ok(t, cs, "memory_recall_tool", map[string]any{"query": "redis caching of orders", "namespace": "project:shop-api"})
	if b, _ := json.Marshal(found); !strings.Contains(string(b), rule) {
		t.Fatalf("memory_recall_tool over stdio did not find %s: %v", rule, found)
	}
	ok(t, cs, "memory_store_tool", map[string]any{"content": "CI SHOULD run go vet on every push."})
	if n := ok(t, cs, "memory_count_tool", map[string]any{})["count"]; n != float64(2) {
		t.Fatalf("memory_count_tool = %v, want 2:\n%s", n, c.ok("list"))
	}
	cs.Close()

	stats := c.ok("stats")
	if !strings.Contains(stats, "postgres://") || !strings.Contains(stats, "memories:           2") {
		t.Fatalf("stats on PostgreSQL:\n%s", stats)
	}
	out := filepath.Join(c.dir, "export.jsonl")
	c.ok("export", "-o", out)
	lite := newCLIEnv(t)
	lite.ok("import", out)
	if got := lite.ok("stats"); !strings.Contains(got, "memories:           2") {
		t.Fatalf("the export read into SQLite:\n%s", got)
	}
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), rule) {
		t.Fatalf("export lacks %s: %v", rule, err)
	}

	doc := c.run("", "doctor")
	if !strings.Contains(doc.stdout, "pgvector") || !strings.Contains(doc.stdout, "database indexes: all there and valid") {
		t.Fatalf("doctor on PostgreSQL:\n%s%s", doc.stdout, doc.stderr)
	}
}

// TestPostgresDoctorSaysWhatToRun: a missing search index is reported with
// the statement that makes it.
func TestPostgresDoctorSaysWhatToRun(t *testing.T) {
	u := pgtest.Schema(t)
	c := newCLIEnv(t)
	c.vars["RECALL_DATABASE_URL"] = u
	c.store("anything at all")
	conn, err := pgx.Connect(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), `DROP INDEX memories_search_words`); err != nil {
		t.Fatal(err)
	}
	doc := c.run("", "doctor")
	if !strings.Contains(doc.stdout, "memories_search_words is missing") ||
		!strings.Contains(doc.stdout, "CREATE INDEX CONCURRENTLY memories_search_words ON memories USING gin (search_words)") {
		t.Fatalf("doctor with an index dropped:\n%s", doc.stdout)
	}
}

// TestPostgresFourInstancesEightClients runs four `recall serve --http` on
// one database and eight MCP clients on each, all at once, each storing,
// recalling, applying, reporting an outcome and relating; then counts every
// row: nothing lost, nothing doubled, the shared text stored once.
func TestPostgresFourInstancesEightClients(t *testing.T) {
	u := pgtest.Schema(t)
	var servers []*httpServer
	for range 4 {
		env, _ := recallEnv(t, "RECALL_DATABASE_URL="+u, "RECALL_CURATION=off")
		servers = append(servers, startHTTP(t, env))
	}
	const clients, notes = 8, 4
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 4*clients)
	for s, srv := range servers {
		for c := range clients {
			wg.Go(func() {
				cs, err := connectHTTP(ctx, srv.url, "")
				if err != nil {
					errs <- err
					return
				}
				defer cs.Close()
				var ids []string
				for n := range notes {
					out := ok(t, cs, "memory_store_tool", map[string]any{"content": fmt.Sprintf("instance %d client %d note %d about zebra%d%d", s, c, n, s, c)})
					ids = append(ids, out["id"].(string))
				}
				ok(t, cs, "memory_store_tool", map[string]any{"content": "The one text every client stores"})
				found := ok(t, cs, "memory_recall_tool", map[string]any{"query": fmt.Sprintf("zebra%d%d", s, c)})
				if b, _ := json.Marshal(found); !strings.Contains(string(b), ids[0]) {
					errs <- fmt.Errorf("instance %d client %d: recall did not find its own note: %s", s, c, b)
				}
				ok(t, cs, "memory_apply_tool", map[string]any{"memory_id": ids[0], "context": "used it"})
				ok(t, cs, "memory_outcome_tool", map[string]any{"memory_id": ids[0], "success": true})
				ok(t, cs, "memory_relate_tool", map[string]any{"source_id": ids[0], "target_id": ids[1], "relation": "relates_to"})
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	all := 4 * clients
	for table, want := range map[string]int{
		"memories":                               all*notes + 1,
		"edges":                                  all,
		"validation_events":                      2 * all,
		"memories WHERE content LIKE 'The one%'": 1,
	} {
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Errorf("%s: %d rows, want %d", table, n, want)
		}
	}
}

// TestPostgresHooksAnsweredByARunningServer: with a PostgreSQL database, a
// running recall serve answers this machine's hooks on a socket of that
// database's own; a hook for another database is not answered by it.
func TestPostgresHooksAnsweredByARunningServer(t *testing.T) {
	u := pgtest.Schema(t)
	c := newCLIEnv(t)
	c.vars["RECALL_DATABASE_URL"] = u
	_, cwd := newProject(t, c, "shop-api")
	redis := c.store("Orders MUST be cached in Redis with a five minute TTL", "--type", "decision", "--namespace", "project:shop-api")
	sock := hook.ServerSocketPath(c.dir, u)
	other := pgtest.Schema(t)
	if hook.ServerSocketPath(c.dir, other) == sock {
		t.Fatal("two databases share a socket")
	}
	prompt := hookInput(t, "UserPromptSubmit", cwd, map[string]any{"prompt": "how are orders cached in redis?"})
	c.serveUntil("answering hooks", func() bool {
		if _, err := os.Stat(sock); err != nil {
			return false
		}
		if _, err := os.Stat(c.dbPath + ".sock"); err == nil {
			t.Fatal("the server of a PostgreSQL database listens on the SQLite file's socket")
		}
		a, r := c.hook("user-prompt-submit", prompt)
		if a == nil || !strings.Contains(a.HookSpecificOutput.AdditionalContext, redis) {
			t.Fatalf("the server's answer should list %s; stdout %q stderr %s", redis, r.stdout, r.stderr)
		}
		if !strings.Contains(r.stderr, "answered by recall serve") {
			return false // the server is busy starting: ask again
		}
		c.vars["RECALL_DATABASE_URL"] = other
		_, r = c.hook("user-prompt-submit", prompt)
		c.vars["RECALL_DATABASE_URL"] = u
		if strings.Contains(r.stderr, "answered by recall serve") {
			t.Fatalf("a hook of another database was answered by this database's server:\n%s", r.stderr)
		}
		return true
	})
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("the server left its socket behind: %v", err)
	}
}
