package memory_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/memory"
)

// deployNote shares no exact word with deployQuery, only stems: the stemmed
// keyword index finds it, and so do vectors.
const (
	deployNote  = "Deploying containers requires the staging cluster credentials"
	deployQuery = "deploy container"
)

func seedNotes(t *testing.T, e *env) map[string]string {
	t.Helper()
	notes := map[string]string{
		"deploy": deployNote,
		"tabs":   "Use tabs for indentation in Makefiles",
		"sql":    "SQLite databases open in WAL mode with a busy timeout",
		"review": "Code review needs two approvals before merging",
	}
	got := map[string]string{}
	for k, c := range notes {
		got[k] = e.remember(t, memory.StoreRequest{Content: c}).ID
	}
	return got
}

func TestRecallHybridFindsSemanticallyCloseMemory(t *testing.T) {
	e := newEnv(t)
	notes := seedNotes(t, e)
	res, err := e.svc.Recall(context.Background(), memory.RecallRequest{Query: deployQuery})
	if err != nil {
		t.Fatal(err)
	}
	if res.SearchMode != memory.SearchHybrid || res.Degraded || res.Reason != "" {
		t.Fatalf("want hybrid, got mode %q degraded %v reason %q", res.SearchMode, res.Degraded, res.Reason)
	}
	if len(res.Memories) == 0 || res.Memories[0].ID != notes["deploy"] {
		t.Fatalf("want the deploy note first, got %v", ids(res.Memories))
	}
	if res.Memories[0].AccessCount != 1 {
		t.Fatalf("access count in the result = %d, want 1", res.Memories[0].AccessCount)
	}
	m, err := e.svc.Get(context.Background(), notes["deploy"])
	if err != nil || m.AccessCount != 1 {
		t.Fatalf("stored access count %+v, %v: want 1", m, err)
	}
	other, _ := e.svc.Get(context.Background(), notes["review"])
	if contains(ids(res.Memories), notes["review"]) != (other.AccessCount == 1) {
		t.Fatalf("only returned memories are touched")
	}
}

func TestRecallWithOllamaDownIsKeywordOnlyAndSaysWhy(t *testing.T) {
	e := newEnv(t)
	e.ollama.Close()
	pending := e.remember(t, memory.StoreRequest{Content: deployNote})
	if !pending.EmbeddingPending {
		t.Fatal("want the memory stored pending")
	}
	e.remember(t, memory.StoreRequest{Content: "The staging cluster is rebuilt every Monday"})

	res, err := e.svc.Recall(context.Background(), memory.RecallRequest{Query: "staging cluster"})
	if err != nil {
		t.Fatal(err)
	}
	if res.SearchMode != memory.SearchKeyword || !res.Degraded || !strings.Contains(res.Reason, "not running") || !strings.Contains(res.Reason, "keyword search only") {
		t.Fatalf("want degraded keyword search with a reason, got mode %q degraded %v reason %q", res.SearchMode, res.Degraded, res.Reason)
	}
	if !contains(ids(res.Memories), pending.ID) || len(res.Memories) != 2 {
		t.Fatalf("keyword search must still find both memories, got %v", ids(res.Memories))
	}
	res, err = e.svc.Recall(context.Background(), memory.RecallRequest{Query: deployQuery})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(res.Memories), []string{pending.ID}) {
		t.Fatalf("without vectors keywords still match by stem (deploying ~ deploy), got %v", ids(res.Memories))
	}
}

