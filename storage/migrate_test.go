package storage

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

// TestMigrationRecomputesContentHashes opens a version-2 database whose hashes
// were made by the old normalising rule and checks that every hash is the
// Python Recall's afterwards, so old memories deduplicate with new stores.
func TestMigrationRecomputesContentHashes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "recall.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	m := mustInsert(t, db, newMemory("Run Go Vet", "global", memory.TypePattern), nil)
	if _, err := db.SQL().ExecContext(ctx, `UPDATE memories SET content_hash = 'oldnormalised00'; UPDATE meta SET value = '2' WHERE key = 'schema_version'`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.GetMemory(ctx, m.ID)
	if err != nil || got.ContentHash != memory.ContentHash("Run Go Vet") {
		t.Fatalf("hash after migration = %+v, %v; want %s", got, err, memory.ContentHash("Run Go Vet"))
	}
}
