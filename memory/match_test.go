package memory_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/internal/corpus"
	"github.com/recall-mcp/recall/memory"
)

// flamegraphNotes are the only memories that contain both "flamegraph" and
// "profiling"; nearMisses contain one of the two.
var (
	flamegraphNotes = []string{
		"Open the flamegraph after profiling the billing package",
		"Profiling with pprof: read the flamegraph top-down",
		"A flamegraph from CPU profiling showed the JSON encoder hot",
	}
	nearMisses = []string{
		"Profiling runs nightly in CI",
		"The flamegraph tool is vendored under tools/",
	}
)

// seedVaried stores 200 varied memories plus the flamegraph notes and near
// misses, and returns the ids of the flamegraph notes.
func seedVaried(t *testing.T, e *env) []string {
	t.Helper()
	for _, c := range append(corpus.Varied(200, 1), nearMisses...) {
		e.remember(t, memory.StoreRequest{Content: c})
	}
	var want []string
	for _, c := range flamegraphNotes {
		want = append(want, e.remember(t, memory.StoreRequest{Content: c}).ID)
	}
	slices.Sort(want)
	return want
}

func newMatchEnv(t *testing.T, minSimilarity float64) *env {
	e := newEnv(t)
	e.svc = memory.NewService(e.db, newEmbedder(t, e.ollama.URL(), ollamatest.DefaultEmbedModel),
		memory.Options{MatchMinSimilarity: minSimilarity})
	return e
}

func TestForgetByQueryDeletesOnlyWhatMatches(t *testing.T) {
	ctx := context.Background()
	e := newMatchEnv(t, memory.DefaultMatchMinSimilarity)
	want := seedVaried(t, e)
	total := 200 + len(nearMisses) + len(flamegraphNotes)

	for _, q := range []string{"kubernetes helm chart", "write a haiku about autumn", "the of and", "?!"} {
		res, err := e.svc.Forget(ctx, memory.ForgetRequest{Query: q, Confirm: true})
		if err != nil {
			t.Fatalf("forget %q: %v", q, err)
		}
		if res.DeletedCount != 0 || !strings.Contains(res.Message, "nothing deleted") {
			t.Errorf("forget %q deleted %v (%q), want nothing and a message saying so", q, res.DeletedIDs, res.Message)
		}
	}

	dry, err := e.svc.Forget(ctx, memory.ForgetRequest{Query: "flamegraph profiling", Confirm: false})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := e.svc.Count(ctx, memory.CountRequest{}); n != total {
		t.Fatalf("a dry run deleted: %d memories left of %d", n, total)
	}

	res, err := e.svc.Forget(ctx, memory.ForgetRequest{Query: "flamegraph profiling", Confirm: true})
	if err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(slices.Values(res.DeletedIDs))
	if !slices.Equal(got, want) {
		t.Fatalf("forget deleted %v, want exactly %v", got, want)
	}
	if !slices.Equal(slices.Sorted(slices.Values(dry.DeletedIDs)), want) || !dry.DryRun {
		t.Errorf("confirm=false selected %v, want the same %v", dry.DeletedIDs, want)
	}
	if len(res.Deleted) != 3 {
		t.Fatalf("deleted list %+v", res.Deleted)
	}
	for _, d := range res.Deleted {
		if !strings.Contains(strings.ToLower(d.Preview), "flamegraph") {
			t.Errorf("preview of %s = %q, want the start of its content", d.ID, d.Preview)
		}
	}
	if n, _ := e.svc.Count(ctx, memory.CountRequest{}); n != total-3 {
		t.Errorf("%d memories left, want %d", n, total-3)
	}
}

// TestForgetByQueryNeedsTheSimilarityFloorToo: a memory that contains every
// word but whose vector is far from the query's is not a match.
func TestForgetByQueryNeedsTheSimilarityFloorToo(t *testing.T) {
	ctx := context.Background()
	long := "Profiling note: the flamegraph of the nightly import job shows time in regex compilation, " +
		"gzip decoding, template rendering, network waits, allocation churn and lock contention"
	for _, tc := range []struct {
		floor   float64
		deleted int
	}{{0.9, 0}, {0.1, 1}} {
		e := newMatchEnv(t, tc.floor)
		e.remember(t, memory.StoreRequest{Content: long})
		res, err := e.svc.Forget(ctx, memory.ForgetRequest{Query: "flamegraph profiling", Confirm: true})
		if err != nil || res.DeletedCount != tc.deleted {
			t.Errorf("similarity floor %.1f: deleted %d (%v), want %d", tc.floor, res.DeletedCount, err, tc.deleted)
		}
	}
}

func TestMatchingPromptFloor(t *testing.T) {
	ctx := context.Background()
	e := newMatchEnv(t, memory.DefaultMatchMinSimilarity)
	want := seedVaried(t, e)
	floor := memory.Floor{MinCoverage: memory.DefaultPromptMinCoverage, MinSimilarity: memory.DefaultMatchMinSimilarity}

	for _, prompt := range []string{
		"write a haiku about autumn",
		"what is the weather like today?",
		"kubernetes helm chart values",
	} {
		res, err := e.svc.Matching(ctx, prompt, memory.Filter{}, 5, floor)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Matches) != 0 {
			t.Errorf("unrelated prompt %q matched %v", prompt, matchContents(res.Matches))
		}
	}

	res, err := e.svc.Matching(ctx, "any flamegraph profiling tips?", memory.Filter{}, 5, floor)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Matches) < 3 {
		t.Fatalf("a prompt on the topic matched %v", matchContents(res.Matches))
	}
	for _, m := range res.Matches[:3] {
		if !slices.Contains(want, m.ID) {
			t.Errorf("best matches %v, want the flamegraph notes first", matchContents(res.Matches))
		}
	}
	for _, m := range res.Matches {
		if m.Coverage < floor.MinCoverage {
			t.Errorf("%q matched with coverage %.2f under the floor", m.Content, m.Coverage)
		}
	}
}

func matchContents(ms []memory.Match) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Content
	}
	return out
}
