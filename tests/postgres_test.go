package tests

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

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
