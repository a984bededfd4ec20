package tests

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/eval"
)

// buildEval builds the recall-eval command into a temporary directory.
func buildEval(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "recall-eval")
	build := exec.Command("go", "build", "-tags", "sqlite_fts5", "-o", bin, "../cmd/recall-eval")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build recall-eval: %v\n%s", err, out)
	}
	return bin
}

// runEval runs the command with the machine's environment minus every
// RECALL_* and OLLAMA_* variable, plus vars.
func runEval(t *testing.T, bin string, vars []string, args ...string) (stdout string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RECALL_") && !strings.HasPrefix(kv, "OLLAMA_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, vars...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("recall-eval %v: %v\nstderr: %s", args, err, errb.String())
	}
	return out.String()
}

func decodeReport(t *testing.T, stdout string) eval.Report {
	t.Helper()
	var rep eval.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("stdout is not a JSON report: %v\n%s", err, stdout)
	}
	return rep
}

// The evaluation command as the team runs it: with the fake Ollama by
// default, hybrid marked as plumbing; with an Ollama named by
// RECALL_OLLAMA_HOST, vectors from it.
func TestEvalCommandRunsASliceWithEitherOllama(t *testing.T) {
	bin := buildEval(t)
	slice := "../eval/testdata/small"

	rep := decodeReport(t, runEval(t, bin, nil, "-data", slice, "-json"))
	if len(rep.Modes) != 2 || !rep.Plumbing || !strings.Contains(rep.Embedder, "fake") || rep.Pending != 0 {
		t.Errorf("default run: %d modes, plumbing %v, embedder %q, %d pending; want keyword and hybrid over the fake", len(rep.Modes), rep.Plumbing, rep.Embedder, rep.Pending)
	}

	ollama := ollamatest.New(t)
	rep = decodeReport(t, runEval(t, bin, []string{"RECALL_OLLAMA_HOST=" + ollama.URL()}, "-data", slice, "-json"))
	if rep.Plumbing || !strings.Contains(rep.Embedder, ollama.URL()) || rep.Pending != 0 {
		t.Errorf("with RECALL_OLLAMA_HOST: plumbing %v, embedder %q, %d pending; want vectors from %s", rep.Plumbing, rep.Embedder, rep.Pending, ollama.URL())
	}
	if n := ollama.Counts().EmbedInputs; n < 6+5 {
		t.Errorf("the named Ollama embedded %d texts, want the 6 memories and the 5 hybrid queries at least", n)
	}
	for _, m := range rep.Modes {
		for _, s := range m.Summaries {
			if s.Degraded != 0 || s.Errors != 0 {
				t.Errorf("%s %s: %d degraded, %d errors", m.Mode, s.Category, s.Degraded, s.Errors)
			}
		}
	}
}
