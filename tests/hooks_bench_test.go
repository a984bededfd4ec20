package tests

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/internal/benchreport"
	"github.com/recall-mcp/recall/internal/corpus"
	"github.com/recall-mcp/recall/internal/servicetest"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/sqlite"
)

// The hook benchmarks measure whole processes, as Claude Code runs them: start,
// open the database, embed with the fake Ollama where needed, search, answer,
// exit. The database holds 200 memories (100 in the project, 100 global). Each
// reports the median and p90 wall time per run.

func BenchmarkHookUserPromptSubmit(b *testing.B) {
	benchmarkHook(b, "user-prompt-submit", "UserPromptSubmit", map[string]any{"prompt": "How many minutes does the orders service cache items?"}, "Relevant memories")
}

func BenchmarkHookSessionStart(b *testing.B) {
	benchmarkHook(b, "session-start", "SessionStart", map[string]any{"source": "startup"}, "Memory context")
}

func BenchmarkHookPostToolUse(b *testing.B) {
	benchmarkHook(b, "post-tool-use", "PostToolUse", map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": "/src/shop-api/orders.go"}}, "")
}

// The capture benchmarks measure what capture adds: a tool call recorded in the
// journal (with a typical 2 KB output, and with a 5 MB one), and a Stop that
// reads the transcript's end and queues the summary. BenchmarkHookPostToolUse
// with RECALL_CAPTURE=off is the same hook without capture.

func BenchmarkHookPostToolUseCaptureBash(b *testing.B) {
	out := strings.Repeat("ok  \tgithub.com/shop/api/orders\t0.412s\n", 50)
	benchmarkHook(b, "post-tool-use", "PostToolUse", map[string]any{"tool_name": "Bash",
		"tool_input":    map[string]any{"command": "go test ./orders/...", "description": "Run the order tests"},
		"tool_response": map[string]any{"stdout": out, "stderr": "", "interrupted": false}}, "")
}

func BenchmarkHookPostToolUseCaptureHugeOutput(b *testing.B) {
	out := strings.Repeat("orders row 12345 cached in redis ok\n", 5<<20/36)
	benchmarkHook(b, "post-tool-use", "PostToolUse", map[string]any{"tool_name": "Bash",
		"tool_input":    map[string]any{"command": "cat orders.csv"},
		"tool_response": map[string]any{"stdout": out}}, "")
}

func BenchmarkHookPostToolUseCaptureOff(b *testing.B) {
	b.Setenv("RECALL_CAPTURE", "off")
	BenchmarkHookPostToolUse(b)
}

func BenchmarkHookUserPromptSubmitCaptureOff(b *testing.B) {
	b.Setenv("RECALL_CAPTURE", "off")
	BenchmarkHookUserPromptSubmit(b)
}

func BenchmarkHookStop(b *testing.B) {
	benchmarkHook(b, "stop", "Stop", map[string]any{"stop_hook_active": false}, "")
}

// The same hooks while another process holds the write lock (BEGIN
// IMMEDIATE) for the whole benchmark: reading must not wait on the writer, and
// writes go to the spool instead of waiting for it.
func BenchmarkHookUserPromptSubmitBehindWriter(b *testing.B) {
	benchmarkHookWith(b, true, "user-prompt-submit", "UserPromptSubmit", map[string]any{"prompt": "How many minutes does the orders service cache items?"}, "Relevant memories")
}

func BenchmarkHookSessionStartBehindWriter(b *testing.B) {
	benchmarkHookWith(b, true, "session-start", "SessionStart", map[string]any{"source": "startup"}, "Memory context")
}

// The tool-call hook behind the writer writes only: its journal entry and file
// touch go to the spool.
func BenchmarkHookPostToolUseBehindWriter(b *testing.B) {
	benchmarkHookWith(b, true, "post-tool-use", "PostToolUse", map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": "/src/shop-api/orders.go"}}, "")
}

func benchmarkHook(b *testing.B, event, eventName string, fields map[string]any, wantOutput string) {
	benchmarkHookWith(b, false, event, eventName, fields, wantOutput)
}

func benchmarkHookWith(b *testing.B, behindWriter bool, event, eventName string, fields map[string]any, wantOutput string) {
	c := newCLIEnv(b)
	if v, ok := os.LookupEnv("RECALL_CAPTURE"); ok {
		c.vars["RECALL_CAPTURE"] = v
	}
	_, cwd := newProject(b, c, "shop-api")
	for i := range 100 {
		c.call("memory_store_tool", fmt.Sprintf(`{"content": "Decision %d: the orders service MUST cache item %d for %d minutes", "memory_type": "decision", "namespace": "project:shop-api"}`, i, i, i%7+1))
		c.call("memory_store_tool", fmt.Sprintf(`{"content": "Preference %d: you SHOULD name test helpers after case %d", "memory_type": "preference"}`, i, i))
	}
	stdin := hookInput(b, eventName, cwd, fields)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RECALL_") && !strings.HasPrefix(kv, "OLLAMA_") {
			env = append(env, kv)
		}
	}
	for k, v := range c.vars {
		env = append(env, k+"="+v)
	}
	env = append(env, "RECALL_LOG_LEVEL=error")
	if behindWriter {
		holdWriteLockUntilDone(b, c.dbPath)
	}

	var lat benchreport.Latencies
	b.ResetTimer()
	for range b.N {
		var out, errOut bytes.Buffer
		cmd := exec.Command(recallBin, "hook", event)
		cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = env, strings.NewReader(stdin), &out, &errOut
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		lat.Add(time.Since(start))
		if !strings.Contains(out.String(), wantOutput) || errOut.Len() > 0 {
			b.Fatalf("hook %s answered %q, logged %q", event, out.String(), errOut.String())
		}
	}
	b.StopTimer()
	lat.Report(b, 90)
}

