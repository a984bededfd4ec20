package server

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-mcp/recall/internal/describe"
	"github.com/recall-mcp/recall/memory"
)

type storeArgs struct {
	Content    string         `json:"content" jsonschema:"what to remember; state rules with MUST/SHOULD/MAY"`
	MemoryType string         `json:"memory_type,omitempty" jsonschema:"preference, decision, pattern, session, file_context, golden_rule"`
	Namespace  string         `json:"namespace,omitempty" jsonschema:"\"global\" (default) or \"project:<name>\""`
	Importance *float64       `json:"importance,omitempty" jsonschema:"0 to 1 (default 0.5)"`
	Metadata   map[string]any `json:"metadata,omitempty"`
}

type storeOutput struct {
	Success bool    `json:"success"`
	Error   *string `json:"error"`
	*memory.StoreResult
}

type recallArgs struct {
	Query            string   `json:"query"`
	NResults         int      `json:"n_results,omitempty"`
	Namespace        string   `json:"namespace,omitempty" jsonschema:"\"global\" or \"project:<name>\""`
	MemoryType       string   `json:"memory_type,omitempty" jsonschema:"preference, decision, pattern, session, file_context, golden_rule"`
	MinImportance    float64  `json:"min_importance,omitempty"`
	IncludeRelated   bool     `json:"include_related,omitempty" jsonschema:"also follow edges from the hits"`
	MaxDepth         int      `json:"max_depth,omitempty"`
	MaxExpanded      int      `json:"max_expanded,omitempty"`
	DecayFactor      float64  `json:"decay_factor,omitempty" jsonschema:"relevance kept per hop"`
	IncludeEdgeTypes []string `json:"include_edge_types,omitempty" jsonschema:"relates_to, supersedes, caused_by, contradicts"`
	ExcludeEdgeTypes []string `json:"exclude_edge_types,omitempty"`
}

type recallOutput struct {
	Success  bool             `json:"success"`
	Memories []recalledMemory `json:"memories"`
	Expanded []expandedMemory `json:"expanded"`
	Total    int              `json:"total"`
	// Score is the mean score of the direct hits (null without hits), as the
	// Python Recall reports it.
	Score      *float64 `json:"score"`
	SearchMode string   `json:"search_mode"`
	// VectorWeight is the share the vector ranking had in the fusion, 0 (it
	// counted for nothing: keyword search, or vectors that look meaningless)
	// to 1 (plain reciprocal rank fusion).
	VectorWeight   float64 `json:"vector_weight"`
	Degraded       bool    `json:"degraded"`
	DegradedReason string  `json:"degraded_reason,omitempty"`
	// PendingEmbeddings is how many memories still wait for a vector: the
	// vector side could not see them.
	PendingEmbeddings int `json:"pending_embeddings,omitempty"`
}

type forgetArgs struct {
	MemoryID  string `json:"memory_id,omitempty"`
	Query     string `json:"query,omitempty" jsonschema:"delete the best matches"`
	Input     string `json:"input,omitempty" jsonschema:"an id or a query, detected"`
	Namespace string `json:"namespace,omitempty"`
	NResults  int    `json:"n_results,omitempty"`
	Confirm   bool   `json:"confirm,omitempty" jsonschema:"false: dry run"`
	Force     bool   `json:"force,omitempty" jsonschema:"needed to delete golden rules"`
}

type forgetOutput struct {
	Success bool    `json:"success"`
	Error   *string `json:"error"`
	*memory.ForgetResult
	// WouldDelete is what confirm=true would delete, given with confirm=false.
	WouldDelete *memory.ForgetResult `json:"would_delete,omitempty"`
}

type countArgs struct {
	Namespace  string `json:"namespace,omitempty"`
	MemoryType string `json:"memory_type,omitempty"`
}

// filters echo the filters a count or list applied, as the Python Recall does.
type filters struct {
	Namespace  *string `json:"namespace"`
	MemoryType *string `json:"memory_type"`
	OrderBy    string  `json:"order_by,omitempty"`
	Descending *bool   `json:"descending,omitempty"`
}

type countOutput struct {
	Success bool    `json:"success"`
	Count   int     `json:"count"`
	Filters filters `json:"filters"`
}

