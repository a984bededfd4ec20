package validation_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

// preamble is the fixed opening of every context, checked once here so the
// other tests can compare whole texts.
func preamble(t *testing.T, e *env) string {
	t.Helper()
	res, err := e.svc.Context(e.ctx, validation.ContextRequest{Project: "empty-project"})
	if err != nil {
		t.Fatal(err)
	}
	for _, kw := range []string{"# Memory context", "RFC 2119", "MUST NOT", "SHOULD NOT", "MAY", "memory_outcome_tool"} {
		if !strings.Contains(res.Context, kw) {
			t.Fatalf("preamble lacks %q:\n%s", kw, res.Context)
		}
	}
	return res.Context
}

func TestContextListsGoldenRulesThenTrustedMemoriesByType(t *testing.T) {
	e := newEnv(t, validation.Options{})
	pre := preamble(t, e)
	golden := e.remember("You MUST NOT commit secrets.", memory.TypePreference, "global")
	e.setConfidence(golden.ID, 0.85)
	e.outcome(golden.ID, true, "") // promoted at 0.95
	pyt := e.remember(pytest, memory.TypePreference, "project:shop")
	e.setConfidence(pyt.ID, 0.6)
	dec := e.remember("Decision: orders are stored in Postgres.", memory.TypeDecision, "project:shop")
	glob := e.remember("You SHOULD write commit messages in the imperative.", memory.TypePreference, "global")
	e.remember("You MUST use Rails conventions.", memory.TypePreference, "project:blog")

	want := pre +
		"\n## Golden rules\n\n" +
		"- [" + golden.ID + "] You MUST NOT commit secrets. (confidence 0.95)\n" +
		"\n## Project memories (project:shop)\n" +
		"\n### Preferences\n\n" +
		"- [" + pyt.ID + "] " + pytest + " (confidence 0.6)\n" +
		"\n### Decisions\n\n" +
		"- [" + dec.ID + "] Decision: orders are stored in Postgres. (confidence 0.3)\n" +
		"\n## Global memories\n" +
		"\n### Preferences\n\n" +
		"- [" + glob.ID + "] You SHOULD write commit messages in the imperative. (confidence 0.3)\n"
	for _, project := range []string{"shop", "project:shop"} {
		res, err := e.svc.Context(e.ctx, validation.ContextRequest{Project: project})
		if err != nil {
			t.Fatal(err)
		}
		if res.Context != want {
			t.Errorf("project %q: context =\n%s\nwant\n%s", project, res.Context, want)
		}
		if res.TokenEstimate != validation.EstimateTokens(want) || res.GoldenRules != 1 || res.Truncated {
			t.Errorf("project %q: estimate %d, golden %d, truncated %v", project, res.TokenEstimate, res.GoldenRules, res.Truncated)
		}
	}

	// A budget smaller than the preamble keeps every golden rule and nothing else.
	res, err := e.svc.Context(e.ctx, validation.ContextRequest{Project: "shop", TokenBudget: 10})
	if err != nil {
		t.Fatal(err)
	}
	wantSmall := pre + "\n## Golden rules\n\n- [" + golden.ID + "] You MUST NOT commit secrets. (confidence 0.95)\n"
	if res.Context != wantSmall || !res.Truncated {
		t.Errorf("tiny budget: context =\n%s\nwant\n%s", res.Context, wantSmall)
	}

	for _, c := range []struct {
		req   validation.ContextRequest
		field string
	}{
		{validation.ContextRequest{TokenBudget: -1}, "token_budget"},
		{validation.ContextRequest{TokenBudget: 1_000_000}, "token_budget"},
		{validation.ContextRequest{Project: "project:"}, "project"},
		{validation.ContextRequest{Query: strings.Repeat("x", 5000)}, "query"},
	} {
		if _, err := e.svc.Context(e.ctx, c.req); !errors.Is(err, memory.ErrInvalid) || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%+v: err = %v, want invalid %s", c.req.TokenBudget, err, c.field)
		}
	}
}

