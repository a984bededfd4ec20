package server

import (
	"math"
	"time"

	"github.com/recall-mcp/recall/validation"
)

// The Python Recall's health report: contradictions, low_confidence and stale
// items with a recommendation each, and a summary of critical issues
// (contradictions) and warnings (everything else). Our counts and
// recommendations stay beside them.

type healthContradiction struct {
	MemoryAID      string `json:"memory_a_id"`
	MemoryAContent string `json:"memory_a_content"`
	MemoryBID      string `json:"memory_b_id"`
	MemoryBContent string `json:"memory_b_content"`
	Recommendation string `json:"recommendation"`
	EdgeID         int64  `json:"edge_id"`
}

type healthItem struct {
	MemoryID        string  `json:"memory_id"`
	Content         string  `json:"content"`
	Type            string  `json:"type"`
	Namespace       string  `json:"namespace"`
	Confidence      float64 `json:"confidence"`
	DaysSinceAccess int     `json:"days_since_access"`
	Recommendation  string  `json:"recommendation"`
}

type healthSummary struct {
	TotalIssues int `json:"total_issues"`
	Critical    int `json:"critical"`
	Warnings    int `json:"warnings"`
}

type healthOutput struct {
	Success         bool                    `json:"success"`
	Contradictions  []healthContradiction   `json:"contradictions"`
	LowConfidence   []healthItem            `json:"low_confidence"`
	Stale           []healthItem            `json:"stale"`
	WeakGoldenRules []healthItem            `json:"weak_golden_rules"`
	Summary         healthSummary           `json:"summary"`
	Counts          validation.HealthCounts `json:"counts"`
	Recommendations []string                `json:"recommendations"`
	Namespace       *string                 `json:"namespace"`
	CheckedAt       string                  `json:"checked_at"`
}

// The Python Recall's recommendations, word for word.
const (
	recommendResolve  = "Resolve contradiction by validating or deleting one memory"
	recommendDelete   = "Consider deleting this memory"
	recommendValidate = "Validate or delete this memory"
	recommendRestore  = "Validate this golden rule or demote it"
)

func healthOf(r *validation.HealthReport) healthOutput {
	out := healthOutput{
		Success:         true,
		Contradictions:  make([]healthContradiction, len(r.Contradictions)),
		LowConfidence:   healthItems(r.LowConfidence, recommendDelete, r.CheckedAt),
		Stale:           healthItems(r.Stale, recommendValidate, r.CheckedAt),
		WeakGoldenRules: healthItems(r.WeakGoldenRules, recommendRestore, r.CheckedAt),
		Counts:          r.Counts,
		Recommendations: r.Recommendations,
		Namespace:       optional(r.Namespace),
		CheckedAt:       isoTime(r.CheckedAt),
	}
	for i, c := range r.Contradictions {
		out.Contradictions[i] = healthContradiction{
			MemoryAID: c.SourceID, MemoryAContent: c.Source.Content,
			MemoryBID: c.TargetID, MemoryBContent: c.Target.Content,
			Recommendation: recommendResolve, EdgeID: c.EdgeID,
		}
	}
	// Counts, not list lengths: the lists are capped, the summary is not.
	out.Summary.Critical = r.Counts.Contradictions
	out.Summary.Warnings = r.Counts.LowConfidence + r.Counts.Stale + len(r.WeakGoldenRules)
	out.Summary.TotalIssues = out.Summary.Critical + out.Summary.Warnings
	return out
}

func healthItems(briefs []validation.MemoryBrief, recommendation string, now time.Time) []healthItem {
	out := make([]healthItem, len(briefs))
	for i, b := range briefs {
		out[i] = healthItem{
			MemoryID: b.ID, Content: b.Content, Type: string(b.Type), Namespace: b.Namespace, Confidence: b.Confidence,
			DaysSinceAccess: int(math.Floor(now.Sub(b.AccessedAt).Hours() / 24)),
			Recommendation:  recommendation,
		}
	}
	return out
}
