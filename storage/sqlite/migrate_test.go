package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

// TestMigrationRecomputesContentHashes runs the content hash migration over
// memories whose hashes were made by the old normalising rule and checks that
// every hash is the Python Recall's afterwards, so old memories deduplicate
// with new stores.
func TestMigrationRecomputesContentHashes(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "recall.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m := mustInsert(t, db, newMemory("Run Go Vet", "global", memory.TypePattern), nil)
	if _, err := db.SQL().ExecContext(ctx, `UPDATE memories SET content_hash = 'oldnormalised00'`); err != nil {
		t.Fatal(err)
	}
	ms, err := schema.Load()
	if err != nil {
		t.Fatal(err)
	}
	ran := false
	for _, mig := range ms {
		if strings.HasSuffix(mig.Name, "_python_content_hash.sql") {
			if _, err := db.SQL().ExecContext(ctx, mig.SQL); err != nil {
				t.Fatalf("%s: %v", mig.Name, err)
			}
			ran = true
		}
	}
	if !ran {
		t.Fatal("no content hash migration")
	}
	got, err := db.GetMemory(ctx, m.ID)
	if err != nil || got.ContentHash != memory.ContentHash("Run Go Vet") {
		t.Fatalf("hash after migration = %+v, %v; want %s", got, err, memory.ContentHash("Run Go Vet"))
	}
}

// The schema version this build claims is the number of its migrations, all
// of which load: a database migrated to it is up to date at the next open.
func TestSchemaVersionIsTheLastMigration(t *testing.T) {
	ms, err := schema.Load()
	if err != nil {
		t.Fatal(err)
	}
	if SchemaVersion() != len(ms) || ms[len(ms)-1].Version != SchemaVersion() {
		t.Errorf("SchemaVersion() = %d, migrations %d (last %s)", SchemaVersion(), len(ms), ms[len(ms)-1].Name)
	}
}
