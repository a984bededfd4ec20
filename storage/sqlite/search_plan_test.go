package sqlite

import (
	"context"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

// queryPlan is what EXPLAIN QUERY PLAN says of query, one step a line.
func queryPlan(t *testing.T, db *DB, query string, args ...any) string {
	t.Helper()
	rows, err := db.SQL().Query(`EXPLAIN QUERY PLAN `+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var steps []string
	for rows.Next() {
		var id, parent, unused int
		var step string
		if err := rows.Scan(&id, &parent, &unused, &step); err != nil {
			t.Fatal(err)
		}
		steps = append(steps, step)
	}
	return strings.Join(steps, "\n")
}

// Each vector search counts the superseded memories and looks for parts of
// long memories: at 100k memories both must read an index or the few parts,
// never every edge or every memory.
func TestVectorSearchQueriesUseTheirIndexes(t *testing.T) {
	db := openTest(t)
	if plan := queryPlan(t, db, supersededCountQuery); !strings.Contains(plan, "USING COVERING INDEX edges_relation_target (relation=?)") {
		t.Errorf("superseded count plan:\n%s\nwant a search of edges_relation_target", plan)
	}
	where, args := whereFilter(context.Background(), memory.Filter{Namespaces: []string{"global"}})
	plan := queryPlan(t, db, chunksQuery(where), append(append([]any{[]byte{0}}, args...), 10)...)
	if first, _, _ := strings.Cut(plan, "\n"); !strings.HasPrefix(first, "SCAN c") {
		t.Errorf("parts plan:\n%s\nwant memory_chunks (c) scanned first", plan)
	}
}
