package tests

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"
)

// writerHold is how long holdWriteLock keeps the lock at most: below the
// 10 s busy timeout, so that something that waits for the writer answers only
// after it let go (see stillLocked), and long enough for a few fresh
// processes on a busy machine.
const writerHold = 9 * time.Second

// holdWriteLock makes another connection take the database's write lock with
// BEGIN IMMEDIATE and keep it for writerHold, or until release is called. The
// returned channel is closed once the lock is let go.
func holdWriteLock(t *testing.T, path string) (released <-chan struct{}, release func()) {
	t.Helper()
	let := takeWriteLock(t, path)
	done := make(chan struct{})
	var once sync.Once
	release = func() {
		once.Do(func() {
			let()
			close(done)
		})
	}
	timer := time.AfterFunc(writerHold, release)
	t.Cleanup(func() { timer.Stop(); release() })
	return done, release
}

// holdWriteLockUntilDone holds the write lock from another connection until
// the test or benchmark ends.
func holdWriteLockUntilDone(t testing.TB, path string) {
	t.Helper()
	t.Cleanup(takeWriteLock(t, path))
}

// takeWriteLock takes the write lock from a connection of its own and returns
// the function that lets it go.
func takeWriteLock(t testing.TB, path string) (release func()) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=0")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	return func() {
		conn.ExecContext(context.Background(), "ROLLBACK")
		conn.Close()
		db.Close()
	}
}

// stillLocked fails the test when the lock was let go before what was just
// run answered: then it waited on the writer.
func stillLocked(t *testing.T, released <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-released:
		t.Errorf("%s answered only after the other process let go of the write lock", what)
	default:
	}
}

func TestReadsAnswerWhileAnotherProcessHoldsTheWriteLock(t *testing.T) {
	c := newCLIEnv(t)
	_, cwd := newProject(t, c, "shop-api")
	redis := c.store("Orders MUST be cached in Redis with a five minute TTL", "--type", "decision", "--namespace", "project:shop-api")
	c.store("You MUST write commit messages in the imperative mood", "--type", "preference")

	released, _ := holdWriteLock(t, c.dbPath)

	a, r := c.hook("session-start", hookInput(t, "SessionStart", cwd, map[string]any{"source": "startup"}))
	if a == nil || !strings.Contains(a.HookSpecificOutput.AdditionalContext, redis) {
		t.Errorf("session-start behind a writer should still inject the context; stdout %q stderr %s", r.stdout, r.stderr)
	}
	stillLocked(t, released, "session-start")

	a, r = c.hook("user-prompt-submit", hookInput(t, "UserPromptSubmit", cwd, map[string]any{"prompt": "how are orders cached in redis?"}))
	if a == nil || !strings.Contains(a.HookSpecificOutput.AdditionalContext, redis) {
		t.Errorf("user-prompt-submit behind a writer should still list %s; stdout %q stderr %s", redis, r.stdout, r.stderr)
	}
	stillLocked(t, released, "user-prompt-submit")

	if out := c.ok("search", "orders cached in redis"); !strings.Contains(out, redis) {
		t.Errorf("recall search behind a writer should find %s:\n%s", redis, out)
	}
	stillLocked(t, released, "recall search")

	rec := c.call("memory_recall_tool", `{"query": "orders cached in redis"}`)
	if !strings.Contains(mustJSON(t, rec["memories"]), redis) {
		t.Errorf("memory_recall_tool behind a writer should find %s: %v", redis, rec)
	}
	stillLocked(t, released, "memory_recall_tool")

	ctx := c.call("memory_context_tool", `{"project": "shop-api", "query": "orders cache"}`)
	if !strings.Contains(ctx["context"].(string), redis) {
		t.Errorf("memory_context_tool behind a writer should hold %s: %v", redis, ctx["context"])
	}
	stillLocked(t, released, "memory_context_tool")
}

// accessCounts reads every memory's access count through memory_list_tool.
func accessCounts(t *testing.T, c *cliEnv) map[string]int {
	t.Helper()
	var list struct {
		Memories []struct {
			ID          string `json:"id"`
			AccessCount int    `json:"access_count"`
		} `json:"memories"`
	}
	if err := json.Unmarshal([]byte(c.ok("call", "memory_list_tool", `{"limit": 1000}`)), &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, m := range list.Memories {
		out[m.ID] = m.AccessCount
	}
	return out
}

func TestAccessCountsMoveOnlyForMemoriesHandedOut(t *testing.T) {
	c := newCLIEnv(t)
	_, cwd := newProject(t, c, "shop-api")
	var billing []string
	for i := range 12 {
		billing = append(billing, c.store(fmt.Sprintf("Billing note %d: orders are cached in the billing cache for %d minutes", i, i), "--type", "pattern", "--namespace", "project:billing"))
	}
	mine := c.store("Orders are cached per customer in shop-api", "--type", "decision", "--namespace", "project:shop-api")

	a, r := c.hook("user-prompt-submit", hookInput(t, "UserPromptSubmit", cwd, map[string]any{"prompt": "how long are orders cached in the cache?"}))
	if a == nil || !strings.Contains(a.HookSpecificOutput.AdditionalContext, mine) {
		t.Fatalf("the prompt hook should list %s; stdout %q stderr %s", mine, r.stdout, r.stderr)
	}
	counts := accessCounts(t, c)
	if counts[mine] != 1 {
		t.Errorf("the listed memory %s has access count %d, want 1", mine, counts[mine])
	}
	for _, id := range billing {
		if counts[id] != 0 {
			t.Errorf("billing's memory %s was never shown in shop-api yet has access count %d", id, counts[id])
		}
	}

	// A context with a small budget hands out some memories: only those count.
	var res struct {
		MemoryIDs []string `json:"memory_ids"`
	}
	out := c.ok("call", "memory_context_tool", `{"project": "billing", "query": "orders cached billing cache", "token_budget": 420}`)
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.MemoryIDs) == 0 || len(res.MemoryIDs) == len(billing) {
		t.Fatalf("want a budget that fits some but not all billing memories, got %d: %s", len(res.MemoryIDs), out)
	}
	handed := map[string]bool{}
	for _, id := range res.MemoryIDs {
		handed[id] = true
	}
	counts = accessCounts(t, c)
	for _, id := range billing {
		want := 0
		if handed[id] {
			want = 1
		}
		if counts[id] != want {
			t.Errorf("billing memory %s: access count %d, want %d (in the context: %v)", id, counts[id], want, handed[id])
		}
	}
	if counts[mine] != 1 {
		t.Errorf("shop-api's memory %s moved to %d by billing's context", mine, counts[mine])
	}
}
