package server

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

type contextArgs struct {
	Query       string `json:"query,omitempty"`
	Project     string `json:"project,omitempty" jsonschema:"project name"`
	TokenBudget int    `json:"token_budget,omitempty"`
}

type contextOutput struct {
	Success bool `json:"success"`
	*validation.ContextResult
	// Project is the project the context was built for and how it was found.
	Project projectUsed `json:"project"`
}

type validateArgs struct {
	MemoryID   string  `json:"memory_id"`
	Success    bool    `json:"success"`
	Adjustment float64 `json:"adjustment,omitempty" jsonschema:"failure subtracts 1.5x"`
}

type validateOutput struct {
	// Success is the operation's, as in the Python Recall; the outcome
	// reported is in the confidence change.
	Success bool    `json:"success"`
	Error   *string `json:"error"`
	*validation.ValidateResult
}

type applyArgs struct {
	MemoryID  string `json:"memory_id"`
	Context   string `json:"context" jsonschema:"how the memory is being used"`
	SessionID string `json:"session_id,omitempty"`
}

type applyOutput struct {
	Success bool    `json:"success"`
	Error   *string `json:"error"`
	*validation.ApplyResult
}

type outcomeArgs struct {
	MemoryID  string `json:"memory_id"`
	Success   bool   `json:"success"`
	ErrorMsg  string `json:"error_msg,omitempty"`
	SessionID string `json:"session_id,omitempty"`
}

type outcomeOutput struct {
	Success bool    `json:"success"`
	Error   *string `json:"error"`
	*validation.OutcomeResult
}

type detectArgs struct {
	MemoryID            string  `json:"memory_id"`
	SimilarityThreshold float64 `json:"similarity_threshold,omitempty"`
	CreateEdges         bool    `json:"create_edges,omitempty"`
}

// detectOutput gives contradictions as the Python Recall does, a list of
// memory ids; the judgments behind them are in contradiction_details.
type detectOutput struct {
	Success bool    `json:"success"`
	Error   *string `json:"error"`
	*validation.DetectResult
	Contradictions []string                   `json:"contradictions"`
	Details        []validation.Contradiction `json:"contradiction_details"`
}

type supersedeArgs struct {
	MemoryID   string `json:"memory_id"`
	CreateEdge bool   `json:"create_edge,omitempty"`
}

type supersedeOutput struct {
	Success bool    `json:"success"`
	Error   *string `json:"error"`
	*validation.SupersedeResult
	SupersededID *string `json:"superseded_id"` // null when none, as in the Python Recall
}

type healthArgs struct {
	Namespace             string `json:"namespace,omitempty"`
	IncludeContradictions bool   `json:"include_contradictions,omitempty"`
	IncludeLowConfidence  bool   `json:"include_low_confidence,omitempty"`
	IncludeStale          bool   `json:"include_stale,omitempty"`
	StaleDays             int    `json:"stale_days,omitempty"`
}

type historyArgs struct {
	MemoryID  string `json:"memory_id"`
	EventType string `json:"event_type,omitempty" jsonschema:"applied, succeeded, failed"`
	Limit     int    `json:"limit,omitempty"`
}

type historyOutput struct {
	Success bool `json:"success"`
	*validation.HistoryResult
}

