package validation

import (
	"time"

	"github.com/recall-mcp/recall/memory"
)

// Requests and results of the curation operations. Their JSON names are the MCP
// tools' parameter and result fields (see the tool table of the design), so the
// server can decode arguments into them and pass results through unchanged.
// Pointer fields tell an absent value (take the default) from an explicit false
// or zero.

// ApplyRequest records that a memory is being applied (TRY).
type ApplyRequest struct {
	MemoryID  string `json:"memory_id"`
	Context   string `json:"context"`
	SessionID string `json:"session_id,omitempty"`
}

// ApplyResult names the recorded applied event.
type ApplyResult struct {
	EventID    int64   `json:"event_id"`
	MemoryID   string  `json:"memory_id"`
	Confidence float64 `json:"confidence"`
}

// OutcomeRequest records how applying a memory went (LEARN).
type OutcomeRequest struct {
	MemoryID  string `json:"memory_id"`
	Success   bool   `json:"success"`
	ErrorMsg  string `json:"error_msg,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	// Source is where the call came from (memory.SourceMCP, ...), recorded
	// with a promotion it causes; not a tool parameter.
	Source string `json:"-"`
}

// OutcomeResult reports the confidence change an outcome caused.
type OutcomeResult struct {
	MemoryID       string `json:"memory_id"`
	OutcomeSuccess bool   `json:"outcome_success"`
	ConfidenceChange
}

// ValidateRequest adjusts a memory's confidence directly. Adjustment nil takes
// 0.1; success adds it, failure subtracts 1.5 times it.
type ValidateRequest struct {
	MemoryID   string   `json:"memory_id"`
	Success    bool     `json:"success"`
	Adjustment *float64 `json:"adjustment,omitempty"`
	Source     string   `json:"-"` // as in OutcomeRequest
}

// ValidateResult reports the confidence change.
type ValidateResult struct {
	MemoryID string `json:"memory_id"`
	Success  bool   `json:"success"`
	ConfidenceChange
}

// ConfidenceChange is what one confidence adjustment did: the confidence
// before and after, whether it made the memory a golden rule, its type
// after, and the validation event that records it.
type ConfidenceChange struct {
	OldConfidence float64     `json:"old_confidence"`
	NewConfidence float64     `json:"new_confidence"`
	Promoted      bool        `json:"promoted"`
	MemoryType    memory.Type `json:"memory_type"`
	EventID       int64       `json:"event_id"`
}

// HistoryRequest lists a memory's validation events. EventType empty means all
// (applied, succeeded, failed); Limit 0 takes 50, at most 1000.
type HistoryRequest struct {
	MemoryID  string `json:"memory_id"`
	EventType string `json:"event_type,omitempty"`
	Limit     int    `json:"limit,omitempty"`
}

// HistoryResult is the events (newest first) and a summary of those events.
type HistoryResult struct {
	MemoryID string                   `json:"memory_id"`
	Events   []memory.ValidationEvent `json:"events"`
	Count    int                      `json:"count"`
	Summary  HistorySummary           `json:"summary"`
}

// HistorySummary counts a memory's events. SuccessRate is
// succeeded / (succeeded + failed), nil when there is no outcome yet.
type HistorySummary struct {
	TotalEvents       int         `json:"total_events"`
	Applied           int         `json:"applied"`
	Succeeded         int         `json:"succeeded"`
	Failed            int         `json:"failed"`
	SuccessRate       *float64    `json:"success_rate"`
	CurrentConfidence float64     `json:"current_confidence"`
	MemoryType        memory.Type `json:"memory_type"`
}

// DetectRequest looks for memories that contradict one memory.
// SimilarityThreshold nil takes 0.7; CreateEdges nil means true.
type DetectRequest struct {
	MemoryID            string   `json:"memory_id"`
	SimilarityThreshold *float64 `json:"similarity_threshold,omitempty"`
	CreateEdges         *bool    `json:"create_edges,omitempty"`
}

// DetectResult lists the confirmed contradictions and the judgments that
// failed (model missing, timeout, unparsable reply).
type DetectResult struct {
	MemoryID          string           `json:"memory_id"`
	Contradictions    []Contradiction  `json:"contradictions"`
	CandidatesChecked int              `json:"candidates_checked"`
	EdgesCreated      int              `json:"edges_created"`
	FailedJudgments   []FailedJudgment `json:"failed_judgments"`
	// Skipped says why nothing could be checked (no embedding model, no vector).
	Skipped string `json:"skipped,omitempty"`
}

// Contradiction is one memory confirmed by the chat model to contradict.
type Contradiction struct {
	MemoryID   string  `json:"memory_id"`
	Content    string  `json:"content"`
	Similarity float64 `json:"similarity"`
	Confidence float64 `json:"confidence"`
	Reason     string  `json:"reason"`
	EdgeID     int64   `json:"edge_id,omitempty"`
}

// FailedJudgment is a pair the chat model could not judge, and why.
type FailedJudgment struct {
	MemoryID string `json:"memory_id"`
	Reason   string `json:"reason"`
}

// SupersedeRequest asks whether a memory supersedes an older one on the same
// topic. CreateEdge nil means true.
type SupersedeRequest struct {
	MemoryID   string `json:"memory_id"`
	CreateEdge *bool  `json:"create_edge,omitempty"`
}

// SupersedeResult names the superseded memory, if any, and why.
type SupersedeResult struct {
	MemoryID          string           `json:"memory_id"`
	SupersededID      string           `json:"superseded_id,omitempty"`
	EdgeCreated       bool             `json:"edge_created"`
	EdgeID            int64            `json:"edge_id,omitempty"`
	Reason            string           `json:"reason"`
	CandidatesChecked int              `json:"candidates_checked"`
	FailedJudgments   []FailedJudgment `json:"failed_judgments"`
}

// HealthRequest analyses the memories of a namespace (all when empty). The
// Include flags default to true; StaleDays 0 takes 30.
type HealthRequest struct {
	Namespace             string `json:"namespace,omitempty"`
	IncludeContradictions *bool  `json:"include_contradictions,omitempty"`
	IncludeLowConfidence  *bool  `json:"include_low_confidence,omitempty"`
	IncludeStale          *bool  `json:"include_stale,omitempty"`
	StaleDays             int    `json:"stale_days,omitempty"`
}

// HealthReport lists what needs attention and what to do about it.
type HealthReport struct {
	Namespace       string              `json:"namespace,omitempty"`
	Counts          HealthCounts        `json:"counts"`
	Contradictions  []ContradictionPair `json:"contradictions"`
	LowConfidence   []MemoryBrief       `json:"low_confidence"`
	Stale           []MemoryBrief       `json:"stale"`
	WeakGoldenRules []MemoryBrief       `json:"weak_golden_rules"`
	Recommendations []string            `json:"recommendations"`
	CheckedAt       time.Time           `json:"checked_at"`
}

// HealthCounts summarises a health report.
type HealthCounts struct {
	Memories       int `json:"total_memories"`
	GoldenRules    int `json:"golden_rules"`
	Contradictions int `json:"unresolved_contradictions"`
	LowConfidence  int `json:"low_confidence"`
	Stale          int `json:"stale"`
	Superseded     int `json:"superseded"`
}

// ContradictionPair is an unresolved contradicts edge: neither side is
// superseded.
type ContradictionPair struct {
	EdgeID   int64       `json:"edge_id"`
	SourceID string      `json:"source_id"`
	TargetID string      `json:"target_id"`
	Source   MemoryBrief `json:"source"`
	Target   MemoryBrief `json:"target"`
}

// MemoryBrief is a memory as a health report shows it.
type MemoryBrief struct {
	ID             string      `json:"id"`
	Content        string      `json:"content_preview"`
	Type           memory.Type `json:"memory_type"`
	Namespace      string      `json:"namespace"`
	Confidence     float64     `json:"confidence"`
	LastValidated  *time.Time  `json:"last_validated,omitempty"`
	AccessedAt     time.Time   `json:"accessed_at"`
	DaysSinceCheck int         `json:"days_since_validation,omitempty"`
}

// ContextRequest builds the context to inject into an agent's session.
// Project is a name or "project:<name>"; TokenBudget 0 takes the default.
type ContextRequest struct {
	Query       string `json:"query,omitempty"`
	Project     string `json:"project,omitempty"`
	TokenBudget int    `json:"token_budget,omitempty"`
	// SkipAccessUpdate builds the context without counting an access to the
	// memories in it: a person looking at what would be injected (the viewer)
	// is not a session using them.
	SkipAccessUpdate bool `json:"-"`
}

// ContextResult is the markdown context and its estimated size in tokens.
type ContextResult struct {
	Context       string   `json:"context"`
	TokenEstimate int      `json:"token_estimate"`
	MemoryIDs     []string `json:"memory_ids"`
	GoldenRules   int      `json:"golden_rules"`
	// Truncated is true when relevant memories were left out for the budget.
	Truncated bool `json:"truncated"`
}
