package validation

import (
	"context"
	"fmt"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// Limits of a stale review.
const (
	maxStaleReview     = 500
	defaultStaleReview = 100
)

// StaleRequest asks for the memories a person should look at again: those not
// validated for Days (counted from their creation when they never were), and,
// with Below above 0, those whose confidence is under Below. Namespace empty
// takes every namespace; Days 0 takes the configured stale_days.
type StaleRequest struct {
	Namespace string
	Days      int
	Below     float64
	Limit     int // default 100, at most 500
}

// StaleMemory is one memory of a stale review and why it is there.
type StaleMemory struct {
	MemoryBrief
	CreatedAt     time.Time `json:"created_at"`
	Unvalidated   bool      `json:"unvalidated"`    // no validation for Days
	LowConfidence bool      `json:"low_confidence"` // confidence under Below
}

// StaleReport lists the memories of a stale review, the longest unchecked
// first; Total counts them all.
type StaleReport struct {
	Memories []StaleMemory `json:"memories"`
	Total    int           `json:"total"`
	Days     int           `json:"days"`
	Below    float64       `json:"below"`
}

// StaleMemories is the stale part of AnalyzeHealth with a person's own
// thresholds: the same reading of validation events, superseded memories left
// out (they no longer count), golden rules included (a person may re-validate
// or, with force, archive one).
func (s *Service) StaleMemories(ctx context.Context, req StaleRequest) (*StaleReport, error) {
	ns, err := memory.ResolveOptionalNamespace(ctx, req.Namespace)
	if err != nil {
		return nil, err
	}
	req.Namespace = ns
	if req.Days == 0 {
		req.Days = s.StaleDays()
	}
	if req.Days < 1 || req.Days > maxStaleDays {
		return nil, memory.Invalidf("days", req.Days, fmt.Sprintf("an integer from 1 to %d (default %d)", maxStaleDays, s.StaleDays()))
	}
	if req.Below < 0 || req.Below > 1 {
		return nil, memory.Invalidf("below", req.Below, "a confidence from 0 to 1 (0: no confidence threshold)")
	}
	if req.Limit == 0 {
		req.Limit = defaultStaleReview
	}
	if req.Limit < 1 || req.Limit > maxStaleReview {
		return nil, memory.Invalidf("limit", req.Limit, fmt.Sprintf("an integer from 1 to %d", maxStaleReview))
	}
	all, err := s.allMemories(ctx, req.Namespace)
	if err != nil {
		return nil, err
	}
	edges, err := s.edgesOf(ctx, idsOf(all), memory.RelationSupersedes)
	if err != nil {
		return nil, err
	}
	superseded := supersededIn(edges)
	now := s.now()
	cutoff := now.Add(-time.Duration(req.Days) * 24 * time.Hour)
	found, err := s.lastChecked(ctx, all, superseded, func(m *memory.Memory, ref time.Time) bool {
		return ref.Before(cutoff) || m.Confidence < req.Below
	})
	if err != nil {
		return nil, err
	}
	rep := &StaleReport{Memories: []StaleMemory{}, Total: len(found), Days: req.Days, Below: req.Below}
	for _, c := range found[:min(len(found), req.Limit)] {
		rep.Memories = append(rep.Memories, StaleMemory{
			MemoryBrief: brief(c.m, c.last, now), CreatedAt: c.m.CreatedAt,
			Unvalidated: c.ref.Before(cutoff), LowConfidence: c.m.Confidence < req.Below,
		})
	}
	return rep, nil
}
