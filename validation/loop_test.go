package validation_test

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

func TestApplyRecordsEventAndTouchesMemory(t *testing.T) {
	e := newEnv(t, validation.Options{})
	m := e.remember("You MUST use pytest for all tests.", memory.TypePreference, "project:shop")

	res, err := e.svc.Apply(e.ctx, validation.ApplyRequest{MemoryID: m.ID, Context: "writing tests for cart.py", SessionID: "sess-1"})
	if err != nil {
		t.Fatal(err)
	}
	if res.EventID == 0 || res.Confidence != 0.3 {
		t.Fatalf("apply = %+v, want an event id and confidence 0.3", res)
	}
	after := e.get(m.ID)
	if after.AccessCount != m.AccessCount+1 || !after.AccessedAt.Equal(e.clock.Now()) {
		t.Errorf("access count %d at %v, want %d at %v", after.AccessCount, after.AccessedAt, m.AccessCount+1, e.clock.Now())
	}
	if after.Confidence != 0.3 {
		t.Errorf("apply changed confidence to %v", after.Confidence)
	}
	h, err := e.svc.History(e.ctx, validation.HistoryRequest{MemoryID: m.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Events) != 1 {
		t.Fatalf("events = %+v, want one", h.Events)
	}
	ev := h.Events[0]
	if ev.ID != res.EventID || ev.EventType != memory.EventApplied || ev.Context != "writing tests for cart.py" || ev.SessionID != "sess-1" {
		t.Errorf("event = %+v", ev)
	}
}

func TestOutcomeMovesConfidenceAndRecordsEvents(t *testing.T) {
	e := newEnv(t, validation.Options{})
	m := e.remember("You SHOULD run go vet before committing.", memory.TypePattern, "global")

	up := e.outcome(m.ID, true, "")
	if !up.OutcomeSuccess || up.OldConfidence != 0.3 || up.NewConfidence != 0.4 || up.Promoted {
		t.Errorf("success outcome = %+v, want 0.3 -> 0.4", up)
	}
	down := e.outcome(m.ID, false, "vet flagged nothing useful")
	if down.OutcomeSuccess || down.OldConfidence != 0.4 || down.NewConfidence != 0.25 {
		t.Errorf("failure outcome = %+v, want 0.4 -> 0.25", down)
	}
	if got := e.get(m.ID).Confidence; got != 0.25 {
		t.Errorf("stored confidence %v, want 0.25", got)
	}
	h, err := e.svc.History(e.ctx, validation.HistoryRequest{MemoryID: m.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Events) != 2 || h.Events[0].EventType != memory.EventFailed || h.Events[1].EventType != memory.EventSucceeded {
		t.Fatalf("events = %+v, want failed then succeeded (newest first)", h.Events)
	}
	f := h.Events[0]
	if f.ErrorMsg != "vet flagged nothing useful" || f.ConfidenceBefore != 0.4 || f.ConfidenceAfter != 0.25 || f.SessionID != "s1" || f.ID != down.EventID {
		t.Errorf("failed event = %+v", f)
	}

	// Clamped at 0 and at 1.
	for range 3 {
		e.outcome(m.ID, false, "")
	}
	if got := e.get(m.ID).Confidence; got != 0 {
		t.Errorf("after repeated failures confidence %v, want 0", got)
	}
	e.setConfidence(m.ID, 0.95)
	e.svc.Outcome(e.ctx, validation.OutcomeRequest{MemoryID: m.ID, Success: true})
	if got := e.get(m.ID).Confidence; got != 1 {
		t.Errorf("confidence %v, want clamped to 1", got)
	}
}

func TestPromotionToGoldenRule(t *testing.T) {
	e := newEnv(t, validation.Options{})
	pref := e.remember("You MUST use tabs for indentation in Go files.", memory.TypePreference, "global")
	sess := e.remember("Session: refactored the cart module.", memory.TypeSession, "global")

	var promotedAt int
	for i := 1; i <= 6; i++ {
		res := e.outcome(pref.ID, true, "")
		if res.Promoted {
			if promotedAt != 0 {
				t.Fatalf("promoted twice (steps %d and %d)", promotedAt, i)
			}
			promotedAt = i
			if res.NewConfidence != 0.9 || res.MemoryType != memory.TypeGoldenRule {
				t.Errorf("promoting outcome = %+v", res)
			}
		}
	}
	if promotedAt != 6 {
		t.Fatalf("promoted at step %d, want 6 (0.3 + 6 x 0.1 = 0.9)", promotedAt)
	}
	golden := e.get(pref.ID)
	if golden.Type != memory.TypeGoldenRule || golden.Metadata["promoted_from"] != "preference" || golden.Metadata["promoted_at"] == nil {
		t.Errorf("promoted memory = %+v", golden)
	}

	// A golden rule that fails stays golden (and health reports it).
	res := e.outcome(pref.ID, false, "broke gofmt")
	if res.MemoryType != memory.TypeGoldenRule || res.NewConfidence != 0.75 || res.Promoted {
		t.Errorf("failing golden rule = %+v, want golden at 0.75", res)
	}

	// Sessions never promote.
	for range 8 {
		if e.outcome(sess.ID, true, "").Promoted {
			t.Fatal("a session memory was promoted")
		}
	}
	if s := e.get(sess.ID); s.Type != memory.TypeSession || s.Confidence != 1 {
		t.Errorf("session memory = %s at %v, want session at 1", s.Type, s.Confidence)
	}
}

func TestValidateAdjustment(t *testing.T) {
	e := newEnv(t, validation.Options{})
	m := e.remember("Decision: the API returns RFC 7807 problem details.", memory.TypeDecision, "project:api")

	res, err := e.svc.Validate(e.ctx, validation.ValidateRequest{MemoryID: m.ID, Success: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.OldConfidence != 0.3 || res.NewConfidence != 0.4 {
		t.Errorf("default success = %+v, want 0.3 -> 0.4", res)
	}
	res, _ = e.svc.Validate(e.ctx, validation.ValidateRequest{MemoryID: m.ID, Success: false, Adjustment: ptr(0.2)})
	if res.OldConfidence != 0.4 || res.NewConfidence != 0.1 {
		t.Errorf("failure with 0.2 = %+v, want 0.4 -> 0.1 (1.5 x 0.2)", res)
	}
	res, _ = e.svc.Validate(e.ctx, validation.ValidateRequest{MemoryID: m.ID, Success: true, Adjustment: ptr(0.8)})
	if res.NewConfidence != 0.9 || !res.Promoted || res.MemoryType != memory.TypeGoldenRule {
		t.Errorf("success with 0.8 = %+v, want 0.9 and promoted", res)
	}

	for _, bad := range []float64{0, -0.1, 1.5, math.NaN(), math.Inf(1)} {
		_, err := e.svc.Validate(e.ctx, validation.ValidateRequest{MemoryID: m.ID, Success: true, Adjustment: ptr(bad)})
		if !errors.Is(err, memory.ErrInvalid) || !strings.Contains(err.Error(), "adjustment") {
			t.Errorf("adjustment %v: err = %v, want an invalid adjustment error", bad, err)
		}
	}
	if got := e.get(m.ID).Confidence; got != 0.9 {
		t.Errorf("refused adjustments changed confidence to %v", got)
	}
}

func TestHistoryFiltersLimitsAndSummarises(t *testing.T) {
	e := newEnv(t, validation.Options{})
	m := e.remember("You SHOULD NOT mock the database in integration tests.", memory.TypePattern, "global")
	other := e.remember("Session: nothing happened.", memory.TypeSession, "global")

	h, err := e.svc.History(e.ctx, validation.HistoryRequest{MemoryID: m.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Events) != 0 || h.Summary.SuccessRate != nil || h.Summary.CurrentConfidence != 0.3 {
		t.Errorf("empty history = %+v", h)
	}

	for _, ok := range []bool{true, true, false, true} {
		e.svc.Apply(e.ctx, validation.ApplyRequest{MemoryID: m.ID, Context: "ctx"})
		e.clock.Advance(1)
		e.outcome(m.ID, ok, "")
		e.clock.Advance(1)
	}
	e.outcome(other.ID, false, "")

	h, err = e.svc.History(e.ctx, validation.HistoryRequest{MemoryID: m.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Events) != 8 || h.Count != 8 {
		t.Fatalf("got %d events, want 8", len(h.Events))
	}
	for i := 1; i < len(h.Events); i++ {
		if h.Events[i].CreatedAt.After(h.Events[i-1].CreatedAt) {
			t.Fatalf("events not newest first: %v after %v", h.Events[i].CreatedAt, h.Events[i-1].CreatedAt)
		}
	}
	rate := 0.75
	want := validation.HistorySummary{TotalEvents: 8, Applied: 4, Succeeded: 3, Failed: 1, SuccessRate: &rate, CurrentConfidence: 0.45, MemoryType: memory.TypePattern}
	if !reflect.DeepEqual(h.Summary, want) {
		t.Errorf("summary = %+v, want %+v", h.Summary, want)
	}

	h, _ = e.svc.History(e.ctx, validation.HistoryRequest{MemoryID: m.ID, EventType: "succeeded", Limit: 2})
	if len(h.Events) != 2 || h.Events[0].EventType != memory.EventSucceeded || h.Events[1].EventType != memory.EventSucceeded {
		t.Errorf("filtered = %+v, want 2 succeeded events", h.Events)
	}
	// The summary honours the filters (the Python Recall's rule): two
	// successes selected, no failure among them.
	one := 1.0
	wantFiltered := validation.HistorySummary{TotalEvents: 2, Succeeded: 2, SuccessRate: &one, CurrentConfidence: 0.45, MemoryType: memory.TypePattern}
	if !reflect.DeepEqual(h.Summary, wantFiltered) {
		t.Errorf("filtered summary = %+v, want %+v", h.Summary, wantFiltered)
	}

	for _, c := range []struct {
		req   validation.HistoryRequest
		field string
	}{
		{validation.HistoryRequest{MemoryID: m.ID, Limit: 1001}, "limit"},
		{validation.HistoryRequest{MemoryID: m.ID, Limit: -1}, "limit"},
		{validation.HistoryRequest{MemoryID: m.ID, EventType: "applied_twice"}, "event_type"},
		{validation.HistoryRequest{MemoryID: "not an id"}, "memory_id"},
	} {
		_, err := e.svc.History(e.ctx, c.req)
		if !errors.Is(err, memory.ErrInvalid) || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%+v: err = %v, want invalid %s", c.req, err, c.field)
		}
	}
	if _, err := e.svc.History(e.ctx, validation.HistoryRequest{MemoryID: "mem_1_abcdef01"}); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("unknown id: err = %v, want not found", err)
	}
	if _, err := e.svc.Outcome(e.ctx, validation.OutcomeRequest{MemoryID: "mem_1_abcdef01", Success: true}); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("outcome on unknown id: err = %v, want not found", err)
	}
}

// Two processes (two handles on one file) recording outcomes at once lose none.
func TestConcurrentOutcomesLoseNoUpdate(t *testing.T) {
	e := newEnv(t, validation.Options{})
	m := e.remember("Session: long-running notes.", memory.TypeSession, "global")
	e.setConfidence(m.ID, 0)
	second := e.newService(e.open(), validation.Options{})

	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for i := range 10 {
		svc := e.svc
		if i%2 == 1 {
			svc = second
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := svc.Outcome(e.ctx, validation.OutcomeRequest{MemoryID: m.ID, Success: true})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := e.get(m.ID).Confidence; got != 1 {
		t.Errorf("confidence after 10 concurrent successes from 0 = %v, want 1", got)
	}
	h, _ := e.svc.History(e.ctx, validation.HistoryRequest{MemoryID: m.ID})
	seen := map[float64]bool{}
	for _, ev := range h.Events {
		if seen[ev.ConfidenceBefore] {
			t.Errorf("two outcomes both started from %v: an update was lost", ev.ConfidenceBefore)
		}
		seen[ev.ConfidenceBefore] = true
	}
	if h.Summary.Succeeded != 10 {
		t.Errorf("succeeded events = %d, want 10", h.Summary.Succeeded)
	}
}

func TestDemotedGoldenRuleIsNotPromotedAgain(t *testing.T) {
	e := newEnv(t, validation.Options{})
	pref := e.remember("You MUST use tabs for indentation in Go files.", memory.TypePreference, "global")
	e.setConfidence(pref.ID, 0.85)
	if !e.outcome(pref.ID, true, "").Promoted {
		t.Fatal("not promoted at 0.95")
	}
	m, err := e.mem.Demote(e.ctx, memory.DemoteRequest{MemoryID: pref.ID, Reason: "spaces since the formatter change", By: "viewer"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Type != memory.TypePreference {
		t.Fatalf("demoted to %s, want the type it was promoted from", m.Type)
	}
	if res := e.outcome(pref.ID, true, ""); res.Promoted || res.MemoryType != memory.TypePreference {
		t.Errorf("after demotion a success promoted it again: %+v", res)
	}
	// The audit trail holds the automatic promotion and the person's demotion.
	audit, err := e.mem.GoldenAudit(e.ctx, []string{"global"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range audit {
		got = append(got, fmt.Sprintf("%s by %s: %s %v", c.Action, c.Source, c.Reason, c.Fields))
	}
	want := "[demote by viewer: spaces since the formatter change [{memory_type golden_rule preference}] " +
		"promote by curation: automatic: confidence reached 0.95 (a preference reaching 0.9 becomes a golden rule) [{memory_type preference golden_rule} {confidence 0.85 0.95}]]"
	if fmt.Sprint(got) != want {
		t.Errorf("audit trail\n%v\nwant\n%s", got, want)
	}
}
