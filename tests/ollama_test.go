package tests

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-mcp/recall/embedding/ollamatest"
)

// environ is the environment of a recall process for this cliEnv: the
// machine's variables without RECALL_* and OLLAMA_*, then the env's own.
func (c *cliEnv) environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if _, overridden := c.vars[name]; !overridden && !strings.HasPrefix(name, "RECALL_") && !strings.HasPrefix(name, "OLLAMA_") {
			env = append(env, kv)
		}
	}
	for k, v := range c.vars {
		env = append(env, k+"="+v)
	}
	return env
}

// serve starts `recall serve` on stdio over this env's database and Ollama, and
// ends it (SIGTERM, as a client closing) when the test ends.
func (c *cliEnv) serve() *mcp.ClientSession {
	c.t.Helper()
	cmd := exec.Command(recallBin, "serve")
	cmd.Env = c.environ()
	cmd.Stderr = stderrFile(c.t)
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		c.t.Fatalf("start recall serve: %v", err)
	}
	c.t.Cleanup(func() { cs.Close() })
	return cs
}

// stats runs `recall stats --json`.
func (c *cliEnv) stats() map[string]any {
	c.t.Helper()
	var st map[string]any
	if err := json.Unmarshal([]byte(c.ok("stats", "--json")), &st); err != nil {
		c.t.Fatalf("stats --json: %v", err)
	}
	return st
}

// waitFor polls until cond holds; the deadline only keeps a broken build from
// hanging the suite, it measures nothing.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A chat model whose replies never parse: the server's queue still empties,
// each memory costs at most three chat calls, and stats and doctor say why
// judgments fail, in one line.
func TestServeWithBadChatModelEmptiesTheQueue(t *testing.T) {
	c := newCLIEnv(t)
	c.ollama.SetChat(ollamatest.Ramble)
	cs := c.serve()
	const n = 6
	for i := range n {
		ok(t, cs, "memory_store_tool", map[string]any{
			"content":     fmt.Sprintf("integration tests run against a disposable postgres container, case %d", i),
			"memory_type": "pattern",
		})
	}
	waitFor(t, "the curation queue to empty", func() bool { return c.stats()["pending_jobs"] == float64(0) })

	counts := c.ollama.Counts()
	if counts.ChatCalls == 0 || counts.ChatCalls > 3*n {
		t.Errorf("%d chat calls for %d memories, want 1 to %d", counts.ChatCalls, n, 3*n)
	}
	if counts.EmbedInputs > n {
		t.Errorf("%d texts embedded for %d memories, want at most one each", counts.EmbedInputs, n)
	}
	out := c.ok("stats")
	want := "the chat model's replies do not parse: check RECALL_OLLAMA_CHAT_MODEL"
	if strings.Count(out, want) != 1 {
		t.Errorf("stats should say once why judgments fail:\n%s", out)
	}
	r := c.run("", "doctor")
	if strings.Count(r.stdout, want) != 1 || !strings.Contains(r.stdout, "job queue: empty") {
		t.Errorf("doctor should say once why judgments fail, and that the queue is empty:\n%s", r.stdout)
	}
}

// With Ollama failing, a memory stored meanwhile keeps its curation job: stats
// and doctor show the backlog, its oldest age and the last failure. (The first
// memory's job is done at once: no other memory has a vector to compare with.)
func TestStatsAndDoctorShowTheBacklogWhileOllamaFails(t *testing.T) {
	c := newCLIEnv(t)
	c.store("Deployments go out on Tuesdays and Thursdays only", "--type", "decision")
	c.ollama.SetFailure("", 503, "server overloaded")
	cs := c.serve()
	ok(t, cs, "memory_store_tool", map[string]any{"content": "Deployments go out on Tuesdays only", "memory_type": "decision"})
	waitFor(t, "the jobs to be tried", func() bool { return c.stats()["retrying_jobs"] == float64(1) })

	st := c.stats()
	if st["pending_jobs"] != float64(1) || st["oldest_job_at"] == nil || !strings.Contains(fmt.Sprint(st["last_job_error"]), "server overloaded") {
		t.Errorf("stats --json: %v", st)
	}
	if out := c.ok("stats"); !strings.Contains(out, "1 pending (1 waiting to retry), oldest queued") {
		t.Errorf("stats should show the backlog:\n%s", out)
	}
	r := c.run("", "doctor")
	if !strings.Contains(r.stdout, "job queue: 1 pending (1 waiting to retry), oldest queued") || !strings.Contains(r.stdout, "server overloaded") {
		t.Errorf("doctor should show the backlog and the failure:\n%s", r.stdout)
	}
}

// A memory stored while Ollama fails gets its vector from the running server
// once Ollama answers again, without a restart.
func TestServeFillsPendingVectorsOnceOllamaAnswers(t *testing.T) {
	c := newCLIEnv(t)
	c.vars["RECALL_CURATION"] = "off" // only the background fill may embed it
	cs := c.serve()
	c.ollama.SetFailure("/api/embed", 500, "llama runner process has terminated")
	res := ok(t, cs, "memory_store_tool", map[string]any{"content": "Schema changes ship behind a migration flag", "memory_type": "decision"})
	if res["embedding_pending"] != true {
		t.Fatalf("store with embed failing: %v", res)
	}
	c.ollama.SetFailure("/api/embed", 0, "")
	waitFor(t, "the running server to fill the vector", func() bool { return c.stats()["pending_embeddings"] == float64(0) })
	found := ok(t, cs, "memory_recall_tool", map[string]any{"query": "migration flag for schema changes"})
	if found["search_mode"] != "hybrid" || found["degraded"] == true {
		t.Errorf("recall after the fill: %v", found)
	}
}

