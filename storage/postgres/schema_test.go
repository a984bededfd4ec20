package postgres

import (
	"context"
	"testing"

	"github.com/recall-mcp/recall/storage/postgres/pgtest"
)

// openSchema opens the store on a schema of the test's own (skipping the
// test without a PostgreSQL server), closed when the test ends: the store's
// own tests' openTest (postgres_test.go), for the tests inside the package.
func openSchema(t *testing.T) *DB {
	t.Helper()
	db, err := Open(context.Background(), pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