func TestContextWithQueryRecallsRelevantMemories(t *testing.T) {
	e := newEnv(t, validation.Options{})
	pre := preamble(t, e)
	pyt := e.remember(pytest, memory.TypePreference, "project:shop")
	e.remember("Decision: orders are stored in Postgres.", memory.TypeDecision, "project:shop")
	fix := e.remember(fixtures, memory.TypePattern, "global")

	res, err := e.svc.Context(e.ctx, validation.ContextRequest{Query: "pytest", Project: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	want := pre +
		"\n## Project memories (project:shop)\n\n### Preferences\n\n- [" + pyt.ID + "] " + pytest + " (confidence 0.3)\n"
	if !strings.HasPrefix(res.Context, want) {
		t.Errorf("context =\n%s\nwant it to start with\n%s", res.Context, want)
	}
	if !strings.Contains(res.Context, "- ["+fix.ID+"] ") {
		t.Errorf("the global memory about fixtures is missing:\n%s", res.Context)
	}
}

func TestAnalyzeHealth(t *testing.T) {
	e := newEnv(t, validation.Options{})
	a := e.remember(pytest, memory.TypePreference, "global")
	b := e.remember(unittest, memory.TypePreference, "global")
	if _, err := e.db.InsertEdge(e.ctx, &memory.Edge{SourceID: a.ID, TargetID: b.ID, Relation: memory.RelationContradicts, Weight: 0.9}); err != nil {
		t.Fatal(err)
	}
	low := e.remember("Use global variables for config.", memory.TypePattern, "global")
	e.outcome(low.ID, false, "")
	e.outcome(low.ID, false, "") // 0.0
	gold := e.remember("You MUST run tests before pushing.", memory.TypePreference, "global")
	e.setConfidence(gold.ID, 0.85)
	e.outcome(gold.ID, true, "")  // promoted at 0.95
	e.outcome(gold.ID, false, "") // 0.8, still golden
	e.outcome(a.ID, true, "")     // a is 0.4
	e.clock.Advance(40 * 24 * time.Hour)
	fresh := e.remember("Session: today.", memory.TypeSession, "global")
	e.outcome(gold.ID, true, "") // 0.9, validated just now
	e.outcome(gold.ID, false, "")

	rep, err := e.svc.AnalyzeHealth(e.ctx, validation.HealthRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := validation.HealthCounts{Memories: 5, GoldenRules: 1, Contradictions: 1, LowConfidence: 1, Stale: 3}
	if rep.Counts != want {
		t.Errorf("counts = %+v, want %+v", rep.Counts, want)
	}
	if len(rep.Contradictions) != 1 || rep.Contradictions[0].SourceID != a.ID || rep.Contradictions[0].TargetID != b.ID {
		t.Errorf("contradictions = %+v", rep.Contradictions)
	}
	if len(rep.LowConfidence) != 1 || rep.LowConfidence[0].ID != low.ID {
		t.Errorf("low confidence = %+v", rep.LowConfidence)
	}
	if len(rep.WeakGoldenRules) != 1 || rep.WeakGoldenRules[0].ID != gold.ID || rep.WeakGoldenRules[0].Confidence != 0.75 {
		t.Errorf("weak golden rules = %+v", rep.WeakGoldenRules)
	}
	var stale []string
	for _, s := range rep.Stale {
		stale = append(stale, s.ID)
	}
	if strings.Join(stale, " ") != strings.Join([]string{b.ID, low.ID, a.ID}, " ") {
		t.Errorf("stale = %v, want b (never validated), then low and a by their last event", stale)
	}
	for _, s := range rep.Stale {
		if s.ID == fresh.ID || s.ID == gold.ID {
			t.Errorf("%s is not stale", s.ID)
		}
	}
	wantRecs := []string{
		"Resolve contradiction between " + a.ID + " and " + b.ID + ": run memory_check_supersedes on " + a.ID + " (confidence 0.4 vs 0.3)",
		"Review golden rule " + gold.ID + ": its confidence fell to 0.75",
		"Consider deleting " + low.ID + " (confidence 0, below 0.15)",
		"3 memories have not been validated for 30 days or more (oldest: " + b.ID + ")",
	}
	if len(rep.Recommendations) != len(wantRecs) {
		t.Fatalf("recommendations = %q", rep.Recommendations)
	}
	for i, w := range wantRecs {
		if !strings.HasPrefix(rep.Recommendations[i], w) {
			t.Errorf("recommendation %d = %q, want it to start with %q", i, rep.Recommendations[i], w)
		}
	}

	off, err := e.svc.AnalyzeHealth(e.ctx, validation.HealthRequest{Namespace: "global", IncludeContradictions: ptr(false), IncludeLowConfidence: ptr(false), IncludeStale: ptr(false)})
	if err != nil {
		t.Fatal(err)
	}
	if len(off.Contradictions)+len(off.LowConfidence)+len(off.Stale) != 0 || off.Counts.Stale != 0 {
		t.Errorf("everything off: %+v", off)
	}
	if _, err := e.svc.AnalyzeHealth(e.ctx, validation.HealthRequest{StaleDays: -3}); !errors.Is(err, memory.ErrInvalid) || !strings.Contains(err.Error(), "stale_days") {
		t.Errorf("stale_days -3: err = %v", err)
	}
	if _, err := e.svc.AnalyzeHealth(e.ctx, validation.HealthRequest{Namespace: "proj:x"}); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("bad namespace: err = %v", err)
	}
}

// TestContextStaysWithinItsBudget: at every budget between the golden rules
// alone and everything, the context holds what fits and nothing more: its
// estimate never passes the budget, less than one more memory's worth is left
// unused, and a larger budget never drops a memory a smaller one had.
func TestContextStaysWithinItsBudget(t *testing.T) {
	e := newEnv(t, validation.Options{})
	golden := e.remember("You MUST NOT push on Fridays.", memory.TypeDecision, "global")
	e.setConfidence(golden.ID, 0.85)
	e.outcome(golden.ID, true, "")
	maxLine := 0
	for i := range 12 {
		content := fmt.Sprintf("Budget rule %d: handlers SHOULD validate input %s before use.", i, strings.Repeat("carefully ", i%4))
		m := e.remember(content, memory.TypePattern, "project:budget")
		maxLine = max(maxLine, validation.EstimateTokens("- ["+m.ID+"] "+content+" (confidence 0.3)\n"))
	}
	ctxAt := func(budget int) *validation.ContextResult {
		res, err := e.svc.Context(e.ctx, validation.ContextRequest{Project: "budget", TokenBudget: budget})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	floor := ctxAt(1).TokenEstimate // preamble and golden rule: always there
	full := ctxAt(100000)
	if len(full.MemoryIDs) != 13 || full.Truncated {
		t.Fatalf("the whole context holds %d memories (truncated %v), want 13", len(full.MemoryIDs), full.Truncated)
	}
	prev, partial := 0, 0
	for budget := floor; budget <= full.TokenEstimate+10; budget += 3 {
		res := ctxAt(budget)
		n := len(res.MemoryIDs)
		if res.TokenEstimate > budget {
			t.Errorf("budget %d: estimate %d is over it (%d memories)", budget, res.TokenEstimate, n)
		}
		if res.Truncated != (n < 13) {
			t.Errorf("budget %d: %d memories, truncated %v", budget, n, res.Truncated)
		}
		room := maxLine + 2
		if n == 1 { // the first project memory also brings its headings
			room += validation.EstimateTokens("\n## Project memories (project:budget)\n\n### Patterns\n\n") + 2
		}
		if n < 13 && budget-res.TokenEstimate > room {
			t.Errorf("budget %d: %d memories use only %d tokens; another one would have fit", budget, n, res.TokenEstimate)
		}
		if n < prev {
			t.Errorf("budget %d: %d memories, fewer than the %d of a smaller budget", budget, n, prev)
		}
		if n > 1 && n < 13 {
			partial++
		}
		prev = n
	}
	if partial == 0 {
		t.Fatal("no budget gave a partial context: the test proves nothing")
	}
}

func TestContextPreviewCountsNoAccess(t *testing.T) {
	e := newEnv(t, validation.Options{})
	m := e.remember("You SHOULD write commit messages in the imperative.", memory.TypePreference, "global")
	res, err := e.svc.Context(e.ctx, validation.ContextRequest{SkipAccessUpdate: true})
	if err != nil || !strings.Contains(res.Context, m.ID) {
		t.Fatalf("context %v, %v: want the memory in it", res, err)
	}
	if got := e.get(m.ID); got.AccessCount != 0 {
		t.Errorf("a preview counted %d accesses, want 0", got.AccessCount)
	}
	if _, err := e.svc.Context(e.ctx, validation.ContextRequest{}); err != nil {
		t.Fatal(err)
	}
	if got := e.get(m.ID); got.AccessCount != 1 {
		t.Errorf("a session's context counted %d accesses, want 1", got.AccessCount)
	}
}

// TestHealthDoesNotBlameFailuresAGoldenRuleNeverHad stores a golden rule
// directly (confidence 0.3, no outcome) and one that failed.
func TestHealthDoesNotBlameFailuresAGoldenRuleNeverHad(t *testing.T) {
	e := newEnv(t, validation.Options{})
	fresh := e.remember("You MUST sign every release tag.", memory.TypeGoldenRule, "global")
	failed := e.remember("You MUST squash every merge.", memory.TypeGoldenRule, "global")
	e.outcome(failed.ID, false, "a reviewer wanted the history")
	rep, err := e.svc.AnalyzeHealth(e.ctx, validation.HealthRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var forFresh, forFailed string
	for _, r := range rep.Recommendations {
		switch {
		case strings.Contains(r, fresh.ID):
			forFresh = r
		case strings.Contains(r, failed.ID):
			forFailed = r
		}
	}
	if strings.Contains(forFresh, "fell") || strings.Contains(forFresh, "failure") || !strings.Contains(forFresh, "no recorded outcome") {
		t.Errorf("a golden rule stored directly: %q, want no failures claimed", forFresh)
	}
	if !strings.Contains(forFailed, "after 1 failure;") {
		t.Errorf("a golden rule that failed once: %q, want it to say so", forFailed)
	}
}

// TestContextFencesAMemoryHoldingMarkdown stores a memory with an unclosed
// code block and a heading: the memories after it stay list items of their
// own sections, outside any code block.
func TestContextFencesAMemoryHoldingMarkdown(t *testing.T) {
	e := newEnv(t, validation.Options{})
	code := e.remember("Run the linter like this:\n```sh\ngolangci-lint run ./...\n\n# never skip it", memory.TypePattern, "project:shop")
	after := e.remember("Decision: orders are stored in Postgres.", memory.TypeDecision, "project:shop")
	res, err := e.svc.Context(e.ctx, validation.ContextRequest{Project: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	// Walk the lines as a CommonMark reader does with fences: a fence of N
	// backticks closes only at a fence of at least N.
	open := 0
	var inside []string
	for line := range strings.Lines(res.Context) {
		l := strings.TrimSpace(line)
		n := len(l) - len(strings.TrimLeft(l, "`"))
		switch {
		case open == 0 && n >= 3:
			open = n
		case open > 0 && n >= open && strings.Trim(l, "`") == "":
			open = 0
		case open > 0:
			inside = append(inside, l)
		}
	}
	if open != 0 {
		t.Errorf("a code block stays open at the end of the context:\n%s", res.Context)
	}
	for _, l := range inside {
		if strings.Contains(l, after.ID) || strings.HasPrefix(l, "###") {
			t.Errorf("%q is inside a code block:\n%s", l, res.Context)
		}
	}
	if !strings.Contains(res.Context, "golangci-lint run ./...") || !strings.Contains(res.Context, "["+code.ID+"]") {
		t.Errorf("the memory with code is missing:\n%s", res.Context)
	}
}
