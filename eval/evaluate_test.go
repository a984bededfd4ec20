package eval_test

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"

	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/eval"
)

// smallSlice is a dataset small enough to work out by hand. Each query's
// words occur in one memory only, so any keyword search finds exactly that
// memory: q1 finds m1 (one of its two relevant memories), q2 finds m3, a near
// miss of its relevant m4, q3 and q4 find their one relevant memory, and the
// unrelated q5 matches nothing.
const smallSlice = "testdata/small"

func fakeEmbedder(t *testing.T) *embedding.Client {
	t.Helper()
	srv := ollamatest.New(t)
	c, err := embedding.New(embedding.Options{Host: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestEvaluateSmallSliceEndToEnd(t *testing.T) {
	d, err := eval.LoadDir(smallSlice)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := eval.Evaluate(context.Background(), d, eval.Options{
		Embedder: fakeEmbedder(t), EmbedderName: "fake", Plumbing: true, Details: true, Logger: quiet(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Memories != 6 || rep.Queries != 5 || rep.Pending != 0 || len(rep.Modes) != 2 {
		t.Fatalf("report: %d memories, %d queries, %d pending, %d modes; want 6, 5, 0, 2", rep.Memories, rep.Queries, rep.Pending, len(rep.Modes))
	}
	keyword, hybrid := rep.Modes[0], rep.Modes[1]
	if keyword.Mode != eval.KeywordOnly || hybrid.Mode != eval.Hybrid {
		t.Fatalf("modes %s, %s; want %s, %s", keyword.Mode, hybrid.Mode, eval.KeywordOnly, eval.Hybrid)
	}

	// What keyword search and the hook answered, in dataset ids.
	wantRanked := map[string][]string{"q1": {"m1"}, "q2": {"m3"}, "q3": {"m5"}, "q4": {"m6"}, "q5": {}}
	for _, o := range keyword.Outcomes {
		if !slices.Equal(o.Ranked, wantRanked[o.QueryID]) {
			t.Errorf("keyword %s ranked %v, want %v", o.QueryID, o.Ranked, wantRanked[o.QueryID])
		}
		// The hook offers the same memories: each is global or of the
		// query's project.
		if !slices.Equal(o.Injected, wantRanked[o.QueryID]) {
			t.Errorf("keyword %s: hook injected %v, want %v", o.QueryID, o.Injected, wantRanked[o.QueryID])
		}
		if o.Degraded != "" || o.Error != "" {
			t.Errorf("keyword %s: degraded %q, error %q", o.QueryID, o.Degraded, o.Error)
		}
	}
	for _, o := range hybrid.Outcomes {
		if o.Degraded != "" {
			t.Errorf("hybrid %s fell back to keywords: %s", o.QueryID, o.Degraded)
		}
		if want := wantRanked[o.QueryID]; len(want) > 0 && (len(o.Ranked) == 0 || o.Ranked[0] != want[0]) {
			t.Errorf("hybrid %s ranked %v, want %s first", o.QueryID, o.Ranked, want[0])
		}
	}

	// The figures of keyword mode, by hand from the answers above.
	want := map[string]eval.Summary{
		eval.Exact: {Queries: 2, RecallAt5: (0.5 + 1) / 2, RecallAt10: (0.5 + 1) / 2, MRR: 1, Answered: 1,
			Hook: eval.HookSummary{InjectedAny: 1, RelevantInjected: 1, Precision: 1, MeanInjected: 1}},
		eval.Paraphrase: {Queries: 1, RecallAt5: 0, RecallAt10: 0, MRR: 0, Answered: 1,
			Hook: eval.HookSummary{InjectedAny: 1, RelevantInjected: 0, Precision: 0, MeanInjected: 1}},
		eval.Identifier: {Queries: 1, RecallAt5: 1, RecallAt10: 1, MRR: 1, Answered: 1,
			Hook: eval.HookSummary{InjectedAny: 1, RelevantInjected: 1, Precision: 1, MeanInjected: 1}},
		eval.Unrelated: {Queries: 1, Answered: 0, Hook: eval.HookSummary{InjectedAny: 0, MeanInjected: 0}},
		eval.Related: {Queries: 4, RecallAt5: (0.5 + 0 + 1 + 1) / 4, RecallAt10: (0.5 + 0 + 1 + 1) / 4, MRR: 3.0 / 4, Answered: 1,
			Hook: eval.HookSummary{InjectedAny: 1, RelevantInjected: 3.0 / 4, Precision: 3.0 / 4, MeanInjected: 1}},
	}
	if len(keyword.Summaries) != len(want) {
		t.Fatalf("%d summaries, want %d", len(keyword.Summaries), len(want))
	}
	for _, got := range keyword.Summaries {
		w := want[got.Category]
		w.Category = got.Category
		if !sameSummary(got, w) {
			t.Errorf("keyword %s:\n got %+v\nwant %+v", got.Category, got, w)
		}
	}
}

func sameSummary(a, b eval.Summary) bool {
	return a.Category == b.Category && a.Queries == b.Queries && a.Errors == b.Errors && a.Degraded == b.Degraded &&
		near(a.RecallAt5, b.RecallAt5) && near(a.RecallAt10, b.RecallAt10) && near(a.MRR, b.MRR) && near(a.Answered, b.Answered) &&
		near(a.Hook.InjectedAny, b.Hook.InjectedAny) && near(a.Hook.RelevantInjected, b.Hook.RelevantInjected) &&
		near(a.Hook.Precision, b.Hook.Precision) && near(a.Hook.MeanInjected, b.Hook.MeanInjected)
}

// Without an embedder only keyword-only mode runs, and memories are stored
// without vectors.
func TestEvaluateWithoutEmbedderRunsKeywordsOnly(t *testing.T) {
	d, err := eval.LoadDir(filepath.Join(smallSlice))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := eval.Evaluate(context.Background(), d, eval.Options{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Modes) != 1 || rep.Modes[0].Mode != eval.KeywordOnly {
		t.Fatalf("modes %+v, want keyword-only alone", rep.Modes)
	}
	if rep.Modes[0].Outcomes != nil {
		t.Error("outcomes kept without Details")
	}
}
