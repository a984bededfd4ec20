package tests

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-mcp/recall/internal/benchreport"
)

// The team benchmarks run a team server (recall serve --http on loopback,
// 200 memories) and measure what a laptop in client mode runs.

// seedTeam stores 100 project and 100 global memories through the
// administrator's session.
func seedTeam(b *testing.B, ts *teamServer) {
	admin := ts.session(b, ts.admin)
	for i := range 100 {
		ok(b, admin, "memory_store_tool", map[string]any{"content": fmt.Sprintf("Decision %d: the orders service MUST cache item %d for %d minutes", i, i, i%7+1), "memory_type": "decision", "namespace": "project:shop-api"})
		ok(b, admin, "memory_store_tool", map[string]any{"content": fmt.Sprintf("Preference %d: you SHOULD name test helpers after case %d", i, i), "memory_type": "preference"})
	}
}

// BenchmarkClientModePromptHook is the prompt hook of a laptop in client mode,
// the whole process: start, keep the event in the outbox (fsync), one HTTP
// request to the team server, which searches and records the prompt, print
// the answer, exit.
func BenchmarkClientModePromptHook(b *testing.B) {
	ts := startTeam(b)
	seedTeam(b, ts)
	laptop := clientOf(b, ts, ts.alice)
	laptop.vars["RECALL_LOG_LEVEL"] = "error"
	_, cwd := newProject(b, laptop, "shop-api")
	stdin := hookInput(b, "UserPromptSubmit", cwd, map[string]any{"prompt": "How many minutes does the orders service cache items?"})
	env := laptop.environ()
	var lat benchreport.Latencies
	b.ResetTimer()
	for range b.N {
		var out, errOut bytes.Buffer
		cmd := exec.Command(recallBin, "hook", "user-prompt-submit")
		cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = env, strings.NewReader(stdin), &out, &errOut
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		lat.Add(time.Since(start))
		if !strings.Contains(out.String(), "Relevant memories") || errOut.Len() > 0 {
			b.Fatalf("hook answered %q, logged %q", out.String(), errOut.String())
		}
	}
	b.StopTimer()
	lat.Report(b, 90)
}

// BenchmarkTeamServer16Clients is 16 MCP sessions calling memory_recall_tool
// against one team server at once: b.N calls in all, reported as calls per
// second; people: alice's and bob's tokens, eight sessions each; admin: the
// administrator's token, which sees everything, for comparison.
func BenchmarkTeamServer16Clients(b *testing.B) {
	ts := startTeam(b)
	seedTeam(b, ts)
	for _, who := range []string{"people", "admin"} {
		b.Run(who, func(b *testing.B) {
			var tokens []string
			for i := range 16 {
				switch {
				case who == "admin":
					tokens = append(tokens, ts.admin)
				case i%2 == 0:
					tokens = append(tokens, ts.alice)
				default:
					tokens = append(tokens, ts.bob)
				}
			}
			benchRecallSessions(b, ts, tokens)
		})
	}
}

// benchRecallSessions runs b.N memory_recall_tool calls spread over one MCP
// session per token, all at once.
func benchRecallSessions(b *testing.B, ts *teamServer, tokens []string) {
	var sessions []*mcp.ClientSession
	for _, tok := range tokens {
		sessions = append(sessions, ts.session(b, tok))
	}
	queries := []string{"orders cache minutes", "test helpers naming", "how long are items cached", "helpers after case"}
	var next sync.Mutex
	left := b.N
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Go(func() {
			for n := 0; ; n++ {
				next.Lock()
				if left == 0 {
					next.Unlock()
					return
				}
				left--
				next.Unlock()
				res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "memory_recall_tool",
					Arguments: map[string]any{"query": queries[(i+n)%len(queries)], "n_results": 5}})
				if err != nil || res.IsError {
					b.Errorf("recall: %v %v", err, res)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
}

// BenchmarkClientModeCLI is a laptop's CLI in client mode, the whole
// process, against a team server on the same machine (200 memories): list,
// search, show and add go to the server's API with alice's token; local is
// the same command on a database of the machine's own, for comparison.
func BenchmarkClientModeCLI(b *testing.B) {
	ts := startTeam(b)
	seedTeam(b, ts)
	laptop := clientOf(b, ts, ts.alice)
	laptop.vars["RECALL_LOG_LEVEL"] = "error"
	local := newCLIEnv(b)
	local.vars["RECALL_LOG_LEVEL"] = "error"
	shown := local.store("Decision 1: the orders service MUST cache item 1 for 2 minutes", "--type", "decision")
	for i := range 199 {
		local.store(fmt.Sprintf("Preference %d: you SHOULD name test helpers after case %d", i, i))
	}
	remoteID, _ := added(b, laptop, "--namespace", "global", "A memory to show through the server")
	for _, where := range []struct {
		name string
		env  *cliEnv
		id   string
	}{{"client", laptop, remoteID}, {"local", local, shown}} {
		for _, cmd := range [][]string{{"list"}, {"search", "orders cache minutes"}, {"show", where.id}, {"add"}} {
			b.Run(where.name+"/"+cmd[0], func(b *testing.B) {
				env := where.env.environ()
				var lat benchreport.Latencies
				for i := range b.N {
					args := cmd
					if cmd[0] == "add" {
						args = []string{"add", "--namespace", "global", fmt.Sprintf("Benchmark note %d of %s", i, b.Name())}
					}
					c := exec.Command(recallBin, args...)
					var errOut bytes.Buffer
					c.Env, c.Stderr = env, &errOut
					start := time.Now()
					if err := c.Run(); err != nil {
						b.Fatalf("recall %v: %v: %s", args, err, errOut.String())
					}
					lat.Add(time.Since(start))
				}
				lat.Report(b, 90)
			})
		}
	}
}
