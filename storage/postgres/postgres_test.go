package postgres_test

import (
	"context"
	"testing"

	"github.com/recall-mcp/recall/storage/postgres"
	"github.com/recall-mcp/recall/storage/storetest"
)

func openTest(t testing.TB) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(context.Background(), postgres.SchemaForTest(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestContract runs the contract every store passes, each case in a schema
// of its own.
func TestContract(t *testing.T) {
	postgres.URLForTest(t)
	storetest.Run(t, func(t *testing.T) storetest.Store { return openTest(t) })
}
