package tests

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"
)

// BenchmarkHookUserPromptSubmit measures the whole process of
// `recall hook user-prompt-submit` (start, open the database, embed the prompt
// with the fake Ollama, search, answer, exit) on a database of 200 memories, as
// Claude Code runs it on every prompt. It reports the median and p90 wall time.
func BenchmarkHookUserPromptSubmit(b *testing.B) {
	c := newCLIEnv(b)
	_, cwd := newProject(b, c, "shop-api")
	for i := range 100 {
		c.call("memory_store_tool", fmt.Sprintf(`{"content": "Decision %d: the orders service MUST cache item %d for %d minutes", "memory_type": "decision", "namespace": "project:shop-api"}`, i, i, i%7+1))
		c.call("memory_store_tool", fmt.Sprintf(`{"content": "Preference %d: you SHOULD name test helpers after case %d", "memory_type": "preference"}`, i, i))
	}
	stdin := hookInput(b, "UserPromptSubmit", cwd, map[string]any{"prompt": "Why are orders slow? Check how orders are cached"})
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

	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		var out bytes.Buffer
		cmd := exec.Command(recallBin, "hook", "user-prompt-submit")
		cmd.Env, cmd.Stdin, cmd.Stdout = env, strings.NewReader(stdin), &out
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
		if !strings.Contains(out.String(), "Relevant memories") {
			b.Fatalf("hook answered %q", out.String())
		}
	}
	b.StopTimer()
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[len(times)*9/10].Microseconds())/1000, "p90-ms")
}
