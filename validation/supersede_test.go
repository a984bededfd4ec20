package validation_test

import (
	"strings"
	"testing"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

func TestCheckSupersedesNeedsAClearlyBetterRecord(t *testing.T) {
	e := newEnv(t, validation.Options{})
	e.needFake()
	old := e.remember(unittest, memory.TypePreference, "global")
	newer := e.remember(pytest, memory.TypePreference, "global")
	e.judgeBy(contradictsWhen([2]string{"pytest", "unittest"}))

	// One success is not a clearly better record.
	e.outcome(newer.ID, true, "")
	res, err := e.svc.CheckSupersedes(e.ctx, validation.SupersedeRequest{MemoryID: newer.ID})
	if err != nil {
		t.Fatal(err)
	}
	if res.SupersededID != "" || res.EdgeCreated || !strings.Contains(res.Reason, "no older memory") {
		t.Fatalf("after one success: %+v, want nothing superseded", res)
	}

	// Two successes against an unvalidated memory: 0.5 vs 0.3 and net +2.
	e.outcome(newer.ID, true, "")
	res, err = e.svc.CheckSupersedes(e.ctx, validation.SupersedeRequest{MemoryID: newer.ID, CreateEdge: ptr(false)})
	if err != nil {
		t.Fatal(err)
	}
	if res.SupersededID != old.ID || res.EdgeCreated {
		t.Fatalf("dry check: %+v, want %s named and no edge", res, old.ID)
	}
	res, _ = e.svc.CheckSupersedes(e.ctx, validation.SupersedeRequest{MemoryID: newer.ID})
	if res.SupersededID != old.ID || !res.EdgeCreated || res.EdgeID == 0 {
		t.Fatalf("check: %+v, want an edge to %s", res, old.ID)
	}
	for _, want := range []string{newer.ID, "confidence 0.5, 2 succeeded, 0 failed", old.ID, "confidence 0.3, 0 succeeded, 0 failed", "they name opposite choices"} {
		if !strings.Contains(res.Reason, want) {
			t.Errorf("reason %q lacks %q", res.Reason, want)
		}
	}
	edges := e.edges(old.ID, memory.RelationSupersedes)
	if len(edges) != 1 || edges[0].SourceID != newer.ID || edges[0].TargetID != old.ID {
		t.Fatalf("supersedes edges = %+v", edges)
	}

	// The superseded memory leaves recall.
	rec, err := e.mem.Recall(e.ctx, memory.RecallRequest{Query: "Python tests framework"})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range rec.Memories {
		if m.ID == old.ID {
			t.Errorf("recall still returns the superseded memory")
		}
	}
	// The superseded memory cannot supersede back.
	back, _ := e.svc.CheckSupersedes(e.ctx, validation.SupersedeRequest{MemoryID: old.ID})
	if back.SupersededID != "" || !strings.Contains(back.Reason, "itself superseded") {
		t.Errorf("superseded memory's check = %+v", back)
	}
}

func TestCheckSupersedesUsesKnownContradictionsAndFailingRecords(t *testing.T) {
	e := newEnv(t, validation.Options{})
	e.needFake()
	old := e.remember(unittest, memory.TypePreference, "global")
	newer := e.remember(pytest, memory.TypePreference, "global")
	// The model answers nothing useful: only the recorded edge counts.
	e.judgeBy(func(string) string { return "no idea" })
	if _, err := e.db.InsertEdge(e.ctx, &memory.Edge{SourceID: old.ID, TargetID: newer.ID, Relation: memory.RelationContradicts, Weight: 1}); err != nil {
		t.Fatal(err)
	}
	// The old one failed twice (0.3 -> 0.0), the new one is untried (0.3).
	e.outcome(old.ID, false, "unittest discovery missed files")
	e.outcome(old.ID, false, "team uses pytest")
	res, err := e.svc.CheckSupersedes(e.ctx, validation.SupersedeRequest{MemoryID: newer.ID})
	if err != nil {
		t.Fatal(err)
	}
	if res.SupersededID != old.ID || !res.EdgeCreated || !strings.Contains(res.Reason, "linked as contradicting") {
		t.Errorf("result = %+v, want %s superseded through the known contradiction", res, old.ID)
	}
}

func TestGoldenRulesAreNeverSuperseded(t *testing.T) {
	e := newEnv(t, validation.Options{})
	e.needFake()
	old := e.remember(unittest, memory.TypePreference, "global")
	newer := e.remember(pytest, memory.TypePreference, "global")
	e.judgeBy(contradictsWhen([2]string{"pytest", "unittest"}))
	if _, err := e.db.UpdateMemory(e.ctx, old.ID, func(m *memory.Memory) error {
		m.Type, m.Confidence = memory.TypeGoldenRule, 0.2
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.setConfidence(newer.ID, 0.6)
	for range 3 {
		e.outcome(newer.ID, true, "")
	}
	res, _ := e.svc.CheckSupersedes(e.ctx, validation.SupersedeRequest{MemoryID: newer.ID})
	if res.SupersededID != "" || res.EdgeCreated {
		t.Errorf("a golden rule was superseded: %+v", res)
	}
}
