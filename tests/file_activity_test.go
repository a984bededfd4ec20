package tests

import (
	"database/sql"
	"fmt"
	"testing"
	"time"
)

// TestServeSummarizesFileActivityPastRetention: touches older than
// RECALL_ACTIVITY_RETENTION_DAYS are folded into one row per file and action
// when the server starts, and file_activity_recent still counts them.
func TestServeSummarizesFileActivityPastRetention(t *testing.T) {
	env, dbPath := recallEnv(t, "RECALL_CURATION=off", "RECALL_ACTIVITY_RETENTION_DAYS=30")
	cs, _ := startStdio(t, env)
	ok(t, cs, "file_activity_add", map[string]any{"file_path": "/src/app/main.go", "action": "edit", "project_root": "/src/app"})
	cs.Close()

	db, err := sql.Open("sqlite3", "file:"+dbPath+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	old := time.Now().UTC().Add(-60 * 24 * time.Hour)
	for i := range 50 {
		at := old.Add(time.Duration(i) * time.Minute).Format("2006-01-02T15:04:05.000000000Z")
		if _, err := db.Exec(`INSERT INTO file_activity (file_path, action, project_root, file_type, created_at)
			VALUES ('/src/app/main.go', ?, '/src/app', 'go', ?)`, []string{"read", "edit"}[i%2], at); err != nil {
			t.Fatal(err)
		}
	}

	cs, _ = startStdio(t, env)
	defer cs.Close()
	rows := func() (n int) {
		db.QueryRow(`SELECT count(*) FROM file_activity`).Scan(&n)
		return n
	}
	for deadline := time.Now().Add(10 * time.Second); rows() != 3 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if n := rows(); n != 3 {
		t.Fatalf("%d activity rows after start, want 3 (read and edit summaries, the recent edit)", n)
	}
	out := ok(t, cs, "file_activity_recent", map[string]any{"project_root": "/src/app", "days": 3650})
	files := out["files"].([]any)
	f := files[0].(map[string]any)
	if len(files) != 1 || f["access_count"].(float64) != 51 || fmt.Sprint(f["actions"]) != "map[edit:26 read:25]" {
		t.Errorf("all-time activity after summarizing: %v", files)
	}
	recent := ok(t, cs, "file_activity_recent", map[string]any{"project_root": "/src/app"})["files"].([]any)
	if len(recent) != 1 || recent[0].(map[string]any)["access_count"].(float64) != 1 {
		t.Errorf("last 14 days: %v, want main.go touched once", recent)
	}
}
