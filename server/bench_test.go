package server

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-mcp/recall/internal/benchreport"
	"github.com/recall-mcp/recall/memory"
)

// BenchmarkTools measures memory_store_tool and memory_recall_tool through a
// real client session, over databases of 200 and 10,000 memories embedded by
// the fake Ollama, and reports the median (p50) latency of one call.
//
//	go test -tags sqlite_fts5 -run '^$' -bench BenchmarkTools -benchtime 200x ./server/
func BenchmarkTools(b *testing.B) {
	topics := []string{"testing", "logging", "databases", "deployment", "errors", "naming", "reviews", "security"}
	for _, size := range []int{200, 10000} {
		f := newFixture(b)
		ctx := context.Background()
		for i := range size {
			_, err := f.mem.Remember(ctx, memory.StoreRequest{
				Content: fmt.Sprintf("Note %d about %s: you SHOULD keep %s simple in module %d.", i, topics[i%len(topics)], topics[(i+3)%len(topics)], i%97),
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		cs := f.connect(b)

		b.Run(fmt.Sprintf("memory_store_tool/%d", size), func(b *testing.B) {
			n := 0
			measure(b, func() {
				n++
				benchCall(b, cs, "memory_store_tool", map[string]any{"content": fmt.Sprintf("Benchmark note %d-%d: you MAY batch writes.", size, n)})
			})
		})
		b.Run(fmt.Sprintf("memory_recall_tool/%d", size), func(b *testing.B) {
			i := 0
			measure(b, func() {
				i++
				benchCall(b, cs, "memory_recall_tool", map[string]any{"query": "keep " + topics[i%len(topics)] + " simple"})
			})
		})
	}
}

// BenchmarkToolsListSize reports the size of the tools/list answer.
//
//	go test -tags sqlite_fts5 -run '^$' -bench BenchmarkToolsListSize ./server/
func BenchmarkToolsListSize(b *testing.B) {
	cs := newFixture(b).connect(b)
	var size int
	for b.Loop() {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			b.Fatal(err)
		}
		raw, _ := json.Marshal(res)
		size = len(raw)
	}
	b.ReportMetric(float64(size), "chars")
}

// measure runs op b.N times and reports the median latency in milliseconds.
func measure(b *testing.B, op func()) {
	b.Helper()
	var lat benchreport.Latencies
	b.ResetTimer()
	for range b.N {
		lat.Time(op)
	}
	b.StopTimer()
	lat.Report(b)
}

func benchCall(b *testing.B, cs *mcp.ClientSession, tool string, args map[string]any) {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		b.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		b.Fatalf("%s: %s", tool, ContentText(res))
	}
}
