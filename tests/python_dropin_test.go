package tests

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/internal/pyrecall"
)

// Ids of the Python sample (internal/pyrecall).
const (
	pyDarkMode   = "mem_1735689600123456_0a1b2c3d" // preference, global, two validation events
	pyPostgres   = "3f2b8c1e-5d4a-4b6f-9e8d-7c6b5a4f3e2d"
	pyWrapErrors = "9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c0d" // confidence 0.1
	pySession    = "mem_1735689840000000_deadbeef"
	pyMySQL      = "mem_1735689960000000_feedface"
)

// TestPythonRecallDropIn is the drop-in test: a database made the way the
// Python Recall makes it, `recall serve` started on it as a client starts it,
// and every tool driven through the MCP Go client, checking the Python
// Recall's result fields, names and shapes.
func TestPythonRecallDropIn(t *testing.T) {
	dbPath := filepath.Join(dataDir(t), "recall.db")
	if err := pyrecall.Create(dbPath, pyrecall.Sample()); err != nil {
		t.Fatal(err)
	}
	ol := ollamatest.New(t)
	env := append(os.Environ(), "RECALL_SQLITE_PATH="+dbPath, "RECALL_OLLAMA_HOST="+ol.URL(), "RECALL_LOG_LEVEL=WARN",
		"RECALL_HISTORY=off") // no background indexer reading the machine's transcripts
	cs, _ := startStdio(t, env, "serve")
	defer cs.Close()

	checkPythonMemoryTools(t, cs)
	checkPythonGraphTools(t, cs)
	checkPythonCurationTools(t, cs)
	checkPythonFileTools(t, cs)
	checkPythonForget(t, cs)
	waitForVectors(t, dbPath)

	backups, _ := filepath.Glob(dbPath + ".python-backup-*")
	if len(backups) != 1 {
		t.Errorf("backups beside the database: %v, want one", backups)
	}
}

func checkPythonMemoryTools(t *testing.T, cs *mcp.ClientSession) {
	// The same content as a Python memory, in its namespace: deduplicated
	// across the two, because content_hash is computed as Python computes it.
	st := ok(t, cs, "memory_store_tool", map[string]any{"content": "User prefers dark mode in every editor", "namespace": "global", "importance": nil})
	wantKeys(t, "memory_store_tool", st, "success", "id", "content_hash", "auto_relationships", "error")
	if st["id"] != pyDarkMode || st["content_hash"] != pyHash("User prefers dark mode in every editor") || st["error"] != nil {
		t.Errorf("store of a Python memory's content = %v, want its id %s, Python's hash and error null", st, pyDarkMode)
	}

	list := ok(t, cs, "memory_list_tool", map[string]any{"namespace": "global", "order_by": "created_at", "descending": false})
	wantKeys(t, "memory_list_tool", list, "success", "memories", "count", "pagination", "filters")
	wantKeys(t, "memory_list_tool pagination", list["pagination"].(map[string]any), "limit", "offset", "has_more")
	wantKeys(t, "memory_list_tool filters", list["filters"].(map[string]any), "namespace", "memory_type", "order_by", "descending")
	first := list["memories"].([]any)[0].(map[string]any)
	wantKeys(t, "memory_list_tool memory", first, "id", "content", "content_hash", "type", "namespace", "importance", "confidence", "created_at", "accessed_at", "access_count", "metadata")
	if first["id"] != pyDarkMode || first["type"] != "preference" || first["created_at"] != 1735689600.123456 || first["access_count"] != 4.0 {
		t.Errorf("listed Python memory = %v, want type preference, created_at 1735689600.123456 (epoch seconds, as Python lists it), 4 accesses", first)
	}

	count := ok(t, cs, "memory_count_tool", map[string]any{"namespace": nil, "memory_type": nil})
	wantKeys(t, "memory_count_tool", count, "success", "count", "filters")
	if count["count"] != 7.0 || list["count"] != countIn(t, cs, "global") {
		t.Errorf("count = %v, want the 7 Python memories", count["count"])
	}

	// recall serve makes the Python memories' vectors in the background; the
	// hits (and so what expansion adds) depend on them, so wait until all are made.
	rec := ok(t, cs, "memory_recall_tool", map[string]any{"query": "billing service database", "include_related": true, "max_depth": 2})
	for deadline := time.Now().Add(20 * time.Second); rec["pending_embeddings"] != nil && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		rec = ok(t, cs, "memory_recall_tool", map[string]any{"query": "billing service database", "include_related": true, "max_depth": 2})
	}
	wantKeys(t, "memory_recall_tool", rec, "success", "memories", "total", "score", "expanded")
	mems := rec["memories"].([]any)
	if len(mems) == 0 {
		t.Fatalf("recall found nothing in the migrated memories: %v", rec)
	}
	hit := mems[0].(map[string]any)
	wantKeys(t, "memory_recall_tool memory", hit, "id", "content", "content_hash", "type", "namespace", "importance", "created_at", "accessed_at", "access_count")
	if _, err := time.Parse("2006-01-02T15:04:05.999999-07:00", hit["created_at"].(string)); err != nil {
		t.Errorf("recall created_at %v is not the ISO form Python's isoformat() gives: %v", hit["created_at"], err)
	}
	exp := rec["expanded"].([]any)
	if rec["total"] != float64(len(mems)) {
		t.Errorf("recall total = %v, want %d: the direct hits, as the Python Recall counts", rec["total"], len(mems))
	}
	if len(exp) == 0 {
		t.Fatalf("recall with include_related expanded nothing along the Python edges: %v", rec)
	}
	e := exp[0].(map[string]any)
	wantKeys(t, "memory_recall_tool expanded", e, "id", "content", "type", "relevance_score", "hop_distance", "path", "explanation")
	if path, _ := e["path"].([]any); len(path) != int(e["hop_distance"].(float64)) || !strings.Contains(e["explanation"].(string), "via") {
		t.Errorf("expanded memory = %v, want a path of hop_distance edge types and an explanation", e)
	}
}

