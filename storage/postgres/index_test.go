package postgres

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/postgres/pgtest"
)

func stagedTestMemory(i int) *memory.Memory {
	return &memory.Memory{ID: memory.NewID(time.Now()) + fmt.Sprint(i), Content: fmt.Sprintf("staged memory %d", i),
		Type: memory.TypeDecision, Namespace: "global", Importance: 0.5, Confidence: 0.3}
}

func stagedTestVector(i int) []float32 { return []float32{1, float32(i), float32(i % 3), 0.5} }

// TestStoredVectorsAreFoundWhileAndAfterTheyAreIndexed: a store returns
// before its vector enters the HNSW index; a vector search finds the memory
// at once (staged vectors are ranked exactly), and the indexer moves every
// staged vector into the index soon after.
func TestStoredVectorsAreFoundWhileAndAfterTheyAreIndexed(t *testing.T) {
	ctx := context.Background()
	db := openSchema(t)
	const n = 30
	for i := range n {
		m := stagedTestMemory(i)
		if _, _, err := db.InsertMemory(ctx, m, stagedTestVector(i)); err != nil {
			t.Fatal(err)
		}
		hits, err := db.SearchVector(ctx, stagedTestVector(i), memory.Filter{}, 1)
		if err != nil || len(hits) != 1 || hits[0].ID != m.ID {
			t.Fatalf("right after storing %s: hits %v, %v", m.ID, hits, err)
		}
	}
	waitIndexed(t, db)
	var indexed int
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM memories WHERE embedding IS NOT NULL AND NOT embedding_pending`).Scan(&indexed); err != nil || indexed != n {
		t.Fatalf("%d of %d vectors in the indexed column, %v", indexed, n, err)
	}
	hits, err := db.SearchVector(ctx, stagedTestVector(7), memory.Filter{}, 3)
	if err != nil || len(hits) != 3 || hits[0].Score < 0.999 {
		t.Fatalf("after indexing: hits %v, %v", hits, err)
	}
}

func waitIndexed(t *testing.T, db *DB) {
	t.Helper()
	for i := 0; ; i++ {
		left, err := db.CountStagedVectors(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if left == 0 {
			return
		}
		if i == 300 {
			t.Fatalf("%d vectors still staged after 30 s", left)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestStagedVectorsAreSearchedExactly: a vector waiting for the index (one
// whose indexer has not run: its process was killed, say) is found by a
// search, filters applied, and mixed with the index's by distance.
func TestStagedVectorsAreSearchedExactly(t *testing.T) {
	ctx := context.Background()
	db := openSchema(t)
	var ids []string
	for i := range 5 {
		m := stagedTestMemory(i)
		if _, _, err := db.InsertMemory(ctx, m, stagedTestVector(i)); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	waitIndexed(t, db)
	// Memory 3 goes back to waiting, as a killed process leaves it.
	if _, err := db.pool.Exec(ctx, `UPDATE memories SET embedding_staged = embedding, embedding = NULL WHERE id = $1`, ids[3]); err != nil {
		t.Fatal(err)
	}
	hits, err := db.SearchVector(ctx, stagedTestVector(3), memory.Filter{}, 2)
	if err != nil || len(hits) != 2 || hits[0].ID != ids[3] || hits[0].Score < 0.999 {
		t.Fatalf("hits %v, %v; want %s first", hits, err, ids[3])
	}
	hits, err = db.SearchVector(ctx, stagedTestVector(3), memory.Filter{Namespaces: []string{"project:elsewhere"}}, 2)
	if err != nil || len(hits) != 0 {
		t.Fatalf("filtered out: hits %v, %v", hits, err)
	}
	if vec, err := db.Embedding(ctx, ids[3]); err != nil || len(vec) != 4 {
		t.Fatalf("Embedding of a staged memory: %v, %v", vec, err)
	}
}

// TestClosingIndexesWhatTheProcessStored: a short-lived process (a CLI
// call) leaves no vector waiting behind it.
func TestClosingIndexesWhatTheProcessStored(t *testing.T) {
	ctx := context.Background()
	u := pgtest.Schema(t)
	for i := range 3 {
		db, err := Open(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.InsertMemory(ctx, stagedTestMemory(i), stagedTestVector(i)); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	db, err := Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if left, err := db.CountStagedVectors(ctx); err != nil || left != 0 {
		t.Fatalf("%d vectors left staged after their processes closed, %v", left, err)
	}
}

// TestStagedVectorOfAnOldSpaceWaitsForANewOne: a vector staged in the old
// embedding space while another process changed it is not indexed; its
// memory waits to be embedded again.
func TestStagedVectorOfAnOldSpaceWaitsForANewOne(t *testing.T) {
	ctx := context.Background()
	db := openSchema(t)
	m := stagedTestMemory(1)
	if _, _, err := db.InsertMemory(ctx, m, stagedTestVector(1)); err != nil {
		t.Fatal(err)
	}
	waitIndexed(t, db)
	if _, err := db.pool.Exec(ctx, `UPDATE memories SET embedding = NULL, embedding_staged = '[1,2,3]' WHERE id = $1`, m.ID); err != nil {
		t.Fatal(err)
	}
	if hits, err := db.SearchVector(ctx, stagedTestVector(1), memory.Filter{}, 5); err != nil || len(hits) != 0 {
		t.Fatalf("a vector of another dimension was ranked: %v, %v", hits, err)
	}
	if seq, err := db.indexOne(ctx, nil); err != nil || seq == 0 {
		t.Fatalf("indexOne: %d, %v", seq, err)
	}
	got, err := db.GetMemory(ctx, m.ID)
	if err != nil || !got.EmbeddingPending {
		t.Fatalf("memory %+v, %v: want it pending", got, err)
	}
	if left, _ := db.CountStagedVectors(ctx); left != 0 {
		t.Fatalf("%d left staged", left)
	}
}

// TestVectorSearchAfterAnotherProcessChangedTheSpace: a process searches
// with the dimension it last saw, without reading it each time; once
// another process has moved the store to vectors of another dimension, a
// query of the old dimension is refused as a mismatch (not a database
// error), and one of the new dimension finds the new vectors.
func TestVectorSearchAfterAnotherProcessChangedTheSpace(t *testing.T) {
	ctx := context.Background()
	u := pgtest.Schema(t)
	first, err := Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if _, err := first.ClaimEmbeddingSpace(ctx, memory.EmbeddingSpace{Model: "small", Dimension: 4}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := first.InsertMemory(ctx, stagedTestMemory(1), stagedTestVector(1)); err != nil {
		t.Fatal(err)
	}
	if hits, err := first.SearchVector(ctx, stagedTestVector(1), memory.Filter{}, 5); err != nil || len(hits) != 1 {
		t.Fatalf("hits %v, %v", hits, err)
	}
	other, err := Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.ResetEmbeddings(ctx, memory.EmbeddingSpace{Model: "large", Dimension: 6}); err != nil {
		t.Fatal(err)
	}
	m := stagedTestMemory(2)
	large := []float32{1, 2, 3, 4, 5, 6}
	if _, _, err := other.InsertMemory(ctx, m, large); err != nil {
		t.Fatal(err)
	}
	if hits, err := first.SearchVector(ctx, stagedTestVector(1), memory.Filter{}, 5); !errors.Is(err, memory.ErrEmbeddingMismatch) {
		t.Errorf("a query of the old dimension: hits %v, %v; want ErrEmbeddingMismatch", hits, err)
	}
	if hits, err := first.SearchVector(ctx, large, memory.Filter{}, 5); err != nil || len(hits) != 1 || hits[0].ID != m.ID {
		t.Errorf("a query of the new dimension: hits %v, %v; want %s", hits, err, m.ID)
	}
}
