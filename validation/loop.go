package validation

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// The validation loop: TRY (Apply) records that a memory is being used, LEARN
// (Outcome) moves its confidence by the result, Validate adjusts it directly,
// History shows the record. Every confidence change is a read-modify-write
// inside store.UpdateMemoryWithEvent, one write transaction, so two processes recording
// outcomes at once never lose one another's change.
//
// Promotion: when a preference, decision or pattern reaches a confidence of
// memory.GoldenRuleThreshold (0.9) it becomes a golden_rule; its old type is kept
// in metadata.promoted_from and the time in metadata.promoted_at. Other types
// never promote. A golden rule stays golden when its confidence later falls:
// it keeps its protection (forget needs force) and its place in every context,
// and AnalyzeHealth lists it under weak_golden_rules with a recommendation to
// review it, so a person decides rather than a single failed outcome.

// Limits of the loop's inputs.
const (
	DefaultAdjustment   = 0.1
	failurePenalty      = 1.5 // Validate subtracts 1.5 x adjustment on failure
	DefaultHistoryLimit = 50
	MaxHistoryLimit     = 1000
	maxContextBytes     = 4 * 1024
	maxErrorMsgBytes    = 4 * 1024
)

// Apply records that a memory is being applied: an applied event with the
// context and session, and the memory's access time and count updated.
func (s *Service) Apply(ctx context.Context, req ApplyRequest) (*ApplyResult, error) {
	if err := checkEvent(req.MemoryID, "context", req.Context, maxContextBytes, req.SessionID); err != nil {
		return nil, err
	}
	m, err := s.store.GetMemory(ctx, req.MemoryID)
	if err != nil {
		return nil, err
	}
	now := s.now()
	id, err := s.store.AddEvent(ctx, &memory.ValidationEvent{
		MemoryID:         m.ID,
		EventType:        memory.EventApplied,
		Context:          strings.TrimSpace(req.Context),
		SessionID:        strings.TrimSpace(req.SessionID),
		ConfidenceBefore: m.Confidence,
		ConfidenceAfter:  m.Confidence,
		CreatedAt:        now,
	})
	if err != nil {
		return nil, fmt.Errorf("recording applied event: %w", err)
	}
	if err := s.store.TouchMemories(ctx, []string{m.ID}, now); err != nil {
		// Bookkeeping: the applied event is recorded, which is what counts.
		s.log().Warn("access time not updated", "memory_id", m.ID, "err", err)
	}
	return &ApplyResult{EventID: id, MemoryID: m.ID, Confidence: m.Confidence}, nil
}

// checkEvent checks what an applied or outcome event is given: the memory's
// id, its text (the context or the error message) and the session's id.
func checkEvent(memoryID, field, text string, maxBytes int, sessionID string) error {
	if err := memory.ValidateID("memory_id", memoryID); err != nil {
		return err
	}
	if err := checkOptionalText(field, text, maxBytes); err != nil {
		return err
	}
	return memory.CheckLine("session_id", sessionID, memory.MaxSessionIDBytes)
}

// Outcome records how applying a memory went: success adds memory.SuccessDelta
// (0.1), failure subtracts memory.FailureDelta (0.15), clamped to [0, 1], with a
// succeeded or failed event carrying the error message and the confidence
// before and after.
func (s *Service) Outcome(ctx context.Context, req OutcomeRequest) (*OutcomeResult, error) {
	if err := checkEvent(req.MemoryID, "error_msg", req.ErrorMsg, maxErrorMsgBytes, req.SessionID); err != nil {
		return nil, err
	}
	delta := memory.SuccessDelta
	if !req.Success {
		delta = -memory.FailureDelta
	}
	ch, err := s.adjust(ctx, req.MemoryID, delta, req.Success, "", strings.TrimSpace(req.ErrorMsg), strings.TrimSpace(req.SessionID), req.Source)
	if err != nil {
		return nil, err
	}
	return &OutcomeResult{MemoryID: req.MemoryID, OutcomeSuccess: req.Success, ConfidenceChange: ch}, nil
}

// Validate adjusts a memory's confidence directly: success adds adjustment
// (default 0.1), failure subtracts 1.5 x adjustment, clamped to [0, 1]. The
// change is recorded as a succeeded or failed event whose context says it came
// from memory_validate_tool, so History and health see it.
func (s *Service) Validate(ctx context.Context, req ValidateRequest) (*ValidateResult, error) {
	if err := memory.ValidateID("memory_id", req.MemoryID); err != nil {
		return nil, err
	}
	adj := DefaultAdjustment
	if req.Adjustment != nil {
		adj = *req.Adjustment
		if math.IsNaN(adj) || math.IsInf(adj, 0) || adj <= 0 || adj > 1 {
			return nil, memory.Invalidf("adjustment", adj, "a number greater than 0 and at most 1 (default 0.1)")
		}
	}
	delta := adj
	if !req.Success {
		delta = -failurePenalty * adj
	}
	note := fmt.Sprintf("memory_validate_tool: adjustment %s", formatConfidence(adj))
	ch, err := s.adjust(ctx, req.MemoryID, delta, req.Success, note, "", "", req.Source)
	if err != nil {
		return nil, err
	}
	return &ValidateResult{MemoryID: req.MemoryID, Success: req.Success, ConfidenceChange: ch}, nil
}

