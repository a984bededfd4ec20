package sqlite

import (
	"context"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

func TestClaimEmbeddingSpaceFirstClaimWins(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	first := memory.EmbeddingSpace{Model: "mxbai-embed-large", Dimension: 4}
	got, err := db.ClaimEmbeddingSpace(ctx, first)
	if err != nil || got != first {
		t.Fatalf("first claim: %+v, %v; want %+v", got, err, first)
	}
	m := mustInsert(t, db, newMemory("Deploys go through the staging cluster first.", "global", memory.TypeDecision), []float32{0.1, 0.2, 0.3, 0.4})

	got, err = db.ClaimEmbeddingSpace(ctx, memory.EmbeddingSpace{Model: "nomic-embed-text", Dimension: 8})
	if err != nil || got != first {
		t.Fatalf("second claim: %+v, %v; want the first space %+v kept", got, err, first)
	}
	stored, err := db.GetMemory(ctx, m.ID)
	if err != nil || stored.EmbeddingPending {
		t.Fatalf("the first vector must survive a second claim: pending=%v err=%v", stored.EmbeddingPending, err)
	}
	if _, err := db.ClaimEmbeddingSpace(ctx, memory.EmbeddingSpace{Model: "x", Dimension: 0}); err == nil {
		t.Fatal("a zero dimension must be refused")
	}
}
