package validation_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/sqlite"
	"github.com/recall-mcp/recall/validation"
)

// exampleServices opens a fresh database and builds the memory and
// validation services over it, without Ollama (no embedder, no judge).
func exampleServices() (*memory.Service, *validation.Service, func()) {
	dir, err := os.MkdirTemp("", "recall-example")
	if err != nil {
		log.Fatal(err)
	}
	db, err := sqlite.Open(context.Background(), filepath.Join(dir, "recall.db"))
	if err != nil {
		log.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	mem := memory.NewService(db, nil, memory.Options{Logger: quiet})
	val := validation.New(db, mem, nil, nil, validation.Options{Logger: quiet})
	return mem, val, func() { db.Close(); os.RemoveAll(dir) }
}

// The validation loop: apply a memory (try), report how it went (learn), and
// its confidence moves: +0.1 for a success, -0.15 for a failure.
func ExampleService_Outcome() {
	mem, val, done := exampleServices()
	defer done()
	ctx := context.Background()
	m, _ := mem.Remember(ctx, memory.StoreRequest{Content: "Run the tests with -race before a merge", Type: memory.TypePattern})

	if _, err := val.Apply(ctx, validation.ApplyRequest{MemoryID: m.ID, Context: "merging the cache change"}); err != nil {
		log.Fatal(err)
	}
	ok, err := val.Outcome(ctx, validation.OutcomeRequest{MemoryID: m.ID, Success: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("success: %.2f -> %.2f\n", ok.OldConfidence, ok.NewConfidence)
	bad, _ := val.Outcome(ctx, validation.OutcomeRequest{MemoryID: m.ID, Success: false, ErrorMsg: "a data race slipped through"})
	fmt.Printf("failure: %.2f -> %.2f\n", bad.OldConfidence, bad.NewConfidence)
	// Output:
	// success: 0.30 -> 0.40
	// failure: 0.40 -> 0.25
}

// Validating a decision up to 0.9 promotes it to a golden rule, which then
// needs force to be deleted.
func ExampleService_Validate() {
	mem, val, done := exampleServices()
	defer done()
	ctx := context.Background()
	m, _ := mem.Remember(ctx, memory.StoreRequest{Content: "Never push to main directly", Type: memory.TypeDecision})

	step := 0.6
	res, err := val.Validate(ctx, validation.ValidateRequest{MemoryID: m.ID, Success: true, Adjustment: &step})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.1f -> %.1f, promoted %v to %s\n", res.OldConfidence, res.NewConfidence, res.Promoted, res.MemoryType)

	_, err = mem.Forget(ctx, memory.ForgetRequest{MemoryID: m.ID, Confirm: true})
	fmt.Println(strings.Contains(fmt.Sprint(err), "golden rule"))
	// Output:
	// 0.3 -> 0.9, promoted true to golden_rule
	// true
}

// The context an agent gets at the start of a session: the RFC 2119 preamble,
// every golden rule, then the memories of the project that fit the budget.
func ExampleService_Context() {
	mem, val, done := exampleServices()
	defer done()
	ctx := context.Background()
	for _, r := range []memory.StoreRequest{
		{Content: "Never push to main directly", Type: memory.TypeGoldenRule},
		{Content: "Orders are cached in Redis", Type: memory.TypeDecision, Namespace: "project:shop"},
		{Content: "The billing service uses Postgres", Type: memory.TypeDecision, Namespace: "project:billing"},
	} {
		if _, err := mem.Remember(ctx, r); err != nil {
			log.Fatal(err)
		}
	}

	res, err := val.Context(ctx, validation.ContextRequest{Project: "shop", TokenBudget: 500})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.GoldenRules, "golden rule,", len(res.MemoryIDs), "memories")
	fmt.Println(strings.Contains(res.Context, "Never push to main directly"))
	fmt.Println(strings.Contains(res.Context, "Orders are cached in Redis"))
	fmt.Println(strings.Contains(res.Context, "billing"))
	// Output:
	// 1 golden rule, 2 memories
	// true
	// true
	// false
}
