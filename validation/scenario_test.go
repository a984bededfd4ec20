package validation_test

import (
	"testing"
	"time"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

// A week of use on one project: preferences are stored, applied, fail and
// succeed; one becomes a golden rule, one is contradicted and superseded, one
// fails into a deletion candidate. The final context holds exactly the
// trustworthy set.
func TestWeekOfUse(t *testing.T) {
	e := newEnv(t, validation.Options{})
	e.needFake()
	e.judgeBy(contradictsWhen([2]string{"pytest", "unittest"}))
	pre := preamble(t, e)
	const ns = "project:shop"

	// Monday: what the agent learnt on the first day.
	unit := e.remember(unittest, memory.TypePreference, ns)
	black := e.remember("You SHOULD format Python code with black.", memory.TypePreference, ns)
	pg := e.remember("Decision: orders are stored in Postgres.", memory.TypeDecision, ns)
	globals := e.remember("Pattern: keep configuration in module-level globals.", memory.TypePattern, ns)
	e.clock.Advance(24 * time.Hour)

	// Tuesday: unittest fails twice; the user says pytest instead.
	for _, msg := range []string{"test discovery missed files", "team uses pytest"} {
		e.svc.Apply(e.ctx, validation.ApplyRequest{MemoryID: unit.ID, Context: "running tests", SessionID: "tue"})
		e.outcome(unit.ID, false, msg)
	}
	pyt := e.remember(pytest, memory.TypePreference, ns)
	session := e.remember("Session: moved the test suite to pytest.", memory.TypeSession, ns)
	e.clock.Advance(24 * time.Hour)

	// Wednesday to Saturday: black works every day, pytest twice, globals fail.
	for day := range 4 {
		e.svc.Apply(e.ctx, validation.ApplyRequest{MemoryID: black.ID, Context: "formatting", SessionID: "day"})
		e.outcome(black.ID, true, "")
		if day < 2 {
			e.outcome(pyt.ID, true, "")
			e.outcome(globals.ID, false, "globals broke the tests")
		}
		e.clock.Advance(24 * time.Hour)
	}
	// Sunday: two more successes make black a golden rule.
	e.outcome(black.ID, true, "")
	if res := e.outcome(black.ID, true, ""); !res.Promoted {
		t.Fatalf("black was not promoted: %+v", res)
	}

	det, err := e.svc.DetectContradictions(e.ctx, validation.DetectRequest{MemoryID: pyt.ID})
	if err != nil || len(det.Contradictions) != 1 || det.Contradictions[0].MemoryID != unit.ID {
		t.Fatalf("detect = %+v, %v", det, err)
	}
	sup, err := e.svc.CheckSupersedes(e.ctx, validation.SupersedeRequest{MemoryID: pyt.ID})
	if err != nil || sup.SupersededID != unit.ID || !sup.EdgeCreated {
		t.Fatalf("supersede = %+v, %v", sup, err)
	}

	res, err := e.svc.Context(e.ctx, validation.ContextRequest{Project: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	want := pre +
		"\n## Golden rules\n\n" +
		"- [" + black.ID + "] You SHOULD format Python code with black. (confidence 0.9)\n" +
		"\n## Project memories (project:shop)\n" +
		"\n### Preferences\n\n" +
		"- [" + pyt.ID + "] " + pytest + " (confidence 0.5)\n" +
		"\n### Decisions\n\n" +
		"- [" + pg.ID + "] Decision: orders are stored in Postgres. (confidence 0.3)\n" +
		"\n### Session notes\n\n" +
		"- [" + session.ID + "] Session: moved the test suite to pytest. (confidence 0.3)\n"
	if res.Context != want {
		t.Errorf("final context =\n%s\nwant\n%s", res.Context, want)
	}
	if g := e.get(black.ID); g.Metadata["promoted_from"] != "preference" {
		t.Errorf("black metadata = %v", g.Metadata)
	}

	rep, err := e.svc.AnalyzeHealth(e.ctx, validation.HealthRequest{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Counts.Contradictions != 0 || rep.Counts.Superseded != 1 || rep.Counts.LowConfidence != 1 || rep.LowConfidence[0].ID != globals.ID {
		t.Errorf("health = %+v", rep.Counts)
	}
}
