package history

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestIndexOfAnOlderVersionIsRebuilt: an index written by an earlier build
// (other keyword rules, text kept as it was, secrets in it) is dropped when
// opened and read again from the transcripts by the next update; nothing it
// held is found, nor left in the file.
func TestIndexOfAnOlderVersionIsRebuilt(t *testing.T) {
	ctx := context.Background()
	root := copyTree(t)
	path := filepath.Join(t.TempDir(), "history.db")
	ix, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	update(t, ix, root, Limits{})
	ix.Close()

	// What an earlier build left: its own version, words this build never
	// writes.
	old, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		`UPDATE messages SET text = 'stalewords from the earlier build: ` + awsKey + `' WHERE uuid = 'u-0001'`,
		`INSERT INTO messages_fts(rowid, words) SELECT id, 'stalewords ` + awsKey + `' FROM messages WHERE uuid = 'u-0001'`,
		fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion-1),
	} {
		if _, err := old.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	old.Close()

	ix, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var v, files int
	ix.db.QueryRow(`PRAGMA user_version`).Scan(&v)
	ix.db.QueryRow(`SELECT count(*) FROM files`).Scan(&files)
	if v != schemaVersion || files != 0 {
		t.Fatalf("reopened: version %d, %d files kept; want version %d, none", v, files, schemaVersion)
	}
	paths, _ := filepath.Glob(path + "*")
	for _, p := range paths {
		if b, _ := os.ReadFile(p); leaks(string(b)) != nil {
			t.Errorf("%s still holds what the earlier build kept: %v", filepath.Base(p), leaks(string(b)))
		}
	}
	st := update(t, ix, root, Limits{})
	if st.Read != 7 || st.Messages != 16 {
		t.Errorf("the rebuild read %+v, want every transcript", st)
	}
	if r := search(t, ix, Query{Text: "stalewords"}); r.TotalMatches != 0 {
		t.Errorf("the earlier build's words are still found: %v", matchedUUIDs(r))
	}
	if r := search(t, ix, Query{Text: "UserService"}); r.TotalMatches == 0 {
		t.Errorf("the rebuilt index misses UserService")
	}
}
