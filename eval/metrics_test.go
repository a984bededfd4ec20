package eval_test

import (
	"math"
	"testing"

	"github.com/recall-mcp/recall/eval"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestRecallAt(t *testing.T) {
	ranked := []string{"x", "a", "y", "z", "w", "b", "v"}
	for _, c := range []struct {
		relevant []string
		k        int
		want     float64
	}{
		{[]string{"a", "b"}, 5, 0.5}, // a at 2, b at 6
		{[]string{"a", "b"}, 10, 1},  // both within 10
		{[]string{"a", "b", "c"}, 10, 2.0 / 3},
		{[]string{"x"}, 1, 1},
		{[]string{"a"}, 1, 0},
		{[]string{"q"}, 10, 0},                               // not returned
		{nil, 5, 0},                                          // nothing relevant
		{[]string{"x", "a", "y", "z", "w", "b"}, 5, 5.0 / 6}, // more relevant than k: 5 of 6 at best
	} {
		if got := eval.RecallAt(ranked, c.relevant, c.k); !near(got, c.want) {
			t.Errorf("RecallAt(%v, %v, %d) = %v, want %v", ranked, c.relevant, c.k, got, c.want)
		}
	}
}

func TestReciprocalRank(t *testing.T) {
	ranked := []string{"x", "a", "y", "b"}
	for _, c := range []struct {
		relevant []string
		want     float64
	}{
		{[]string{"x"}, 1},
		{[]string{"b", "a"}, 0.5}, // the first relevant one counts
		{[]string{"b"}, 0.25},
		{[]string{"q"}, 0},
	} {
		if got := eval.ReciprocalRank(ranked, c.relevant); !near(got, c.want) {
			t.Errorf("ReciprocalRank(%v, %v) = %v, want %v", ranked, c.relevant, got, c.want)
		}
	}
}

// Summaries of hand-made outcomes, every figure computed by hand.
func TestSummarizeArithmetic(t *testing.T) {
	d := &eval.Dataset{Queries: []eval.Query{
		{ID: "e1", Category: eval.Exact, Relevant: []string{"a", "b"}},
		{ID: "e2", Category: eval.Exact, Relevant: []string{"c"}},
		{ID: "p1", Category: eval.Paraphrase, Relevant: []string{"d"}},
		{ID: "u1", Category: eval.Unrelated},
		{ID: "u2", Category: eval.Unrelated},
	}}
	outcomes := []eval.Outcome{
		// a at rank 1, b at rank 7: R@5 1/2, R@10 1, RR 1; injects a and x.
		{QueryID: "e1", Category: eval.Exact, Ranked: []string{"a", "x", "y", "z", "w", "v", "b"}, Injected: []string{"a", "x"}},
		// c at rank 3: R@5 1, R@10 1, RR 1/3; injects x, y, z.
		{QueryID: "e2", Category: eval.Exact, Ranked: []string{"x", "y", "c"}, Injected: []string{"x", "y", "z"}},
		// nothing found, refused: R 0, RR 0, not answered; injects nothing.
		{QueryID: "p1", Category: eval.Paraphrase, Ranked: []string{}, Injected: []string{}, Error: "bad"},
		// one unrelated prompt answered and injecting two, one silent.
		{QueryID: "u1", Category: eval.Unrelated, Ranked: []string{"x"}, Injected: []string{"x", "y"}, Degraded: "down"},
		{QueryID: "u2", Category: eval.Unrelated, Ranked: []string{}, Injected: []string{}},
	}
	got := map[string]eval.Summary{}
	var order []string
	for _, s := range eval.Summarize(d, outcomes) {
		got[s.Category] = s
		order = append(order, s.Category)
	}
	if want := []string{eval.Exact, eval.Paraphrase, eval.Unrelated, eval.Related}; len(order) != len(want) || order[0] != want[0] || order[1] != want[1] || order[2] != want[2] || order[3] != want[3] {
		t.Fatalf("summaries in order %v, want %v", order, want)
	}
	check := func(cat, field string, got, want float64) {
		t.Helper()
		if !near(got, want) {
			t.Errorf("%s %s = %v, want %v", cat, field, got, want)
		}
	}
	ex := got[eval.Exact]
	check("exact", "queries", float64(ex.Queries), 2)
	check("exact", "R@5", ex.RecallAt5, (0.5+1)/2)
	check("exact", "R@10", ex.RecallAt10, 1)
	check("exact", "MRR", ex.MRR, (1+1.0/3)/2)
	check("exact", "answered", ex.Answered, 1)
	check("exact", "hook injected any", ex.Hook.InjectedAny, 1)
	check("exact", "hook relevant injected", ex.Hook.RelevantInjected, 0.5) // e1 yes, e2 no
	check("exact", "hook precision", ex.Hook.Precision, 1.0/5)              // a of a,x,x,y,z
	check("exact", "hook mean injected", ex.Hook.MeanInjected, 2.5)

	rel := got[eval.Related]
	check("related", "queries", float64(rel.Queries), 3)
	check("related", "R@5", rel.RecallAt5, (0.5+1+0)/3)
	check("related", "MRR", rel.MRR, (1+1.0/3+0)/3)
	check("related", "answered", rel.Answered, 2.0/3)
	check("related", "errors", float64(rel.Errors), 1)
	check("related", "hook relevant injected", rel.Hook.RelevantInjected, 1.0/3)
	check("related", "hook precision", rel.Hook.Precision, 1.0/5)

	un := got[eval.Unrelated]
	check("unrelated", "answered", un.Answered, 0.5)
	check("unrelated", "degraded", float64(un.Degraded), 1)
	check("unrelated", "hook injected any", un.Hook.InjectedAny, 0.5)
	check("unrelated", "hook mean injected", un.Hook.MeanInjected, 1)
	check("unrelated", "R@5", un.RecallAt5, 0) // no judgments, no recall
}