// BenchmarkProcessStart is the floor under every hook: `recall version` starts
// the same binary and does nothing else.
func BenchmarkProcessStart(b *testing.B) {
	var lat benchreport.Latencies
	for range b.N {
		start := time.Now()
		if err := exec.Command(recallBin, "version").Run(); err != nil {
			b.Fatal(err)
		}
		lat.Add(time.Since(start))
	}
	lat.Report(b)
}

// BenchmarkHookUserPromptSubmit10k and 100k are the prompt hook's whole
// process over 10,000 and 100,000 memories (a third in the project, the rest
// global or another project), every one with the fake Ollama's vector: the
// hook embeds the prompt through the fake, as it would through a live
// Ollama, so the vector side that grows with the database is timed.
func BenchmarkHookUserPromptSubmit10k(b *testing.B)  { benchmarkPromptHookAt(b, 10_000) }
func BenchmarkHookUserPromptSubmit100k(b *testing.B) { benchmarkPromptHookAt(b, 100_000) }

func benchmarkPromptHookAt(b *testing.B, n int) {
	c := newCLIEnv(b)
	_, cwd := newProject(b, c, "shop-api")
	c.ok("stats") // creates the database
	seedHookBench(b, c.dbPath, n)
	stdin := hookInput(b, "UserPromptSubmit", cwd, map[string]any{"prompt": "How many minutes does the orders service cache items?"})
	env := []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range c.vars {
		env = append(env, k+"="+v)
	}
	env = append(env, "RECALL_LOG_LEVEL=error")
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

// seedHookBench stores n memories with vectors into the database at path.
func seedHookBench(b *testing.B, path string, n int) {
	b.Helper()
	db, err := sqlite.Open(context.Background(), path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var rec memory.Records
	t0 := time.Now().Add(-time.Duration(n) * time.Second)
	notes := corpus.Varied(min(n, corpus.MaxVaried), 11)
	for i := range n {
		note := notes[i%len(notes)]
		if i >= len(notes) { // past the vocabulary: the same notes again, told apart
			note += fmt.Sprintf(" (round %d)", i/len(notes)+1)
		}
		if i%100 == 0 {
			note = fmt.Sprintf("Orders are cached for %d minutes in the orders service", i%60+1)
		}
		at := t0.Add(time.Duration(i) * time.Second)
		rec.Memories = append(rec.Memories, &memory.Memory{
			ID: memory.NewID(at), Content: note, ContentHash: memory.ContentHash(note),
			Type: memory.TypeDecision, Namespace: []string{"project:shop-api", "global", "project:billing"}[i%3],
			Importance: 0.5, Confidence: memory.DefaultConfidence, CreatedAt: at, UpdatedAt: at, AccessedAt: at,
			Metadata: map[string]any{},
		})
	}
	servicetest.Seed(b, db, rec)
}
