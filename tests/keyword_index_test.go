package tests

import (
	"database/sql"
	"fmt"
	"testing"
	"time"
)

// TestServeMergesTheMemoriesKeywordIndex: memories stored one at a time leave
// the keyword index in several segments, each looked in by every search; the
// server merges them into one when it starts, and searches find what they did.
func TestServeMergesTheMemoriesKeywordIndex(t *testing.T) {
	env, dbPath := recallEnv(t, "RECALL_CURATION=off")
	cs, _ := startStdio(t, env)
	for i := range 12 {
		ok(t, cs, "memory_store_tool", map[string]any{"content": fmt.Sprintf("The orders service caches item %d for %d minutes", i, i+1), "namespace": "global"})
	}
	cs.Close()

	db, err := sql.Open("sqlite3", "file:"+dbPath+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	segments := func() (n int) {
		if err := db.QueryRow(`SELECT count(DISTINCT segid) FROM memories_fts_idx`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := segments(); n < 2 {
		t.Fatalf("12 stores left the index in %d segments; the test needs several", n)
	}
	cs, _ = startStdio(t, env)
	defer cs.Close()
	for deadline := time.Now().Add(10 * time.Second); segments() != 1 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if n := segments(); n != 1 {
		t.Fatalf("the server left the memories' keyword index in %d segments, want 1", n)
	}
	var found int
	if err := db.QueryRow(`SELECT count(*) FROM memories_fts WHERE memories_fts MATCH 'orders AND minutes'`).Scan(&found); err != nil || found != 12 {
		t.Errorf("after the merge the index finds %d of the 12 memories (%v)", found, err)
	}
}
