package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/recall-mcp/recall/storage/sqlite"
	"github.com/recall-mcp/recall/storage/storetest"
)

// TestContract runs the contract every store passes on a fresh SQLite file
// per case.
func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Store {
		db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "recall.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	})
}