// Doctor judges models by what Ollama says they can do, not by their names.
func TestDoctorChecksWhatEachModelCanDo(t *testing.T) {
	c := newCLIEnv(t)
	c.vars["RECALL_OLLAMA_CHAT_MODEL"] = ollamatest.DefaultEmbedModel
	r := c.run("", "doctor")
	if r.code != 1 || strings.Contains(r.stdout, "[ok  ] chat model") ||
		!strings.Contains(r.stdout, "chat model mxbai-embed-large cannot chat") ||
		!strings.Contains(r.stdout, "fix: set RECALL_OLLAMA_CHAT_MODEL to a chat model such as llama3.2") {
		t.Errorf("doctor with an embedding model as chat model: code %d\n%s", r.code, r.stdout)
	}

	c = newCLIEnv(t)
	c.vars["RECALL_OLLAMA_MODEL"] = ollamatest.DefaultChatModel
	r = c.run("", "doctor")
	if r.code != 1 || !strings.Contains(r.stdout, "embedding model llama3.2 cannot embed") ||
		!strings.Contains(r.stdout, "fix: set RECALL_OLLAMA_MODEL to an embedding model such as mxbai-embed-large") {
		t.Errorf("doctor with a chat model as embedding model: code %d\n%s", r.code, r.stdout)
	}
	// A store keeps the memory, pending, and never records the chat model as
	// the embedding space.
	c.store("Tabs, not spaces, in Makefiles", "--type", "preference")
	if st := c.stats(); st["embedding_model"] != "" || st["pending_embeddings"] != float64(1) {
		t.Errorf("after a store with a chat model as embedding model: %v", st)
	}
}

// recall serve says at start, once, when a model cannot do its job.
func TestServeWarnsAtStartAboutAModelThatCannotChat(t *testing.T) {
	c := newCLIEnv(t)
	c.vars["RECALL_OLLAMA_CHAT_MODEL"] = ollamatest.DefaultEmbedModel
	log, err := os.CreateTemp(t.TempDir(), "serve-*.log")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(recallBin, "serve")
	cmd.Env = c.environ()
	cmd.Stderr = log
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	read := func() string { b, _ := os.ReadFile(log.Name()); return string(b) }
	waitFor(t, "the warning", func() bool { return strings.Contains(read(), "cannot chat") })
	cs.Close()
	if n := strings.Count(read(), "chat model mxbai-embed-large cannot chat"); n != 1 {
		t.Errorf("warned %d times, want once:\n%s", n, read())
	}
}

// A reindex killed midway keeps what it did and the old vectors; the next run
// continues from there.
func TestReindexKilledMidwayContinuesNextRun(t *testing.T) {
	c := newCLIEnv(t)
	for i := range 3 {
		c.store(fmt.Sprintf("Release checklist item %d: tag, changelog, announce", i))
	}
	cs := c.serve() // stores the rest through one process: faster than a CLI run each
	for i := range 150 {
		ok(t, cs, "memory_store_tool", map[string]any{"content": fmt.Sprintf("Service %d logs to stderr in JSON lines", i)})
	}
	cs.Close()
	c.ollama.SetTokenDelay(2 * time.Millisecond) // about 20 ms a memory: the run takes seconds

	cmd := exec.Command(recallBin, "reindex")
	cmd.Env = c.environ()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "some vectors to be staged", func() bool { return stagedVectors(t, c.dbPath) > 0 })
	cmd.Process.Kill()
	cmd.Wait()
	if st := c.stats(); st["pending_embeddings"] != float64(0) || st["embedding_model"] != "mxbai-embed-large" {
		t.Fatalf("after a killed reindex the old vectors must stay: %v", st)
	}

	c.ollama.SetTokenDelay(0)
	r := c.run("", "reindex")
	if r.code != 0 || !strings.Contains(r.stderr, "done: 153 memories embedded") || !strings.Contains(r.stderr, "by an earlier run") {
		t.Fatalf("second reindex: code %d\n%s", r.code, r.stderr)
	}
}

// stagedVectors counts the vectors a reindex in progress has written.
func stagedVectors(t testing.TB, path string) int {
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM reindex_vectors").Scan(&n); err != nil {
		return 0 // locked for a moment: try again
	}
	return n
}

// With every memory pending, memory_recall_tool reports keyword search, says
// why, and how many memories wait for a vector.
func TestRecallToolSaysKeywordWhileEveryMemoryIsPending(t *testing.T) {
	c := newCLIEnv(t)
	c.ollama.SetFailure("/api/embed", 500, "llama runner process has terminated")
	c.store("Caching uses Redis with a five minute TTL")
	c.store("HTTP response caching is off in development")
	c.ollama.SetFailure("/api/embed", 0, "") // Ollama is back; nothing is embedded yet
	res := c.call("memory_recall_tool", `{"query": "caching"}`)
	if res["search_mode"] != "keyword" || res["degraded"] != true || res["pending_embeddings"] != float64(2) {
		t.Errorf("recall with every memory pending: %v", res)
	}
}
