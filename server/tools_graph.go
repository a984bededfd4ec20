package server

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-mcp/recall/memory"
)

type inspectArgs struct {
	MemoryID      string   `json:"memory_id"`
	MaxDepth      int      `json:"max_depth,omitempty"`
	Direction     string   `json:"direction,omitempty" jsonschema:"outgoing, incoming, both"`
	EdgeTypes     []string `json:"edge_types,omitempty"`
	IncludeScores bool     `json:"include_scores,omitempty"`
	DecayFactor   float64  `json:"decay_factor,omitempty"`
	OutputFormat  string   `json:"output_format,omitempty" jsonschema:"json or mermaid"`
}

type inspectOutput struct {
	Success bool `json:"success"`
	graphView
}

type relateArgs struct {
	SourceID string  `json:"source_id"`
	TargetID string  `json:"target_id"`
	Relation string  `json:"relation" jsonschema:"relates_to, supersedes, caused_by, contradicts"`
	Weight   float64 `json:"weight,omitempty"`
	Force    bool    `json:"force,omitempty" jsonschema:"needed for supersedes when the target is a golden rule"`
}

type relateOutput struct {
	Success bool  `json:"success"`
	EdgeID  int64 `json:"edge_id"`
}

type edgeForgetArgs struct {
	EdgeID    int64  `json:"edge_id,omitempty"`
	MemoryID  string `json:"memory_id,omitempty" jsonschema:"all edges of this memory in direction"`
	Direction string `json:"direction,omitempty" jsonschema:"outgoing, incoming, both; with memory_id"`
	SourceID  string `json:"source_id,omitempty" jsonschema:"with target_id: edges between the two"`
	TargetID  string `json:"target_id,omitempty"`
	Relation  string `json:"relation,omitempty" jsonschema:"only edges of this relation"`
}

type edgeForgetOutput struct {
	Success bool    `json:"success"`
	Error   *string `json:"error"`
	*memory.EdgeForgetResult
}

func (h handlers) addGraphTools(srv *mcp.Server) {
	addTool(srv, h, "memory_inspect_graph_tool",
		"Walk the graph around a memory. Returns nodes, edges, paths, stats, and mermaid when asked.",
		map[string]any{"max_depth": 2, "direction": string(memory.DirectionBoth), "include_scores": true, "decay_factor": 0.7, "output_format": "json"},
		func(ctx context.Context, a inspectArgs) (inspectOutput, error) {
			res, err := h.mem.Inspect(ctx, memory.InspectRequest{
				MemoryID:      a.MemoryID,
				MaxDepth:      a.MaxDepth,
				Direction:     memory.Direction(a.Direction),
				EdgeTypes:     relations(a.EdgeTypes),
				IncludeScores: a.IncludeScores,
				DecayFactor:   a.DecayFactor,
				OutputFormat:  a.OutputFormat,
			})
			if err != nil {
				return inspectOutput{}, err
			}
			return inspectOutput{Success: true, graphView: graphOf(res)}, nil
		})

	addTool(srv, h, "memory_relate_tool",
		"Link two memories with a relation. Returns edge_id.",
		map[string]any{"weight": 1.0, "force": false},
		func(ctx context.Context, a relateArgs) (relateOutput, error) {
			weight := a.Weight
			id, err := h.mem.Relate(ctx, memory.RelateRequest{
				SourceID: a.SourceID,
				TargetID: a.TargetID,
				Relation: memory.Relation(a.Relation),
				Weight:   &weight,
				Force:    a.Force,
			})
			return relateOutput{Success: err == nil, EdgeID: id}, err
		})

	addTool(srv, h, "memory_edge_forget_tool",
		"Delete edges by edge_id, by memory_id (with direction), or by source_id+target_id; relation narrows.",
		map[string]any{"direction": string(memory.DirectionBoth)},
		func(ctx context.Context, a edgeForgetArgs) (edgeForgetOutput, error) {
			// direction (default both) applies to memory_id; source_id+target_id
			// keeps its meaning, edges from source to target.
			var dir memory.Direction
			if a.MemoryID != "" {
				dir = memory.Direction(a.Direction)
			}
			res, err := h.mem.ForgetEdges(ctx, memory.EdgeForgetRequest{
				EdgeID:    a.EdgeID,
				MemoryID:  a.MemoryID,
				Direction: dir,
				SourceID:  a.SourceID,
				TargetID:  a.TargetID,
				Relation:  memory.Relation(a.Relation),
			})
			return edgeForgetOutput{Success: err == nil, EdgeForgetResult: res}, err
		})
}