// countIn counts memories of a namespace through memory_count_tool.
func countIn(t *testing.T, cs *mcp.ClientSession, ns string) any {
	return ok(t, cs, "memory_count_tool", map[string]any{"namespace": ns})["count"]
}

func checkPythonGraphTools(t *testing.T, cs *mcp.ClientSession) {
	g := ok(t, cs, "memory_inspect_graph_tool", map[string]any{"memory_id": pySession, "max_depth": 2})
	wantKeys(t, "memory_inspect_graph_tool", g, "success", "origin_id", "nodes", "edges", "paths", "stats")
	wantKeys(t, "inspect node", g["nodes"].([]any)[0].(map[string]any), "id", "content_preview", "type", "confidence", "importance")
	edge := g["edges"].([]any)[0].(map[string]any)
	wantKeys(t, "inspect edge", edge, "id", "source_id", "target_id", "edge_type", "weight")
	path := g["paths"].([]any)[0].(map[string]any)
	wantKeys(t, "inspect path", path, "node_ids", "edge_types", "total_weight", "relevance_score")
	stats := g["stats"].(map[string]any)
	wantKeys(t, "inspect stats", stats, "node_count", "edge_count", "max_depth_reached", "origin_id")
	if stats["origin_id"] != pySession || stats["node_count"] != 3.0 {
		t.Errorf("graph around the Python session memory = %v, want 3 nodes (session -> PostgreSQL -> MySQL)", stats)
	}
	m := ok(t, cs, "memory_inspect_graph_tool", map[string]any{"memory_id": pySession, "output_format": "mermaid"})
	wantKeys(t, "inspect mermaid", m, "success", "origin_id", "mermaid", "stats")

	rel := ok(t, cs, "memory_relate_tool", map[string]any{"source_id": pyWrapErrors, "target_id": pyDarkMode, "relation": "relates_to"})
	wantKeys(t, "memory_relate_tool", rel, "success", "edge_id")
	gone := ok(t, cs, "memory_edge_forget_tool", map[string]any{"edge_id": rel["edge_id"], "direction": nil})
	wantKeys(t, "memory_edge_forget_tool", gone, "success", "deleted_ids", "deleted_count", "error")

	r := callTool(t, cs, "memory_relate_tool", map[string]any{"source_id": pyWrapErrors, "target_id": "mem_1700000000000_00000000", "relation": "relates_to"})
	if !r.isError || r.out["success"] != false || !strings.Contains(r.out["error"].(string), "not found") {
		t.Errorf("a failure = isError %v, structured %v; want isError and {success: false, error: ...not found}", r.isError, r.out)
	}
}

