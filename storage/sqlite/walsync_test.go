package sqlite

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Commits that come together, as the hooks of tools run side by side do,
// are synced to the disk by one fsync.
func TestWALSyncerGathersCommitsIntoOneSync(t *testing.T) {
	path := filepath.Join(t.TempDir(), "recall.db")
	if err := os.WriteFile(path+"-wal", []byte("wal"), 0o600); err != nil {
		t.Fatal(err)
	}
	w := newWALSyncer(path, slog.Default())
	defer w.close()
	for range 4 { // a burst: a commit every 3 ms
		w.soon()
		time.Sleep(3 * time.Millisecond)
	}
	time.Sleep(syncGather + 200*time.Millisecond)
	// One, or two where a loaded machine stretched the burst past the wait.
	n := w.synced.Load()
	if n < 1 || n > 2 {
		t.Fatalf("four commits in 12 ms made %d syncs; want 1", n)
	}
	w.soon()
	w.close() // a sync asked for is made before the syncer stops
	if got := w.synced.Load(); got != n+1 {
		t.Fatalf("%d syncs after a commit and close; want %d", got, n+1)
	}
}
