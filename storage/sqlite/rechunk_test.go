package sqlite

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

// A database whose vector table has sqlite-vec's default chunks (made before
// VectorChunk) gets it rebuilt with VectorChunk on open, every vector and its
// metadata kept.
func TestOpenRechunksAnOldVectorTable(t *testing.T) {
	ctx := context.Background()
	path := t.TempDir() + "/recall.db"
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.ResetEmbeddings(ctx, memory.EmbeddingSpace{Model: "m", Dimension: 3}); err != nil {
		t.Fatal(err)
	}
	a := mustInsert(t, db, newMemory("vector a", "global", memory.TypeDecision), []float32{1, 0, 0})
	b := mustInsert(t, db, newMemory("vector b", "project:x", memory.TypeSession), []float32{0, 1, 0})
	// Turn the table back into what older versions made, at the schema version before.
	err = db.write(ctx, func(tx *sql.Tx) error {
		for _, q := range append([]string{
			`CREATE TEMP TABLE old AS SELECT rowid AS seq, embedding, namespace, memory_type, importance FROM memory_vectors`,
			`DROP TABLE memory_vectors`,
			`CREATE VIRTUAL TABLE memory_vectors USING vec0 (embedding float[3] distance_metric=cosine, namespace text, memory_type text, importance float)`,
			`INSERT INTO memory_vectors (rowid, embedding, namespace, memory_type, importance) SELECT * FROM temp.old`,
			`DROP TABLE temp.old`,
			`DROP TABLE trash`, // and what later migrations made
		}, append(undoJournalKeywords(), undoJobsTable(true)...)...) {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return setMeta(ctx, tx, metaSchemaVersion, strconv.Itoa(versionOf("vector_chunks.sql")-1))
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var def string
	if err := db.db.QueryRowContext(ctx, `SELECT sql FROM sqlite_schema WHERE name = 'memory_vectors'`).Scan(&def); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(def, "chunk_size="+strconv.Itoa(VectorChunk)) {
		t.Errorf("vector table after open: %s", def)
	}
	hits, err := db.SearchVector(ctx, []float32{0, 1, 0}, memory.Filter{Namespaces: []string{"project:x"}}, 5)
	if err != nil || len(hits) != 1 || hits[0].ID != b.ID || hits[0].Score < 0.999 {
		t.Errorf("search in project:x after rechunking = %+v, %v", hits, err)
	}
	hits, err = db.SearchVector(ctx, []float32{1, 0, 0}, memory.Filter{IDs: []string{a.ID, b.ID}}, 5)
	if err != nil || len(hits) != 2 || hits[0].ID != a.ID {
		t.Errorf("similarity of a and b after rechunking = %+v, %v", hits, err)
	}
	// Deleting a memory still deletes its vector (the triggers were remade).
	var n int
	if _, err := db.db.ExecContext(ctx, `DELETE FROM memories WHERE id = ?`, a.ID); err != nil {
		t.Fatal(err)
	}
	if err := db.db.QueryRowContext(ctx, `SELECT count(*) FROM memory_vectors`).Scan(&n); err != nil || n != 1 {
		t.Errorf("vectors after deleting a memory: %d, %v", n, err)
	}
}