func TestPendingEmbeddingsFilledWhenOllamaReturns(t *testing.T) {
	db := openStore(t)
	down := ollamatest.New(t)
	down.Close()
	svc := memory.NewService(db, newEmbedder(t, down.URL(), ollamatest.DefaultEmbedModel), memory.Options{})
	ctx := context.Background()
	var want []string
	for _, c := range []string{deployNote, "Use tabs for indentation in Makefiles", "Code review needs two approvals"} {
		res, err := svc.Remember(ctx, memory.StoreRequest{Content: c})
		if err != nil || !res.EmbeddingPending {
			t.Fatalf("remember while down: %+v, %v", res, err)
		}
		want = append(want, res.ID)
	}
	if n, err := svc.FillPendingEmbeddings(ctx); n != 0 || err != nil {
		t.Fatalf("fill while down = %d, %v; want 0, nil (stops quietly)", n, err)
	}

	up := ollamatest.New(t)
	svc = memory.NewService(db, newEmbedder(t, up.URL(), ollamatest.DefaultEmbedModel), memory.Options{})
	n, err := svc.FillPendingEmbeddings(ctx)
	if err != nil || n != len(want) {
		t.Fatalf("fill = %d, %v; want %d", n, err, len(want))
	}
	for _, id := range want {
		if m, err := svc.Get(ctx, id); err != nil || m.EmbeddingPending {
			t.Fatalf("%s still pending: %+v, %v", id, m, err)
		}
	}
	res, err := svc.Recall(ctx, memory.RecallRequest{Query: deployQuery})
	if err != nil {
		t.Fatal(err)
	}
	if res.Degraded || len(res.Memories) == 0 || res.Memories[0].ID != want[0] {
		t.Fatalf("after filling, hybrid search finds the deploy note: degraded %v %q, got %v", res.Degraded, res.Reason, ids(res.Memories))
	}
	if n, err := svc.FillPendingEmbeddings(ctx); n != 0 || err != nil {
		t.Fatalf("nothing left to fill: %d, %v", n, err)
	}
}

func TestModelChangeIsDetectedAndReindexFixesIt(t *testing.T) {
	db := openStore(t)
	ctx := context.Background()
	srv := ollamatest.New(t)
	srv.AddModel("nomic-embed-text")
	old := memory.NewService(db, newEmbedder(t, srv.URL(), ollamatest.DefaultEmbedModel), memory.Options{})
	first, err := old.Remember(ctx, memory.StoreRequest{Content: deployNote})
	if err != nil || first.EmbeddingPending {
		t.Fatalf("%+v, %v", first, err)
	}

	svc := memory.NewService(db, newEmbedder(t, srv.URL(), "nomic-embed-text"), memory.Options{})
	ok, reason := svc.EmbeddingStatus(ctx)
	if ok || !strings.Contains(reason, "recall reindex") || !strings.Contains(reason, "mxbai-embed-large") {
		t.Fatalf("status = %v %q: want a mismatch naming the stored model and the fix", ok, reason)
	}
	second, err := svc.Remember(ctx, memory.StoreRequest{Content: "Containers deploy through the staging pipeline"})
	if err != nil {
		t.Fatal(err)
	}
	if !second.EmbeddingPending || !strings.Contains(second.Warning, "recall reindex") {
		t.Fatalf("a memory stored under another model is pending with a warning: %+v", second)
	}
	res, err := svc.Recall(ctx, memory.RecallRequest{Query: deployQuery})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Degraded || res.SearchMode != memory.SearchKeyword || !strings.Contains(res.Reason, "recall reindex") {
		t.Fatalf("recall under a mismatch: mode %q degraded %v reason %q", res.SearchMode, res.Degraded, res.Reason)
	}
	if _, err := svc.FillPendingEmbeddings(ctx); !errors.Is(err, memory.ErrEmbeddingMismatch) {
		t.Fatalf("filling under a mismatch must refuse: %v", err)
	}

	p, err := svc.Reindex(ctx, nil)
	if err != nil || p.Done != 2 || p.Total != 2 {
		t.Fatalf("reindex = %+v, %v; want 2 of 2", p, err)
	}
	space, _ := db.EmbeddingSpace(ctx)
	if space.Model != "nomic-embed-text" {
		t.Fatalf("space after reindex %+v", space)
	}
	if ok, reason := svc.EmbeddingStatus(ctx); !ok {
		t.Fatalf("status after reindex: %q", reason)
	}
	res, err = svc.Recall(ctx, memory.RecallRequest{Query: deployQuery})
	if err != nil {
		t.Fatal(err)
	}
	if res.Degraded || len(res.Memories) != 2 {
		t.Fatalf("after reindex both memories are found by vectors: degraded %v %q, %v", res.Degraded, res.Reason, ids(res.Memories))
	}
}