type listArgs struct {
	Namespace  string `json:"namespace,omitempty"`
	MemoryType string `json:"memory_type,omitempty"`
	Limit      int    `json:"limit,omitempty" jsonschema:"1 to 1000"`
	Offset     int    `json:"offset,omitempty"`
	OrderBy    string `json:"order_by,omitempty" jsonschema:"created_at, accessed_at, importance, confidence"`
	Descending bool   `json:"descending,omitempty"`
}

type pagination struct {
	Limit   int  `json:"limit"`
	Offset  int  `json:"offset"`
	HasMore bool `json:"has_more"`
}

type listOutput struct {
	Success    bool           `json:"success"`
	Memories   []listedMemory `json:"memories"`
	Count      int            `json:"count"`
	Total      int            `json:"total"`
	Pagination pagination     `json:"pagination"`
	Filters    filters        `json:"filters"`
	Warning    string         `json:"warning,omitempty"`
}

func (h handlers) addMemoryTools(srv *mcp.Server) {
	h.addStoreTool(srv)
	h.addRecallTool(srv)
	h.addForgetTool(srv)
	h.addCountTool(srv)
	h.addListTool(srv)
}

func (h handlers) addStoreTool(srv *mcp.Server) {
	ns, importance := h.mem.StoreDefaults()
	addTool(srv, h, "memory_store_tool",
		"Store a memory (deduplicated per namespace). Returns id, content_hash, auto_relationships (relationships are inferred in the background; memory_inspect_graph_tool shows them later).",
		map[string]any{"memory_type": string(memory.TypeSession), "namespace": ns, "importance": importance},
		func(ctx context.Context, a storeArgs) (storeOutput, error) {
			res, err := h.mem.Remember(ctx, memory.StoreRequest{
				Content:    a.Content,
				Type:       memory.Type(a.MemoryType),
				Namespace:  a.Namespace,
				Importance: a.Importance,
				Metadata:   a.Metadata,
			})
			return storeOutput{Success: err == nil, StoreResult: res}, err
		})
}

func (h handlers) addRecallTool(srv *mcp.Server) {
	addTool(srv, h, "memory_recall_tool",
		"Search memories by meaning and keywords, optionally expanding along graph edges.",
		map[string]any{"n_results": 5, "include_related": false, "max_depth": 1, "max_expanded": 20, "decay_factor": 0.7},
		func(ctx context.Context, a recallArgs) (recallOutput, error) {
			res, err := h.mem.Recall(ctx, memory.RecallRequest{
				Query:            a.Query,
				NResults:         a.NResults,
				Namespace:        a.Namespace,
				Type:             memory.Type(a.MemoryType),
				MinImportance:    a.MinImportance,
				IncludeRelated:   a.IncludeRelated,
				MaxDepth:         a.MaxDepth,
				MaxExpanded:      a.MaxExpanded,
				DecayFactor:      a.DecayFactor,
				IncludeEdgeTypes: relations(a.IncludeEdgeTypes),
				ExcludeEdgeTypes: relations(a.ExcludeEdgeTypes),
			})
			if err != nil {
				return recallOutput{}, err
			}
			return recallOutput{
				Success:  true,
				Memories: recalled(res.Memories),
				Expanded: expandedView(res.Memories, res.Expanded),
				Total:    len(res.Memories), // the direct hits, as the Python Recall counts

				Score:          meanScore(res.Memories),
				SearchMode:     res.SearchMode,
				VectorWeight:   res.VectorWeight,
				Degraded:       res.Degraded,
				DegradedReason: res.Reason,

				PendingEmbeddings: res.PendingEmbeddings,
			}, nil
		})
}

func (h handlers) addForgetTool(srv *mcp.Server) {
	addTool(srv, h, "memory_forget_tool",
		"Delete memories by memory_id, query or input. Golden rules need force=true. confirm=false deletes nothing and fails, listing would_delete.",
		map[string]any{"n_results": 5, "confirm": true, "force": false},
		func(ctx context.Context, a forgetArgs) (forgetOutput, error) {
			res, err := h.mem.Forget(ctx, memory.ForgetRequest{
				MemoryID:  a.MemoryID,
				Query:     a.Query,
				Input:     a.Input,
				Namespace: a.Namespace,
				NResults:  a.NResults,
				Confirm:   a.Confirm,
				Force:     a.Force,
			})
			if err != nil {
				return forgetOutput{}, err
			}
			if !a.Confirm {
				return notConfirmed(res)
			}
			if len(res.Protected) > 0 && res.DeletedCount == 0 {
				return forgetOutput{}, fmt.Errorf("refused to delete golden rules %v: %w; pass force=true to delete them", res.Protected, memory.ErrProtected)
			}
			return forgetOutput{Success: true, ForgetResult: res}, nil
		})
}

