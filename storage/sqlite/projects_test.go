package sqlite

import (
	"context"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

// A database of schema version 6 (before project_roots) migrates without
// losing or moving a memory; its namespaces go to the first root claiming them.
func TestProjectRootsMigrationKeepsEveryMemory(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	mine := mustInsert(t, db, newMemory("api note", "project:api", memory.TypeDecision), nil)
	other := mustInsert(t, db, newMemory("web note", "project:web", memory.TypeDecision), nil)
	for _, q := range append(append(undoJournalKeywords(), undoJobsTable(false)...), // and what later migrations added
		`DROP TABLE project_roots`,
		`DROP TABLE model_health`,
		`DROP TABLE reindex_vectors`,
		`DROP TABLE memory_chunks`,
		`DROP TABLE spool_applied`,
		`DROP TABLE trash`,
		`UPDATE meta SET value = '6' WHERE key = 'schema_version'`,
	) {
		if _, err := db.SQL().Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	path := db.Path()
	db.Close()

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("migrating a version 6 database: %v", err)
	}
	defer db.Close()
	for _, m := range []*memory.Memory{mine, other} {
		got, err := db.GetMemory(ctx, m.ID)
		if err != nil || got.Namespace != m.Namespace || got.Content != m.Content {
			t.Fatalf("memory %s after migration: %+v, %v", m.ID, got, err)
		}
	}
	b, err := db.BindProject(ctx, "/home/me/api", []string{"project:api", "project:api-1234"})
	if err != nil || b.Namespace != "project:api" {
		t.Fatalf("first root claiming the namespace in use: %+v, %v", b, err)
	}
	b, err = db.BindProject(ctx, "/tmp/api", []string{"project:api", "project:api-5678"})
	if err != nil || b.Namespace != "project:api-5678" {
		t.Fatalf("second root: %+v, %v", b, err)
	}
}

func TestMergeRefusesBadNamespaces(t *testing.T) {
	db := openTest(t)
	mustInsert(t, db, newMemory("api note", "project:api", memory.TypeDecision), nil)
	for _, pair := range [][2]string{{"global", "project:api"}, {"project:api", "project:api"}, {"project:none", "project:api"}} {
		if _, err := db.MergeProjects(context.Background(), pair[0], pair[1]); err == nil {
			t.Errorf("merge %s into %s succeeded", pair[0], pair[1])
		}
	}
	if n, _ := db.CountMemories(context.Background(), memory.Filter{Namespaces: []string{"project:api"}}); n != 1 {
		t.Fatalf("a refused merge changed project:api: %d memories", n)
	}
}