func TestDimensionChangeUnderTheSameModelIsAMismatch(t *testing.T) {
	db := openStore(t)
	ctx := context.Background()
	small := ollamatest.New(t, ollamatest.WithDimension(64))
	svc := memory.NewService(db, newEmbedder(t, small.URL(), ollamatest.DefaultEmbedModel), memory.Options{})
	if _, err := svc.Remember(ctx, memory.StoreRequest{Content: deployNote}); err != nil {
		t.Fatal(err)
	}
	big := ollamatest.New(t, ollamatest.WithDimension(128))
	svc = memory.NewService(db, newEmbedder(t, big.URL(), ollamatest.DefaultEmbedModel), memory.Options{})
	res, err := svc.Remember(ctx, memory.StoreRequest{Content: "another note about containers"})
	if err != nil || !res.EmbeddingPending || !strings.Contains(res.Warning, "dimensions") {
		t.Fatalf("want pending with a dimension warning: %+v, %v", res, err)
	}
	rec, err := svc.Recall(ctx, memory.RecallRequest{Query: "containers"})
	if err != nil || !rec.Degraded || !strings.Contains(rec.Reason, "recall reindex") {
		t.Fatalf("recall: %+v, %v", rec, err)
	}
	if p, err := svc.Reindex(ctx, nil); err != nil || p.Done != 2 {
		t.Fatalf("reindex = %+v, %v", p, err)
	}
	if space, _ := db.EmbeddingSpace(ctx); space.Dimension != 128 {
		t.Fatalf("space %+v", space)
	}
}

func TestRecallTreatsQuerySyntaxAsText(t *testing.T) {
	e := newEnv(t)
	mem := e.remember(t, memory.StoreRequest{Content: `claude-mem stores "observations" (and summaries) AND NEAR lookups with prefix* terms - really`})
	for _, q := range []string{`"`, `*`, `AND`, `NEAR(`, `-`, `(`, `claude-mem`, `"unbalanced`, `prefix*`, `NOT`, `a OR`, `)`, `^`, `col:claude`} {
		t.Run(q, func(t *testing.T) {
			res, err := e.svc.Recall(context.Background(), memory.RecallRequest{Query: q})
			if err != nil {
				t.Fatalf("query %q failed: %v", q, err)
			}
			if res.Degraded {
				t.Fatalf("query %q degraded: %s", q, res.Reason)
			}
		})
	}
	for _, q := range []string{`claude-mem`, `NEAR(`, `AND`, `prefix*`, `"observations"`} {
		res, err := e.svc.Recall(context.Background(), memory.RecallRequest{Query: q})
		if err != nil || len(res.Memories) != 1 || res.Memories[0].ID != mem.ID {
			t.Fatalf("query %q must find the memory by its words: %v, %v", q, res, err)
		}
	}
}

