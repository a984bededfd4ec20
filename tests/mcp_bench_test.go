package tests

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-mcp/recall/internal/benchreport"
)

// BenchmarkSpawnInitialize starts `recall serve` as an MCP client does,
// completes the initialize handshake and closes it; it reports the median
// (p50) time from spawn to an initialized session.
//
//	go test -tags sqlite_fts5 -run '^$' -bench BenchmarkSpawnInitialize -benchtime 30x ./tests/
func BenchmarkSpawnInitialize(b *testing.B) {
	env, _ := recallEnv(b)
	// The first start creates the database; measure the starts that follow,
	// as a client restarting in an existing project does.
	cs, _ := startStdio(b, env)
	cs.Close()

	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	var lat benchreport.Latencies
	b.ResetTimer()
	for range b.N {
		cmd := exec.Command(recallBin, "serve")
		cmd.Env = env
		start := time.Now()
		cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatal(err)
		}
		lat.Add(time.Since(start))
		b.StopTimer()
		if err := cs.Close(); err != nil {
			b.Fatalf("recall exit: %v", err)
		}
		b.StartTimer()
	}
	b.StopTimer()
	lat.Report(b)
}
