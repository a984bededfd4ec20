package memory_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/sqlite"
)

// exampleService opens a fresh database in a temporary directory and builds a
// Service over it without an embedder: search runs on keywords alone, which
// keeps the examples' output the same on every machine.
func exampleService() (*memory.Service, func()) {
	dir, err := os.MkdirTemp("", "recall-example")
	if err != nil {
		log.Fatal(err)
	}
	db, err := sqlite.Open(context.Background(), filepath.Join(dir, "recall.db"))
	if err != nil {
		log.Fatal(err)
	}
	return memory.NewService(db, nil, memory.Options{Logger: slog.New(slog.DiscardHandler)}), func() { db.Close(); os.RemoveAll(dir) }
}

// Storing a memory: the same content again in the same namespace is the same
// memory.
func ExampleService_Remember() {
	svc, done := exampleService()
	defer done()
	ctx := context.Background()

	first, err := svc.Remember(ctx, memory.StoreRequest{
		Content:   "Orders are cached in Redis with a five minute TTL",
		Type:      memory.TypeDecision,
		Namespace: "project:shop",
	})
	if err != nil {
		log.Fatal(err)
	}
	again, _ := svc.Remember(ctx, memory.StoreRequest{Content: "Orders are cached in Redis with a five minute TTL", Namespace: "project:shop"})
	m, _ := svc.Get(ctx, first.ID)

	fmt.Println(first.MemoryType, first.Namespace, first.Duplicate)
	fmt.Println("again:", again.ID == first.ID, again.Duplicate)
	fmt.Printf("confidence %.1f, importance %.1f\n", m.Confidence, m.Importance)
	// Output:
	// decision project:shop false
	// again: true true
	// confidence 0.3, importance 0.5
}

// Recalling memories: a hybrid search, here on keywords alone (no embedder),
// which the result says.
func ExampleService_Recall() {
	svc, done := exampleService()
	defer done()
	ctx := context.Background()
	for _, c := range []string{
		"Orders are cached in Redis with a five minute TTL",
		"Indent Go code with tabs",
		"The order service retries payments three times",
	} {
		if _, err := svc.Remember(ctx, memory.StoreRequest{Content: c, Type: memory.TypePattern}); err != nil {
			log.Fatal(err)
		}
	}

	res, err := svc.Recall(ctx, memory.RecallRequest{Query: "how are orders cached?", NResults: 2})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.SearchMode, res.Degraded)
	fmt.Println(res.Memories[0].Content)
	// Output:
	// keyword true
	// Orders are cached in Redis with a five minute TTL
}

// Relating two memories, then walking the graph from one of them.
func ExampleService_Relate() {
	svc, done := exampleService()
	defer done()
	ctx := context.Background()
	cache, _ := svc.Remember(ctx, memory.StoreRequest{Content: "Orders are cached in Redis", Type: memory.TypeDecision})
	ttl, _ := svc.Remember(ctx, memory.StoreRequest{Content: "Cache entries expire after five minutes", Type: memory.TypePattern})

	if _, err := svc.Relate(ctx, memory.RelateRequest{SourceID: cache.ID, TargetID: ttl.ID, Relation: memory.RelationRelatesTo}); err != nil {
		log.Fatal(err)
	}
	g, err := svc.Inspect(ctx, memory.InspectRequest{MemoryID: cache.ID, MaxDepth: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(g.Nodes), "memories,", len(g.Edges), "edge:", g.Edges[0].Relation)

	// A memory cannot relate to itself: bad input is an ErrInvalid that says
	// what is accepted.
	_, err = svc.Relate(ctx, memory.RelateRequest{SourceID: cache.ID, TargetID: cache.ID, Relation: memory.RelationRelatesTo})
	fmt.Println(errors.Is(err, memory.ErrInvalid))
	// Output:
	// 2 memories, 1 edge: relates_to
	// true
}