func TestRecallLeavesSupersededOutUnlessAsked(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	old := e.remember(t, memory.StoreRequest{Content: "The API listens on port 8080"})
	cur := e.remember(t, memory.StoreRequest{Content: "The API listens on port 9090 since the proxy change"})
	if _, err := e.svc.Relate(ctx, memory.RelateRequest{SourceID: cur.ID, TargetID: old.ID, Relation: memory.RelationSupersedes}); err != nil {
		t.Fatal(err)
	}
	res, err := e.svc.Recall(ctx, memory.RecallRequest{Query: "API port"})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(res.Memories); len(got) != 1 || got[0] != cur.ID {
		t.Fatalf("want only the current memory, got %v", got)
	}
	res, err = e.svc.Recall(ctx, memory.RecallRequest{Query: "API port", IncludeSuperseded: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(res.Memories); len(got) != 2 || !contains(got, old.ID) {
		t.Fatalf("with include_superseded both, got %v", got)
	}
}

func TestRecallFilters(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a := e.remember(t, memory.StoreRequest{Content: "logging goes to stderr", Namespace: "project:a", Type: memory.TypeDecision, Importance: ptr(0.9)})
	b := e.remember(t, memory.StoreRequest{Content: "logging uses slog", Namespace: "project:b", Type: memory.TypePattern, Importance: ptr(0.2)})
	c := e.remember(t, memory.StoreRequest{Content: "logging levels are configurable", Type: memory.TypeDecision, Importance: ptr(0.5)})
	cases := []struct {
		req  memory.RecallRequest
		want []string
	}{
		{memory.RecallRequest{Query: "logging", Namespace: "project:a"}, []string{a.ID}},
		{memory.RecallRequest{Query: "logging", Type: memory.TypeDecision}, []string{a.ID, c.ID}},
		{memory.RecallRequest{Query: "logging", MinImportance: 0.5}, []string{a.ID, c.ID}},
		{memory.RecallRequest{Query: "logging", NResults: 2}, nil},
		{memory.RecallRequest{Query: "logging"}, []string{a.ID, b.ID, c.ID}},
	}
	for _, tc := range cases {
		res, err := e.svc.Recall(ctx, tc.req)
		if err != nil {
			t.Fatal(err)
		}
		got := ids(res.Memories)
		if tc.want == nil {
			if len(got) != tc.req.NResults || res.Total != tc.req.NResults {
				t.Fatalf("%+v: got %v (total %d), want %d results", tc.req, got, res.Total, tc.req.NResults)
			}
			continue
		}
		if len(got) != len(tc.want) {
			t.Fatalf("%+v: got %v want %v", tc.req, got, tc.want)
		}
		for _, id := range tc.want {
			if !contains(got, id) {
				t.Fatalf("%+v: got %v want %v", tc.req, got, tc.want)
			}
		}
	}
}

func TestRecallRefusesBadInput(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		req   memory.RecallRequest
		field string
	}{
		{memory.RecallRequest{Query: ""}, "query"},
		{memory.RecallRequest{Query: "   "}, "query"},
		{memory.RecallRequest{Query: strings.Repeat("q", memory.MaxQueryBytes+1)}, "query"},
		{memory.RecallRequest{Query: "x", NResults: -1}, "n_results"},
		{memory.RecallRequest{Query: "x", NResults: 101}, "n_results"},
		{memory.RecallRequest{Query: "x", Namespace: "nope"}, "namespace"},
		{memory.RecallRequest{Query: "x", Type: "nope"}, "memory_type"},
		{memory.RecallRequest{Query: "x", MinImportance: 2}, "min_importance"},
		{memory.RecallRequest{Query: "x", MaxDepth: 6}, "max_depth"},
		{memory.RecallRequest{Query: "x", MaxExpanded: -1}, "max_expanded"},
		{memory.RecallRequest{Query: "x", DecayFactor: 1.5}, "decay_factor"},
		{memory.RecallRequest{Query: "x", IncludeEdgeTypes: []memory.Relation{"likes"}}, "include_edge_types"},
		{memory.RecallRequest{Query: "x", ExcludeEdgeTypes: []memory.Relation{"likes"}}, "exclude_edge_types"},
	}
	for _, c := range cases {
		_, err := e.svc.Recall(context.Background(), c.req)
		wantInvalid(t, err, c.field)
	}
}

// graphFixture stores a hit and a chain of related memories:
//
//	hit -relates_to(1.0)-> a -caused_by(0.5)-> b
//	hit <-contradicts(1.0)- c
func graphFixture(t *testing.T, e *env) (hit, a, b, c string) {
	t.Helper()
	ctx := context.Background()
	hit = e.remember(t, memory.StoreRequest{Content: "zebra migration plan"}).ID
	a = e.remember(t, memory.StoreRequest{Content: "rollout waves for the database"}).ID
	b = e.remember(t, memory.StoreRequest{Content: "outage last spring from a bad index"}).ID
	c = e.remember(t, memory.StoreRequest{Content: "never migrate on Fridays"}).ID
	for _, r := range []memory.RelateRequest{
		{SourceID: hit, TargetID: a, Relation: memory.RelationRelatesTo},
		{SourceID: a, TargetID: b, Relation: memory.RelationCausedBy, Weight: ptr(0.5)},
		{SourceID: c, TargetID: hit, Relation: memory.RelationContradicts},
	} {
		if _, err := e.svc.Relate(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	return hit, a, b, c
}

func TestRecallExpandsAlongEdgesWithDecay(t *testing.T) {
	e := newEnv(t)
	hit, a, b, c := graphFixture(t, e)
	ctx := context.Background()

	res, err := e.svc.Recall(ctx, memory.RecallRequest{Query: "zebra", NResults: 1, IncludeRelated: true, MaxDepth: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(res.Memories); len(got) != 1 || got[0] != hit {
		t.Fatalf("direct hits %v", got)
	}
	byID := map[string]memory.ScoredMemory{}
	for _, m := range res.Expanded {
		byID[m.ID] = m
		if m.ID == hit {
			t.Fatal("an expanded memory duplicates a direct hit")
		}
		if !m.Expansion {
			t.Fatalf("%s not marked as expanded", m.ID)
		}
	}
	if len(res.Expanded) != 3 || res.Total != 4 {
		t.Fatalf("want a, b, c expanded (total 4), got %v total %d", ids(res.Expanded), res.Total)
	}
	top := res.Memories[0].Score
	approx := func(got, want float64) bool { return got > want*0.999999 && got < want*1.000001 }
	if m := byID[a]; m.Hop != 1 || m.ViaID != hit || m.ViaEdge != memory.RelationRelatesTo || !approx(m.Score, top*0.7) {
		t.Fatalf("a: %+v, want hop 1 score %v", m, top*0.7)
	}
	if m := byID[c]; m.Hop != 1 || m.ViaEdge != memory.RelationContradicts || !approx(m.Score, top*0.7) {
		t.Fatalf("c (incoming edge): %+v", m)
	}
	if m := byID[b]; m.Hop != 2 || m.ViaID != a || !approx(m.Score, top*0.7*0.7*0.5) {
		t.Fatalf("b: %+v, want hop 2 score %v", m, top*0.7*0.7*0.5)
	}

	// Default depth 1 stops before b.
	res, err = e.svc.Recall(ctx, memory.RecallRequest{Query: "zebra", NResults: 1, IncludeRelated: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(res.Expanded); len(got) != 2 || contains(got, b) {
		t.Fatalf("depth 1: %v", got)
	}

	// Include and exclude edge types.
	res, err = e.svc.Recall(ctx, memory.RecallRequest{Query: "zebra", NResults: 1, IncludeRelated: true, MaxDepth: 3,
		IncludeEdgeTypes: []memory.Relation{memory.RelationRelatesTo, memory.RelationCausedBy}})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(res.Expanded); len(got) != 2 || contains(got, c) {
		t.Fatalf("include relates_to, caused_by: %v", got)
	}
	res, err = e.svc.Recall(ctx, memory.RecallRequest{Query: "zebra", NResults: 1, IncludeRelated: true, MaxDepth: 3,
		ExcludeEdgeTypes: []memory.Relation{memory.RelationRelatesTo}})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(res.Expanded); len(got) != 1 || got[0] != c {
		t.Fatalf("exclude relates_to: %v", got)
	}

	// max_expanded caps the expansion, best first.
	res, err = e.svc.Recall(ctx, memory.RecallRequest{Query: "zebra", NResults: 1, IncludeRelated: true, MaxDepth: 2, MaxExpanded: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(res.Expanded); len(got) != 2 || contains(got, b) {
		t.Fatalf("max_expanded 2: %v", got)
	}
}

func TestRecallExpansionDoesNotRepeatDirectHits(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	x := e.remember(t, memory.StoreRequest{Content: "kiwi build cache"}).ID
	y := e.remember(t, memory.StoreRequest{Content: "kiwi build flags"}).ID
	if _, err := e.svc.Relate(ctx, memory.RelateRequest{SourceID: x, TargetID: y, Relation: memory.RelationRelatesTo}); err != nil {
		t.Fatal(err)
	}
	res, err := e.svc.Recall(ctx, memory.RecallRequest{Query: "kiwi", IncludeRelated: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Memories) != 2 || len(res.Expanded) != 0 {
		t.Fatalf("direct %v expanded %v", ids(res.Memories), ids(res.Expanded))
	}
}

func TestRecallDegradesOnEveryKindOfOllamaFailure(t *testing.T) {
	// The client's timeout: short where Ollama hangs, so that it is given up
	// on; long elsewhere, so that a busy machine's slow answer is not taken
	// for a hang (the reason would then be the timeout's).
	cases := []struct {
		name    string
		break_  func(*ollamatest.Server)
		reason  string
		timeout time.Duration
	}{
		{"not running", func(s *ollamatest.Server) { s.Close() }, "not running", 10 * time.Second},
		{"model not pulled", func(s *ollamatest.Server) { s.RemoveModel(ollamatest.DefaultEmbedModel) }, "ollama pull", 10 * time.Second},
		{"hangs", func(s *ollamatest.Server) { s.SetDelay(time.Hour) }, "did not answer", 300 * time.Millisecond},
		{"server error", func(s *ollamatest.Server) { s.SetFailure("/api/embed", 500, "out of memory") }, "out of memory", 10 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := openStore(t)
			srv := ollamatest.New(t)
			ctx := context.Background()
			healthy := memory.NewService(db, newEmbedder(t, srv.URL(), ollamatest.DefaultEmbedModel), memory.Options{})
			before, err := healthy.Remember(ctx, memory.StoreRequest{Content: "release checklist lives in the wiki"})
			if err != nil || before.EmbeddingPending {
				t.Fatalf("%+v, %v", before, err)
			}
			emb, err := embedding.New(embedding.Options{Host: srv.URL(), Timeout: c.timeout})
			if err != nil {
				t.Fatal(err)
			}
			svc := memory.NewService(db, emb, memory.Options{})
			c.break_(srv)
			after, err := svc.Remember(ctx, memory.StoreRequest{Content: "release notes are drafted on Thursdays"})
			if err != nil || !after.EmbeddingPending || !strings.Contains(after.Warning, c.reason) {
				t.Fatalf("store while broken: %+v, %v", after, err)
			}
			res, err := svc.Recall(ctx, memory.RecallRequest{Query: "release"})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Degraded || res.SearchMode != memory.SearchKeyword || !strings.Contains(res.Reason, c.reason) || len(res.Memories) != 2 {
				t.Fatalf("recall while broken: degraded %v mode %q reason %q, %v", res.Degraded, res.SearchMode, res.Reason, ids(res.Memories))
			}
		})
	}
}

func TestRecallGivesUpOnAHangingQueryEmbeddingAtItsOwnDeadline(t *testing.T) {
	db := openStore(t)
	srv := ollamatest.New(t)
	ctx := context.Background()
	// The client would wait an hour; the service's query budget is what ends it.
	emb, err := embedding.New(embedding.Options{Host: srv.URL(), Timeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	svc := memory.NewService(db, emb, memory.Options{QueryEmbedTimeout: 200 * time.Millisecond})
	if _, err := svc.Remember(ctx, memory.StoreRequest{Content: "the release checklist lives in the wiki"}); err != nil {
		t.Fatal(err)
	}
	srv.SetDelay(time.Hour)
	res, err := svc.Recall(ctx, memory.RecallRequest{Query: "release checklist"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Degraded || res.SearchMode != memory.SearchKeyword || len(res.Memories) != 1 {
		t.Fatalf("degraded %v mode %q reason %q memories %v", res.Degraded, res.SearchMode, res.Reason, ids(res.Memories))
	}
}

// A caller that shows only some results skips the access update and marks
// what it showed.
func TestRecallCanLeaveAccessCountsToTheCaller(t *testing.T) {
	e := newEnv(t)
	notes := seedNotes(t, e)
	ctx := context.Background()
	res, err := e.svc.Recall(ctx, memory.RecallRequest{Query: deployQuery, SkipAccessUpdate: true})
	if err != nil || len(res.Memories) < 2 {
		t.Fatalf("recall: %v, %d memories", err, len(res.Memories))
	}
	for _, m := range res.Memories {
		if got, _ := e.svc.Get(ctx, m.ID); got.AccessCount != 0 {
			t.Fatalf("%s touched by a recall that skips the access update", m.ID)
		}
	}
	e.svc.MarkAccessed(ctx, []string{notes["deploy"]})
	for k, id := range notes {
		got, _ := e.svc.Get(ctx, id)
		if want := map[bool]int{true: 1, false: 0}[k == "deploy"]; got.AccessCount != want {
			t.Errorf("%s: access count %d, want %d", k, got.AccessCount, want)
		}
	}
}

// TestPendingEmbeddingsBeyondTheFirstBatchAreFilled: more pending memories
// than one embedding request carries are all filled, batch after batch.
func TestPendingEmbeddingsBeyondTheFirstBatchAreFilled(t *testing.T) {
	db := openStore(t)
	down := ollamatest.New(t)
	down.Close()
	svc := memory.NewService(db, newEmbedder(t, down.URL(), ollamatest.DefaultEmbedModel), memory.Options{})
	ctx := context.Background()
	const stored = 100 // more than three batches
	for i := range stored {
		if _, err := svc.Remember(ctx, memory.StoreRequest{Content: fmt.Sprintf("Pending memory number %d waits for its vector.", i)}); err != nil {
			t.Fatal(err)
		}
	}
	up := ollamatest.New(t)
	svc = memory.NewService(db, newEmbedder(t, up.URL(), ollamatest.DefaultEmbedModel), memory.Options{})
	n, err := svc.FillPendingEmbeddings(ctx)
	if err != nil || n != stored {
		t.Fatalf("fill = %d, %v; want %d", n, err, stored)
	}
	st, err := db.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.PendingEmbeddings != 0 {
		t.Errorf("%d memories still pending after the fill", st.PendingEmbeddings)
	}
}

// TestEmbeddingStatusWithOllamaOff: with no embedder (RECALL_OLLAMA=off) the
// status says vector search is off by choice, not that a service failed.
func TestEmbeddingStatusWithOllamaOff(t *testing.T) {
	svc := memory.NewService(openStore(t), nil, memory.Options{})
	ok, reason := svc.EmbeddingStatus(context.Background())
	if ok || !strings.Contains(reason, "RECALL_OLLAMA=off") || strings.Contains(reason, "unavailable") {
		t.Errorf("status with Ollama off = %v %q; want off, naming RECALL_OLLAMA=off, no failure", ok, reason)
	}
}

// besideStore records, for each keyword search, whether the service told
// it that the vector search runs beside it.
type besideStore struct {
	memory.Store
	beside []bool
}

func (b *besideStore) SearchKeyword(ctx context.Context, text string, f memory.Filter, limit int) ([]memory.Hit, error) {
	b.beside = append(b.beside, memory.KeywordBesideVector(ctx))
	return b.Store.SearchKeyword(ctx, text, f, limit)
}

// TestKeywordSearchKnowsTheVectorSearchRunsBeside: a service with an
// embedding model tells the store's keyword search that the vector search
// runs at the same time (PostgreSQL then keeps it on one connection); one
// without says nothing.
func TestKeywordSearchKnowsTheVectorSearchRunsBeside(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	e.remember(t, memory.StoreRequest{Content: deployNote})
	for _, c := range []struct {
		name     string
		embedder memory.Embedder
		want     bool
	}{{"hybrid", newEmbedder(t, e.ollama.URL(), ollamatest.DefaultEmbedModel), true}, {"keywords only", nil, false}} {
		store := &besideStore{Store: e.db}
		svc := memory.NewService(store, c.embedder, memory.Options{})
		if _, err := svc.Recall(ctx, memory.RecallRequest{Query: "deploying containers"}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(store.beside, []bool{c.want}) {
			t.Errorf("%s: keyword searches told the vector search runs beside: %v, want [%v]", c.name, store.beside, c.want)
		}
	}
}