// adjust moves a memory's confidence by delta, promotes it when it qualifies and
// records the event, all in one transaction. A promotion is recorded in the
// change log as coming from source, the caller whose success caused it
// (memory.SourceCuration when not known).
func (s *Service) adjust(ctx context.Context, id string, delta float64, success bool, note, errMsg, session, source string) (ConfidenceChange, error) {
	if source == "" {
		source = memory.SourceCuration
	}
	var ch ConfidenceChange
	now := s.now()
	m, eventID, err := s.store.UpdateMemoryWithEvent(ctx, id, func(m *memory.Memory) (*memory.ValidationEvent, *memory.Change, error) {
		ch.OldConfidence = m.Confidence
		m.Confidence = clampUnit(round4(m.Confidence + delta))
		ch.NewConfidence = m.Confidence
		from := m.Type
		ch.Promoted = promote(m, now)
		m.UpdatedAt = now
		ev := &memory.ValidationEvent{
			EventType:        memory.EventSucceeded,
			Context:          note,
			ErrorMsg:         errMsg,
			SessionID:        session,
			ConfidenceBefore: ch.OldConfidence,
			ConfidenceAfter:  ch.NewConfidence,
			CreatedAt:        now,
		}
		if !success {
			ev.EventType = memory.EventFailed
		}
		if !ch.Promoted {
			return ev, nil, nil
		}
		return ev, &memory.Change{
			At: now, Action: memory.ChangePromote, Source: source,
			Reason: fmt.Sprintf("automatic: confidence reached %s (a %s reaching %s becomes a golden rule)",
				formatConfidence(ch.NewConfidence), from, formatConfidence(memory.GoldenRuleThreshold)),
			Fields: []memory.FieldChange{
				{Field: "memory_type", Before: string(from), After: string(memory.TypeGoldenRule)},
				{Field: "confidence", Before: ch.OldConfidence, After: ch.NewConfidence},
			},
		}, nil
	})
	if err != nil {
		return ch, err
	}
	ch.MemoryType = m.Type
	ch.EventID = eventID
	if ch.Promoted {
		s.log().Info("memory promoted to golden rule", "memory_id", id, "from", m.Metadata["promoted_from"], "confidence", ch.NewConfidence)
	}
	return ch, nil
}

// promote turns a promotable memory that reached the threshold into a golden
// rule and reports whether it did. A memory a person demoted
// (metadata.demoted_at, memory.Service.Demote) is not promoted again
// automatically; a person may (memory.Service.Promote).
func promote(m *memory.Memory, now time.Time) bool {
	if !m.Type.Promotable() || m.Confidence < memory.GoldenRuleThreshold {
		return false
	}
	if _, demoted := m.Metadata["demoted_at"]; demoted {
		return false
	}
	if m.Metadata == nil {
		m.Metadata = map[string]any{}
	}
	m.Metadata["promoted_from"] = string(m.Type)
	m.Metadata["promoted_at"] = now.UTC().Format(time.RFC3339)
	m.Type = memory.TypeGoldenRule
	return true
}

// History lists a memory's validation events, newest first, optionally of one
// type, with a summary over all its events.
func (s *Service) History(ctx context.Context, req HistoryRequest) (*HistoryResult, error) {
	if err := memory.ValidateID("memory_id", req.MemoryID); err != nil {
		return nil, err
	}
	var typ memory.EventType
	if req.EventType != "" {
		t, err := memory.ParseEventType(req.EventType)
		if err != nil {
			return nil, err
		}
		typ = t
	}
	limit := req.Limit
	if limit == 0 {
		limit = DefaultHistoryLimit
	}
	if limit < 1 || limit > MaxHistoryLimit {
		return nil, memory.Invalidf("limit", req.Limit, fmt.Sprintf("an integer from 1 to %d (default %d)", MaxHistoryLimit, DefaultHistoryLimit))
	}
	m, err := s.store.GetMemory(ctx, req.MemoryID)
	if err != nil {
		return nil, err
	}
	all, err := s.store.Events(ctx, m.ID, "", 0)
	if err != nil {
		return nil, fmt.Errorf("reading validation events: %w", err)
	}
	events := make([]memory.ValidationEvent, 0, min(limit, len(all)))
	for _, ev := range all {
		if len(events) == limit {
			break
		}
		if typ == "" || ev.EventType == typ {
			events = append(events, ev)
		}
	}
	// The summary counts the events the filters selected, as the Python
	// Recall's does: a history of failures alone reports no successes.
	sum := summarize(events)
	sum.CurrentConfidence = m.Confidence
	sum.MemoryType = m.Type
	return &HistoryResult{MemoryID: m.ID, Events: events, Count: len(events), Summary: sum}, nil
}

// summarize counts events; the success rate is succeeded / (succeeded +
// failed), nil (null) when there is no outcome, as in the Python Recall.
func summarize(events []memory.ValidationEvent) HistorySummary {
	var sum HistorySummary
	for _, ev := range events {
		switch ev.EventType {
		case memory.EventApplied:
			sum.Applied++
		case memory.EventSucceeded:
			sum.Succeeded++
		case memory.EventFailed:
			sum.Failed++
		}
	}
	sum.TotalEvents = len(events)
	if n := sum.Succeeded + sum.Failed; n > 0 {
		rate := round4(float64(sum.Succeeded) / float64(n))
		sum.SuccessRate = &rate
	}
	return sum
}

// checkOptionalText accepts empty text or text of at most maxBytes.
func checkOptionalText(field, s string, maxBytes int) error {
	if len(s) > maxBytes {
		return memory.Invalidf(field, fmt.Sprintf("of %d bytes", len(s)), fmt.Sprintf("at most %d bytes", maxBytes))
	}
	if strings.ContainsRune(s, 0) {
		return memory.Invalidf(field, "with a NUL character", "text without NUL characters")
	}
	return nil
}

func clampUnit(v float64) float64 { return max(0, min(1, v)) }

// round4 keeps confidences free of float noise (0.3 + 0.1 is 0.4, not
// 0.4000000000000001), so thresholds compare as a person expects.
func round4(v float64) float64 { return math.Round(v*10000) / 10000 }
