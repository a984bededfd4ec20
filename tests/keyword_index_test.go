package tests

import (
	"database/sql"
	"fmt"
	"testing"
	"time"
)

// TestServeMergesTheKeywordIndexes: memories stored one at a time leave the
// keyword index in several segments, each looked in by every search, and so
// do the hooks' records in the journal's; the server merges the memories'
// into one and the journal's small ones when it starts, and searches find
// what they did.
func TestServeMergesTheKeywordIndexes(t *testing.T) {
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
	segmentsOf := func(index string) (n int) {
		if err := db.QueryRow(`SELECT count(DISTINCT segid) FROM ` + index + `_idx`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	segments := func() int { return segmentsOf("memories_fts") }
	journalSegments := func() int { return segmentsOf("journal_fts") }
	if n := segments(); n < 2 {
		t.Fatalf("12 stores left the index in %d segments; the test needs several", n)
	}
	// The hooks' records, one commit each, as many as the prompts and tool
	// calls of a short session.
	for i := range 40 {
		if _, err := db.Exec(`INSERT INTO journal (kind, namespace, session_id, title, created_at) VALUES ('prompt', 'global', 's1', ?, ?)`,
			fmt.Sprintf("prompt %d: how long are orders cached?", i), time.Now().UTC().Format(time.RFC3339Nano)); err != nil {
			t.Fatal(err)
		}
	}
	if n := journalSegments(); n < 5 {
		t.Fatalf("40 records left the journal's index in %d segments; the test needs many", n)
	}
	cs, _ = startStdio(t, env)
	defer cs.Close()
	for deadline := time.Now().Add(10 * time.Second); (segments() != 1 || journalSegments() > 3) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if n := segments(); n != 1 {
		t.Fatalf("the server left the memories' keyword index in %d segments, want 1", n)
	}
	if n := journalSegments(); n > 3 {
		t.Errorf("the server left the journal's keyword index in %d segments, want at most 3", n)
	}
	var found int
	if err := db.QueryRow(`SELECT count(*) FROM memories_fts WHERE memories_fts MATCH 'orders AND minutes'`).Scan(&found); err != nil || found != 12 {
		t.Errorf("after the merge the index finds %d of the 12 memories (%v)", found, err)
	}
}