// notConfirmed is forget's answer to confirm=false: the Python Recall's failure
// "Deletion not confirmed", with the selection a confirmed call would delete.
func notConfirmed(selection *memory.ForgetResult) (forgetOutput, error) {
	msg := fmt.Sprintf("Deletion not confirmed: nothing was deleted; confirm=true would delete %s %v", describe.Count(len(selection.DeletedIDs), "memory", "memories"), selection.DeletedIDs)
	if len(selection.Protected) > 0 {
		msg += fmt.Sprintf(" (golden rules %v need force=true)", selection.Protected)
	}
	if selection.Message != "" {
		msg += "; " + selection.Message
	}
	out := forgetOutput{
		Error: &msg,
		ForgetResult: &memory.ForgetResult{DeletedIDs: []string{}, Deleted: []memory.ForgottenMemory{}, Mode: selection.Mode,
			DryRun: true, Message: "nothing deleted: confirm=false"},
		WouldDelete: selection,
	}
	return out, failedWith(msg)
}

func (h handlers) addCountTool(srv *mcp.Server) {
	addTool(srv, h, "memory_count_tool",
		"Count memories, optionally by namespace and memory_type.",
		nil,
		func(ctx context.Context, a countArgs) (countOutput, error) {
			n, err := h.mem.Count(ctx, memory.CountRequest{Namespace: a.Namespace, Type: memory.Type(a.MemoryType)})
			if err != nil {
				return countOutput{}, err
			}
			return countOutput{Success: true, Count: n, Filters: filters{Namespace: optional(a.Namespace), MemoryType: optional(a.MemoryType)}}, nil
		})
}

func (h handlers) addListTool(srv *mcp.Server) {
	addTool(srv, h, "memory_list_tool",
		"List memories with filters and pagination.",
		map[string]any{"limit": 100, "offset": 0, "order_by": string(memory.OrderCreatedAt), "descending": true},
		func(ctx context.Context, a listArgs) (listOutput, error) {
			desc := a.Descending
			limit, warning := clampLimit(a.Limit)
			// Superseded memories are listed, as count counts them (and as the
			// Python Recall, which has no superseding, lists everything).
			res, err := h.mem.List(ctx, memory.ListRequest{
				Namespace:         a.Namespace,
				Type:              memory.Type(a.MemoryType),
				Limit:             limit,
				Offset:            a.Offset,
				OrderBy:           a.OrderBy,
				Descending:        &desc,
				IncludeSuperseded: true,
			})
			if err != nil {
				return listOutput{}, err
			}
			return listOutput{
				Success:    true,
				Memories:   listed(res.Memories),
				Count:      res.Count,
				Total:      res.Total,
				Pagination: pagination{Limit: res.Limit, Offset: res.Offset, HasMore: res.HasMore},
				Filters: filters{
					Namespace:  optional(a.Namespace),
					MemoryType: optional(a.MemoryType),
					OrderBy:    a.OrderBy,
					Descending: &desc,
				},
				Warning: warning,
			}, nil
		})
}

// clampLimit lowers a list limit above the maximum to the maximum, as the
// Python Recall does, and says so.
func clampLimit(limit int) (int, string) {
	if limit > memory.MaxListLimit {
		return memory.MaxListLimit, fmt.Sprintf("limit %d is above the maximum; %d used", limit, memory.MaxListLimit)
	}
	return limit, ""
}

// relations converts relation names; the service validates them.
func relations(names []string) []memory.Relation {
	if names == nil {
		return nil
	}
	out := make([]memory.Relation, len(names))
	for i, n := range names {
		out[i] = memory.Relation(n)
	}
	return out
}

// meanScore is the average score of hits, nil when there are none.
func meanScore(hits []memory.ScoredMemory) *float64 {
	if len(hits) == 0 {
		return nil
	}
	var sum float64
	for _, m := range hits {
		sum += m.Score
	}
	mean := sum / float64(len(hits))
	return &mean
}

// optional is nil for an empty filter, so results show null like the Python Recall.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