func checkPythonCurationTools(t *testing.T, cs *mcp.ClientSession) {
	ctx := ok(t, cs, "memory_context_tool", map[string]any{"project": "billing", "query": nil})
	wantKeys(t, "memory_context_tool", ctx, "success", "context", "token_estimate")
	if !strings.Contains(ctx["context"].(string), "Never commit secrets") {
		t.Errorf("context does not carry the Python golden rule: %v", ctx["context"])
	}

	app := ok(t, cs, "memory_apply_tool", map[string]any{"memory_id": pyPostgres, "context": "choosing a database", "session_id": nil})
	wantKeys(t, "memory_apply_tool", app, "success", "memory_id", "event_id", "error")
	out := ok(t, cs, "memory_outcome_tool", map[string]any{"memory_id": pyPostgres, "success": true, "error_msg": nil})
	wantKeys(t, "memory_outcome_tool", out, "success", "memory_id", "outcome_success", "new_confidence", "promoted", "error")
	val := ok(t, cs, "memory_validate_tool", map[string]any{"memory_id": pyPostgres, "success": false})
	wantKeys(t, "memory_validate_tool", val, "success", "memory_id", "old_confidence", "new_confidence", "promoted", "error")
	if val["old_confidence"] != 0.4 || val["new_confidence"] != 0.25 {
		t.Errorf("validate = %v, want 0.4 -> 0.25 from the Python confidence 0.3 after one success", val)
	}

	hist := ok(t, cs, "validation_history_tool", map[string]any{"memory_id": pyDarkMode, "event_type": "succeeded"})
	wantKeys(t, "validation_history_tool", hist, "success", "memory_id", "events", "summary")
	sum := hist["summary"].(map[string]any)
	wantKeys(t, "validation_history_tool summary", sum, "total_events", "applied", "succeeded", "failed", "success_rate")
	if sum["total_events"] != 1.0 || sum["applied"] != 0.0 || sum["success_rate"] != 1.0 {
		t.Errorf("history summary filtered to succeeded = %v, want the one Python success", sum)
	}

	det := ok(t, cs, "memory_detect_contradictions", map[string]any{"memory_id": pyPostgres})
	wantKeys(t, "memory_detect_contradictions", det, "success", "memory_id", "contradictions", "edges_created", "error")
	sup := ok(t, cs, "memory_check_supersedes", map[string]any{"memory_id": pyPostgres, "create_edge": false})
	wantKeys(t, "memory_check_supersedes", sup, "success", "memory_id", "superseded_id", "edge_created", "reason", "error")

	h := ok(t, cs, "memory_analyze_health", map[string]any{"namespace": nil})
	wantKeys(t, "memory_analyze_health", h, "success", "contradictions", "low_confidence", "stale", "summary")
	wantKeys(t, "health summary", h["summary"].(map[string]any), "total_issues", "critical", "warnings")
	checkHealthItem(t, h, "contradictions", "memory_a_id", "memory_a_content", "memory_b_id", "memory_b_content", "recommendation")
	checkHealthItem(t, h, "low_confidence", "memory_id", "content", "confidence", "recommendation")
	checkHealthItem(t, h, "stale", "memory_id", "content", "days_since_access", "recommendation")
}

func checkHealthItem(t *testing.T, h map[string]any, list string, keys ...string) {
	t.Helper()
	items, _ := h[list].([]any)
	if len(items) == 0 {
		t.Errorf("health %s is empty; the Python sample has one", list)
		return
	}
	wantKeys(t, "health "+list, items[0].(map[string]any), keys...)
}

func checkPythonFileTools(t *testing.T, cs *mcp.ClientSession) {
	add := ok(t, cs, "file_activity_add", map[string]any{"file_path": "/src/billing/db.go", "action": "write", "project_root": "/src/billing", "file_type": nil})
	wantKeys(t, "file_activity_add", add, "success", "activity_id")
	recent := ok(t, cs, "file_activity_recent", map[string]any{"project_root": "/src/billing", "days": 3650})
	wantKeys(t, "file_activity_recent", recent, "success", "files", "count")
	if recent["count"] != 3.0 {
		t.Errorf("recent files = %v, want the two Python files and the new one", recent["count"])
	}
}

func checkPythonForget(t *testing.T, cs *mcp.ClientSession) {
	r := callTool(t, cs, "memory_forget_tool", map[string]any{"memory_id": pyMySQL, "confirm": false})
	if !r.isError || r.out["success"] != false || !strings.Contains(r.out["error"].(string), "Deletion not confirmed") {
		t.Errorf("forget with confirm=false = %v, want Python's failure \"Deletion not confirmed\"", r.out)
	}
	f := ok(t, cs, "memory_forget_tool", map[string]any{"memory_id": pyMySQL, "query": nil, "namespace": nil})
	wantKeys(t, "memory_forget_tool", f, "success", "deleted_ids", "deleted_count", "error")
	if f["deleted_count"] != 1.0 {
		t.Errorf("forget = %v", f)
	}
}

// waitForVectors waits for the server to embed the migrated memories in the
// background (the Python Recall kept its vectors outside SQLite).
func waitForVectors(t *testing.T, dbPath string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+dbPath+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var pending int
		if err := db.QueryRowContext(context.Background(), `SELECT count(*) FROM memories WHERE embedding_pending = 1`).Scan(&pending); err != nil {
			t.Fatal(err)
		}
		if pending == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d migrated memories still lack vectors", pending)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// pyHash is the Python Recall's hashlib.sha256(content.encode()).hexdigest()[:16].
func pyHash(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:])[:16]
}

// wantKeys checks that every key is present (null counts as present).
func wantKeys(t *testing.T, what string, m map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Errorf("%s: no %q in %v", what, k, m)
		}
	}
}

// TestDoctorReportsAPythonDatabase runs doctor on a Python Recall database.
func TestDoctorReportsAPythonDatabase(t *testing.T) {
	c := newCLIEnv(t)
	if err := pyrecall.Create(c.dbPath, pyrecall.Sample()); err != nil {
		t.Fatal(err)
	}
	res := c.run("", "doctor")
	if !strings.Contains(res.stdout, "Python Recall database found and migrated") || !strings.Contains(res.stdout, "kept 7 memories, 4 edges, 3 validation events, 2 file activity rows") ||
		!strings.Contains(res.stdout, ".python-backup-") {
		t.Errorf("doctor on a Python database:\n%s", res.stdout)
	}
}
