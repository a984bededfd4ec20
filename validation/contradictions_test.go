package validation_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

const (
	pytest   = "You MUST use pytest for all Python tests."
	unittest = "You MUST use unittest for all Python tests."
	fixtures = "You MUST use fixtures for all Python tests."
	docker   = "Deploy the service with docker compose on the staging host."
)

// similarEnough checks the premise of a test: the fake's vectors of a and b
// are similar enough to be compared.
func similarEnough(t *testing.T, a, b string) {
	t.Helper()
	if c := ollamatest.Cosine(ollamatest.Vector(a, ollamatest.DefaultDimension), ollamatest.Vector(b, ollamatest.DefaultDimension)); c < 0.7 {
		t.Fatalf("premise: %q and %q have similarity %.2f, below 0.7", a, b, c)
	}
}

func TestDetectContradictionsCreatesOneEdgePerConfirmedPair(t *testing.T) {
	e := newEnv(t, validation.Options{})
	e.needFake()
	similarEnough(t, pytest, unittest)
	similarEnough(t, pytest, fixtures)
	old := e.remember(unittest, memory.TypePreference, "project:shop")
	compatible := e.remember(fixtures, memory.TypePattern, "global")
	e.remember(docker, memory.TypeDecision, "project:shop")
	otherProject := e.remember(unittest, memory.TypePreference, "project:blog")
	newer := e.remember(pytest, memory.TypePreference, "project:shop")
	e.judgeBy(contradictsWhen([2]string{"pytest", "unittest"}))
	before := e.fake.Counts()

	res, err := e.svc.DetectContradictions(e.ctx, validation.DetectRequest{MemoryID: newer.ID})
	if err != nil {
		t.Fatal(err)
	}
	if res.CandidatesChecked != 2 {
		t.Errorf("checked %d candidates, want 2 (the unittest and fixtures memories of this project and global)", res.CandidatesChecked)
	}
	if len(res.Contradictions) != 1 || res.EdgesCreated != 1 || len(res.FailedJudgments) != 0 {
		t.Fatalf("result = %+v, want one contradiction with an edge", res)
	}
	c := res.Contradictions[0]
	if c.MemoryID != old.ID || c.Confidence != 0.9 || c.Reason != "they name opposite choices" || c.EdgeID == 0 {
		t.Errorf("contradiction = %+v", c)
	}
	edges := e.edges(newer.ID, memory.RelationContradicts)
	if len(edges) != 1 || edges[0].SourceID != newer.ID || edges[0].TargetID != old.ID || edges[0].Weight != 0.9 {
		t.Errorf("edges = %+v, want one contradicts edge %s -> %s of weight 0.9", edges, newer.ID, old.ID)
	}
	if got := e.edges(otherProject.ID, memory.RelationContradicts); len(got) != 0 {
		t.Errorf("a memory of another project was linked: %+v", got)
	}
	if got := e.edges(compatible.ID, memory.RelationContradicts); len(got) != 0 {
		t.Errorf("the compatible memory was linked: %+v", got)
	}
	calls := e.fake.Counts()
	// The memory's stored vector is used: no embed call.
	if calls.ChatCalls-before.ChatCalls != 2 || calls.EmbedCalls-before.EmbedCalls != 0 {
		t.Errorf("model calls: %d chat, %d embed; want 2 and 0", calls.ChatCalls-before.ChatCalls, calls.EmbedCalls-before.EmbedCalls)
	}
	for _, req := range e.fake.ChatRequests() {
		if req.Options["temperature"] != float64(0) || !strings.Contains(string(req.Format), `"contradicts"`) {
			t.Errorf("chat request without temperature 0 and the schema: %v %s", req.Options, req.Format)
		}
	}

	// Asking again, from either side, adds no second edge.
	again, _ := e.svc.DetectContradictions(e.ctx, validation.DetectRequest{MemoryID: old.ID})
	if again.EdgesCreated != 0 || len(again.Contradictions) != 1 || again.Contradictions[0].EdgeID != c.EdgeID {
		t.Errorf("second detection = %+v, want the existing edge %d", again, c.EdgeID)
	}
}

