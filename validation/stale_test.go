package validation_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

// A stale review lists what was not validated for the chosen days and, with a
// threshold, what is trusted too little, the longest unchecked first, and
// leaves out superseded memories and other namespaces.
func TestStaleMemoriesByDaysAndConfidence(t *testing.T) {
	e := newEnv(t, validation.Options{})
	never := e.remember("Deploy with the old Makefile target.", memory.TypeDecision, "project:shop")
	checkedLong := e.remember("Use tabs in Makefiles.", memory.TypePattern, "project:shop")
	e.outcome(checkedLong.ID, true, "")
	old := e.remember("Use Python 3.8 for the build.", memory.TypeDecision, "project:shop")
	newer := e.remember("Use Python 3.12 for the build.", memory.TypeDecision, "project:shop")
	if _, err := e.db.InsertEdge(e.ctx, &memory.Edge{SourceID: newer.ID, TargetID: old.ID, Relation: memory.RelationSupersedes, Weight: 1}); err != nil {
		t.Fatal(err)
	}
	e.outcome(newer.ID, true, "")
	other := e.remember("Prefer short commit titles.", memory.TypePreference, "global")
	e.clock.Advance(20 * 24 * time.Hour)
	doubted := e.remember("Run the linter before each commit.", memory.TypePattern, "project:shop")
	e.outcome(doubted.ID, false, "")
	e.outcome(doubted.ID, false, "") // 0.0, validated just now

	ids := func(rep *validation.StaleReport) string {
		var out []string
		for _, m := range rep.Memories {
			out = append(out, m.ID)
		}
		return strings.Join(out, " ")
	}
	rep, err := e.svc.StaleMemories(e.ctx, validation.StaleRequest{Namespace: "project:shop", Days: 14})
	if err != nil {
		t.Fatal(err)
	}
	if want := never.ID + " " + checkedLong.ID + " " + newer.ID; ids(rep) != want || rep.Total != 3 {
		t.Errorf("14 days: %s (total %d), want %s: never validated first, the superseded one and the fresh one left out", ids(rep), rep.Total, want)
	}
	if !rep.Memories[0].Unvalidated || rep.Memories[0].LowConfidence || rep.Memories[0].DaysSinceCheck != 20 {
		t.Errorf("why the first is stale: %+v", rep.Memories[0])
	}

	rep, err = e.svc.StaleMemories(e.ctx, validation.StaleRequest{Namespace: "project:shop", Days: 30, Below: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	if ids(rep) != doubted.ID || !rep.Memories[0].LowConfidence || rep.Memories[0].Unvalidated {
		t.Errorf("30 days or under 0.2: %+v, want only the doubted one, by its confidence", rep.Memories)
	}

	rep, err = e.svc.StaleMemories(e.ctx, validation.StaleRequest{Days: 14, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if want := never.ID + " " + checkedLong.ID; rep.Total != 4 || ids(rep) != want {
		t.Errorf("all namespaces (with %s), 2 shown: %s of %d, want %s of 4", other.ID, ids(rep), rep.Total, want)
	}

	for _, bad := range []validation.StaleRequest{{Days: -1}, {Below: 1.5}, {Limit: 501}, {Namespace: "proj:x"}} {
		if _, err := e.svc.StaleMemories(e.ctx, bad); !errors.Is(err, memory.ErrInvalid) {
			t.Errorf("%+v: err = %v, want invalid", bad, err)
		}
	}
}
