package validation_test

import (
	"context"
	"testing"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

// A pair a person judged "not a contradiction" stays without a contradicts
// edge: neither memory_detect_contradictions nor the curation queue adds it
// again, though the chat model still judges the pair a contradiction.
func TestNotAContradictionIsRemembered(t *testing.T) {
	e := newEnv(t, validation.Options{Enabled: true})
	e.needFake()
	similarEnough(t, pytest, unittest)
	old := e.remember(unittest, memory.TypePreference, "global")
	newer := e.remember(pytest, memory.TypePreference, "global")
	e.judgeBy(contradictsWhen([2]string{"pytest", "unittest"}))
	res, err := e.svc.DetectContradictions(e.ctx, validation.DetectRequest{MemoryID: newer.ID})
	if err != nil || res.EdgesCreated != 1 {
		t.Fatalf("premise: the model's contradiction makes an edge: %+v, %v", res, err)
	}

	// The person's verdict, as the viewer's review records it.
	if err := e.mem.RecordResolution(e.ctx, memory.ResolutionRequest{MemoryID: newer.ID, RelatedID: old.ID,
		Action: memory.ChangeNotContradiction, Reason: "pytest runs unittest cases", Source: memory.SourceViewer}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.mem.ForgetEdges(e.ctx, memory.EdgeForgetRequest{EdgeID: res.Contradictions[0].EdgeID}); err != nil {
		t.Fatal(err)
	}

	// Asked again from either side: the pair is not judged, no edge is made.
	for _, id := range []string{newer.ID, old.ID} {
		again, err := e.svc.DetectContradictions(e.ctx, validation.DetectRequest{MemoryID: id})
		if err != nil || again.EdgesCreated != 0 || len(again.Contradictions) != 0 {
			t.Errorf("detect from %s after the verdict: %+v, %v; want nothing found", id, again, err)
		}
	}
	// The curation queue, its model judging the pair a contradiction.
	e.judgeBy(func(string) string {
		return `{"relation": "contradicts", "confidence": 0.95, "reason": "opposite choices"}`
	})
	chats := e.fake.Counts().ChatCalls
	if err := e.jobs.Enqueue(e.ctx, newer.ID, validation.JobKindRelate); err != nil {
		t.Fatal(err)
	}
	e.jobs.Start(e.ctx)
	if err := e.jobs.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if e.fake.Counts().ChatCalls == chats {
		t.Fatal("premise: the queue did not ask the model")
	}
	if got := e.edges(newer.ID, memory.RelationContradicts); len(got) != 0 {
		t.Errorf("contradicts edges after the queue ran: %+v, want none", got)
	}
	for _, id := range []string{newer.ID, old.ID} {
		log, err := e.mem.Changes(e.ctx, id)
		if err != nil || len(log) != 1 || log[0].Action != memory.ChangeNotContradiction || log[0].Reason != "pytest runs unittest cases" {
			t.Errorf("log of %s: %+v, %v; want the verdict with its reason", id, log, err)
		}
	}
}
