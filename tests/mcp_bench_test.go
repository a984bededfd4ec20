package tests

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkSpawnInitialize starts `recall serve` as an MCP client does,
// completes the initialize handshake and closes it, and reports p50 and p95
// of the time from spawn to an initialized session. When the official MCP
// memory server (npm @modelcontextprotocol/server-memory) is at hand it is
// timed in the same run, one start of each in turn, so that both see the same
// load; "official-p50-ms" is its median and "times-faster" the ratio of the
// medians. RECALL_BENCH_MCP_MEMORY names its command (default:
// mcp-server-memory on PATH); scripts/bench-hooks.sh installs it.
//
//	go test -tags sqlite_fts5 -run '^$' -bench BenchmarkSpawnInitialize -benchtime 30x ./tests/
func BenchmarkSpawnInitialize(b *testing.B) {
	env, _ := recallEnv(b)
	// The first start creates the database; measure the starts that follow,
	// as a client restarting in an existing project does.
	cs, _ := startStdio(b, env)
	cs.Close()
	official := officialMemoryServer(b)

	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	spawn := func(cmd *exec.Cmd) time.Duration {
		start := time.Now()
		cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatalf("%s: %v", cmd.Path, err)
		}
		took := time.Since(start)
		b.StopTimer()
		if err := cs.Close(); err != nil {
			b.Fatalf("%s exit: %v", cmd.Path, err)
		}
		b.StartTimer()
		return took
	}
	var ours, theirs []time.Duration
	b.ResetTimer()
	for range b.N {
		cmd := exec.Command(recallBin, "serve")
		cmd.Env = env
		ours = append(ours, spawn(cmd))
		if official != nil {
			theirs = append(theirs, spawn(official()))
		}
	}
	b.StopTimer()
	b.ReportMetric(percentileMS(ours, 50), "p50-ms")
	b.ReportMetric(percentileMS(ours, 95), "p95-ms")
	if official != nil {
		b.ReportMetric(percentileMS(theirs, 50), "official-p50-ms")
		b.ReportMetric(percentileMS(theirs, 95), "official-p95-ms")
		b.ReportMetric(percentileMS(theirs, 50)/percentileMS(ours, 50), "times-faster")
	}
}

// officialMemoryServer returns a maker of commands that start the official MCP
// memory server on a knowledge graph file of its own, or nil when it is not
// installed.
func officialMemoryServer(b *testing.B) func() *exec.Cmd {
	name := os.Getenv("RECALL_BENCH_MCP_MEMORY")
	if name == "" {
		name = "mcp-server-memory"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		b.Logf("the official MCP memory server is not timed: %v (npm install @modelcontextprotocol/server-memory; RECALL_BENCH_MCP_MEMORY names its command)", err)
		return nil
	}
	graph := filepath.Join(b.TempDir(), "memory.jsonl")
	return func() *exec.Cmd {
		cmd := exec.Command(path)
		cmd.Env = append(os.Environ(), "MEMORY_FILE_PATH="+graph)
		return cmd
	}
}

// percentileMS is the p-th percentile of ds in milliseconds.
func percentileMS(ds []time.Duration, p int) float64 {
	if len(ds) == 0 {
		return 0
	}
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	return float64(sorted[min(len(sorted)-1, len(sorted)*p/100)].Microseconds()) / 1000
}