func TestDetectContradictionsWithoutEdgesAndThreshold(t *testing.T) {
	e := newEnv(t, validation.Options{})
	e.needFake()
	old := e.remember(unittest, memory.TypePreference, "global")
	newer := e.remember(pytest, memory.TypePreference, "global")
	e.judgeBy(contradictsWhen([2]string{"pytest", "unittest"}))

	res, err := e.svc.DetectContradictions(e.ctx, validation.DetectRequest{MemoryID: newer.ID, CreateEdges: ptr(false)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contradictions) != 1 || res.Contradictions[0].MemoryID != old.ID || res.Contradictions[0].EdgeID != 0 || res.EdgesCreated != 0 {
		t.Errorf("result = %+v, want the contradiction reported without an edge", res)
	}
	if got := e.edges(newer.ID, memory.RelationContradicts); len(got) != 0 {
		t.Errorf("create_edges=false created %+v", got)
	}

	// A threshold above the pair's similarity leaves nothing to judge.
	res, _ = e.svc.DetectContradictions(e.ctx, validation.DetectRequest{MemoryID: newer.ID, SimilarityThreshold: ptr(0.99)})
	if res.CandidatesChecked != 0 || len(res.Contradictions) != 0 {
		t.Errorf("threshold 0.99: %+v, want nothing checked", res)
	}
	for _, bad := range []float64{0, -1, 1.2} {
		if _, err := e.svc.DetectContradictions(e.ctx, validation.DetectRequest{MemoryID: newer.ID, SimilarityThreshold: ptr(bad)}); err == nil || !strings.Contains(err.Error(), "similarity_threshold") {
			t.Errorf("threshold %v: err = %v, want an error naming similarity_threshold", bad, err)
		}
	}
}

func TestFailedJudgmentsAreReportedNotFatal(t *testing.T) {
	cases := []struct {
		name   string
		script func(e *env)
		reason string
	}{
		{"garbage reply", func(e *env) { e.judgeBy(func(string) string { return "I think they do, maybe." }) }, "reply"},
		{"reply missing fields", func(e *env) { e.judgeBy(func(string) string { return `{"reason": "hm"}` }) }, "lacks"},
		{"confidence out of range", func(e *env) {
			e.judgeBy(func(string) string { return `{"contradicts": true, "confidence": 7, "reason": ""}` })
		}, "outside 0 to 1"},
		{"chat model not pulled", func(e *env) { e.fake.RemoveModel(ollamatest.DefaultChatModel) }, "llama3.2"},
		{"server error", func(e *env) { e.fake.SetFailure("/api/chat", 500, "out of memory") }, "out of memory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, validation.Options{})
			e.needFake()
			old := e.remember(unittest, memory.TypePreference, "global")
			newer := e.remember(pytest, memory.TypePreference, "global")
			c.script(e)
			res, err := e.svc.DetectContradictions(e.ctx, validation.DetectRequest{MemoryID: newer.ID})
			if err != nil {
				t.Fatalf("a failed judgment failed the call: %v", err)
			}
			if len(res.Contradictions) != 0 || len(res.FailedJudgments) != 1 || res.FailedJudgments[0].MemoryID != old.ID {
				t.Fatalf("result = %+v, want one failed judgment about %s", res, old.ID)
			}
			if !strings.Contains(res.FailedJudgments[0].Reason, c.reason) {
				t.Errorf("reason %q does not mention %q", res.FailedJudgments[0].Reason, c.reason)
			}
			if got := e.edges(newer.ID, memory.RelationContradicts); len(got) != 0 {
				t.Errorf("a failed judgment created %+v", got)
			}
		})
	}
}

// fakeVectors embeds without a server, as the fake would, so a test can slow
// the chat model down without slowing embeddings.
type fakeVectors struct{}

func (fakeVectors) Model() string { return ollamatest.DefaultEmbedModel }
func (fakeVectors) EmbedDocuments(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = ollamatest.Vector(t, ollamatest.DefaultDimension)
	}
	return out, nil
}
func (f fakeVectors) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	v, _ := f.EmbedDocuments(ctx, []string{text})
	return v[0], nil
}

func TestJudgmentTimeoutIsAFailedJudgment(t *testing.T) {
	e := newEnv(t, validation.Options{})
	e.needFake()
	old := e.remember(unittest, memory.TypePreference, "global")
	newer := e.remember(pytest, memory.TypePreference, "global")
	// The model never answers within the judgment's time limit.
	e.fake.SetDelay(1 << 40)
	slow, err := embedding.New(embedding.Options{Host: e.fake.URL()})
	if err != nil {
		t.Fatal(err)
	}
	svc := validation.New(e.db, e.mem, fakeVectors{}, slow, validation.Options{Logger: quietLog, JudgeTimeout: 50 * time.Millisecond})
	res, err := svc.DetectContradictions(e.ctx, validation.DetectRequest{MemoryID: newer.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.FailedJudgments) != 1 || res.FailedJudgments[0].MemoryID != old.ID || !strings.Contains(res.FailedJudgments[0].Reason, "did not answer within") {
		t.Errorf("result = %+v, want a timed-out judgment", res)
	}
}

func TestDetectWithoutModelsSaysWhy(t *testing.T) {
	e := newEnv(t, validation.Options{})
	// Stored without a vector, and no embedding model to make one.
	keywordsOnly := memory.NewService(e.db, nil, memory.Options{Logger: quietLog})
	stored, err := keywordsOnly.Remember(e.ctx, memory.StoreRequest{Content: pytest, Type: memory.TypePreference})
	if err != nil || !stored.EmbeddingPending {
		t.Fatalf("store without an embedder: %+v, %v", stored, err)
	}
	svc := validation.New(e.db, keywordsOnly, nil, nil, validation.Options{Logger: quietLog})
	res, err := svc.DetectContradictions(e.ctx, validation.DetectRequest{MemoryID: stored.ID})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Skipped, "no embedding model") || res.CandidatesChecked != 0 {
		t.Errorf("result = %+v, want skipped for lack of an embedding model", res)
	}
}
