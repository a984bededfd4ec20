package validation_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/jobs"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/sqlite"
	"github.com/recall-mcp/recall/validation"
)

// topics make memories that share words within a topic, so inference finds
// neighbours as it would in a real store.
var topics = []string{"pytest fixtures tests", "postgres orders schema", "docker compose deploy", "black format python", "react components hooks"}

// seed stores n memories through the memory service (with vectors) in one
// database, and returns the env.
func seed(b *testing.B, n int) *env {
	b.Helper()
	fake := ollamatest.New(b)
	client, err := embedding.New(embedding.Options{Host: fake.URL()})
	if err != nil {
		b.Fatal(err)
	}
	e := &env{ctx: context.Background(), fake: fake, client: client, clock: &clock{now: time.Date(2025, 3, 3, 9, 0, 0, 0, time.UTC)}}
	e.path = b.TempDir() + "/recall.db"
	db, err := openForBench(e.path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	e.db = db
	e.mem = memory.NewService(db, client, memory.Options{Logger: quietLog, Now: e.clock.Now})
	for i := range n {
		typ := []memory.Type{memory.TypePreference, memory.TypeDecision, memory.TypePattern, memory.TypeSession}[i%4]
		content := fmt.Sprintf("Note %d about %s: variant %d", i, topics[i%len(topics)], i%7)
		if _, err := e.mem.Remember(e.ctx, memory.StoreRequest{Content: content, Type: typ, Namespace: []string{"global", "project:shop"}[i%2]}); err != nil {
			b.Fatal(err)
		}
		e.clock.Advance(time.Second)
	}
	return e
}

// BenchmarkModelCallsPerStore stores memories into a database of 1,000 and runs
// relationship inference for each, reporting model calls per store.
func BenchmarkModelCallsPerStore(b *testing.B) {
	e := seed(b, 1000)
	e.fake.SetChat(func(req api.ChatRequest) (string, error) {
		return `{"relation": "relates_to", "confidence": 0.8, "reason": "same topic"}`, nil
	})
	runner := jobs.New(e.db, jobs.Options{Logger: quietLog})
	svc := validation.New(e.db, e.mem, e.client, e.client, validation.Options{Enabled: true, Logger: quietLog, Jobs: runner})
	var perStore []float64
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		before := e.fake.Counts()
		res, err := e.mem.Remember(e.ctx, memory.StoreRequest{Content: fmt.Sprintf("New note %d about %s", i, topics[i%len(topics)]), Type: memory.TypePattern})
		if err != nil {
			b.Fatal(err)
		}
		got, _ := e.db.GetMemory(e.ctx, res.ID)
		svc.MemoryStored(e.ctx, got)
		runner.Start(e.ctx)
		if err := runner.Close(context.Background()); err != nil {
			b.Fatal(err)
		}
		after := e.fake.Counts()
		// The store's own embed is not curation's: count chat calls and the
		// curation embed (all embeds minus the store's one).
		perStore = append(perStore, float64(after.ChatCalls-before.ChatCalls+after.EmbedCalls-before.EmbedCalls-1))
	}
	b.StopTimer()
	var sum float64
	for _, v := range perStore {
		sum += v
	}
	b.ReportMetric(sum/float64(len(perStore)), "model-calls/store")
	b.ReportMetric(slices.Max(perStore), "max-model-calls/store")
}

// BenchmarkContext10k builds a query-less context over 10,000 memories (no
// embedding involved).
func BenchmarkContext10k(b *testing.B) {
	e := seed(b, 10_000)
	svc := validation.New(e.db, e.mem, e.client, e.client, validation.Options{Logger: quietLog})
	b.ResetTimer()
	for b.Loop() {
		if _, err := svc.Context(e.ctx, validation.ContextRequest{Project: "shop"}); err != nil {
			b.Fatal(err)
		}
	}
}

func openForBench(path string) (*sqlite.DB, error) { return sqlite.Open(context.Background(), path) }
