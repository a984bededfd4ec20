package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/eval"
)

const smallSlice = "../../eval/testdata/small"

func runEval(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// Without OLLAMA_HOST the command starts the fake Ollama and says that hybrid
// figures are plumbing only; with it, it uses that Ollama.
func TestJSONReportOfASlice(t *testing.T) {
	code, out, errs := runEval(t, "-data", smallSlice, "-json", "-details")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep eval.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("stdout is not a JSON report: %v\n%s", err, out)
	}
	if rep.Memories != 6 || rep.Queries != 5 || len(rep.Modes) != 2 {
		t.Fatalf("report of %d memories, %d queries, %d modes; want 6, 5, 2", rep.Memories, rep.Queries, len(rep.Modes))
	}
	if len(rep.Modes[0].Outcomes) != 5 {
		t.Errorf("-details kept %d outcomes, want 5", len(rep.Modes[0].Outcomes))
	}
	if os.Getenv("OLLAMA_HOST") == "" && os.Getenv("RECALL_OLLAMA_HOST") == "" {
		if !rep.Plumbing || !strings.Contains(rep.Embedder, "fake") {
			t.Errorf("with the fake Ollama: plumbing %v, embedder %q; want hybrid marked plumbing only", rep.Plumbing, rep.Embedder)
		}
	}
}

func TestTextReport(t *testing.T) {
	code, out, errs := runEval(t, "-data", smallSlice)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"6 memories, 5 queries", "keyword-only search", "hybrid search", "keyword-only prompt hook", "R@5", "injected any", "unrelated", "related"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestBadUse(t *testing.T) {
	if code, _, errs := runEval(t, "-nope"); code != 2 || !strings.Contains(errs, "usage: recall-eval") {
		t.Errorf("unknown flag: exit %d, stderr %q; want 2 and the usage", code, errs)
	}
	if code, _, errs := runEval(t, "-data", t.TempDir()); code != 1 || !strings.Contains(errs, "memories.jsonl") {
		t.Errorf("empty data directory: exit %d, stderr %q; want 1 naming memories.jsonl", code, errs)
	}
}

func TestKeywordOnlyNeedsNoOllama(t *testing.T) {
	t.Setenv("RECALL_OLLAMA_HOST", "http://127.0.0.1:9") // nothing listens: must not be asked
	code, out, errs := runEval(t, "-data", smallSlice, "-keyword-only", "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep eval.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Modes) != 1 || rep.Modes[0].Mode != eval.KeywordOnly || rep.Embedder != "" {
		t.Fatalf("modes %+v, embedder %q; want keyword-only alone, no vectors", rep.Modes, rep.Embedder)
	}
}