func (h handlers) addCurationTools(srv *mcp.Server) {
	addRequestTool(srv, h, "memory_context_tool",
		"Markdown context for a session: RFC 2119 preamble, all golden rules, then relevant memories within token_budget. Without project it uses the caller's project (RECALL_PROJECT, else the client's roots) or global memories only; the result's project says which and how.",
		map[string]any{"token_budget": validation.DefaultTokenBudget},
		func(ctx context.Context, req *mcp.CallToolRequest, a contextArgs) (*mcp.CallToolResult, contextOutput, error) {
			p, ask, err := h.contextProject(ctx, req, a.Project)
			if err != nil || ask != nil {
				return ask, contextOutput{}, err
			}
			res, err := h.cur.Context(ctx, validation.ContextRequest{Query: a.Query, Project: p.Namespace, TokenBudget: a.TokenBudget})
			if err != nil {
				return nil, contextOutput{}, err
			}
			return nil, contextOutput{Success: true, ContextResult: res, Project: p}, nil
		})

	addTool(srv, h, "memory_validate_tool",
		"Adjust a memory's confidence by success or failure; promotes to golden_rule at 0.9.",
		map[string]any{"adjustment": 0.1},
		func(ctx context.Context, a validateArgs) (validateOutput, error) {
			adj := a.Adjustment
			res, err := h.cur.Validate(ctx, validation.ValidateRequest{MemoryID: a.MemoryID, Success: a.Success, Adjustment: &adj, Source: memory.SourceMCP})
			return validateOutput{Success: err == nil, ValidateResult: res}, err
		})

	addTool(srv, h, "memory_apply_tool",
		"Record that you are applying a memory (TRY). Returns event_id.",
		nil,
		func(ctx context.Context, a applyArgs) (applyOutput, error) {
			res, err := h.cur.Apply(ctx, validation.ApplyRequest{MemoryID: a.MemoryID, Context: a.Context, SessionID: a.SessionID})
			return applyOutput{Success: err == nil, ApplyResult: res}, err
		})

	addTool(srv, h, "memory_outcome_tool",
		"Record whether applying a memory worked (LEARN): confidence +0.1 or -0.15.",
		nil,
		func(ctx context.Context, a outcomeArgs) (outcomeOutput, error) {
			res, err := h.cur.Outcome(ctx, validation.OutcomeRequest{MemoryID: a.MemoryID, Success: a.Success, ErrorMsg: a.ErrorMsg, SessionID: a.SessionID, Source: memory.SourceMCP})
			return outcomeOutput{Success: err == nil, OutcomeResult: res}, err
		})

	addTool(srv, h, "memory_detect_contradictions",
		"Find similar memories the chat model judges contradictory; links them with contradicts edges.",
		map[string]any{"similarity_threshold": validation.DefaultContradictionThreshold, "create_edges": true},
		func(ctx context.Context, a detectArgs) (detectOutput, error) {
			threshold, create := a.SimilarityThreshold, a.CreateEdges
			res, err := h.cur.DetectContradictions(ctx, validation.DetectRequest{MemoryID: a.MemoryID, SimilarityThreshold: &threshold, CreateEdges: &create})
			if err != nil {
				return detectOutput{}, err
			}
			ids := make([]string, len(res.Contradictions))
			for i, c := range res.Contradictions {
				ids[i] = c.MemoryID
			}
			return detectOutput{Success: true, DetectResult: res, Contradictions: ids, Details: res.Contradictions}, nil
		})

	addTool(srv, h, "memory_check_supersedes",
		"Check whether a memory supersedes an older one on the same topic. Returns superseded_id, edge_created, reason.",
		map[string]any{"create_edge": true},
		func(ctx context.Context, a supersedeArgs) (supersedeOutput, error) {
			create := a.CreateEdge
			res, err := h.cur.CheckSupersedes(ctx, validation.SupersedeRequest{MemoryID: a.MemoryID, CreateEdge: &create})
			if err != nil {
				return supersedeOutput{}, err
			}
			return supersedeOutput{Success: true, SupersedeResult: res, SupersededID: optional(res.SupersededID)}, nil
		})

	addTool(srv, h, "memory_analyze_health",
		"Report contradictions, low-confidence and stale memories, with recommendations.",
		map[string]any{"include_contradictions": true, "include_low_confidence": true, "include_stale": true, "stale_days": h.cur.StaleDays()},
		func(ctx context.Context, a healthArgs) (healthOutput, error) {
			c, l, s := a.IncludeContradictions, a.IncludeLowConfidence, a.IncludeStale
			res, err := h.cur.AnalyzeHealth(ctx, validation.HealthRequest{
				Namespace:             a.Namespace,
				IncludeContradictions: &c,
				IncludeLowConfidence:  &l,
				IncludeStale:          &s,
				StaleDays:             a.StaleDays,
			})
			if err != nil {
				return healthOutput{}, err
			}
			return healthOf(res), nil
		})

	addTool(srv, h, "validation_history_tool",
		"A memory's validation events and summary with success_rate.",
		map[string]any{"limit": 50},
		func(ctx context.Context, a historyArgs) (historyOutput, error) {
			res, err := h.cur.History(ctx, validation.HistoryRequest{MemoryID: a.MemoryID, EventType: a.EventType, Limit: a.Limit})
			return historyOutput{Success: err == nil, HistoryResult: res}, err
		})
}
