package server

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// The result shapes of the Python Recall. A client written for it reads these
// field names; our own names stay beside them where they add something
// (memory_type next to type, relation next to edge_type).

// isoTime is a time as the Python Recall's recall results give it
// (datetime.isoformat(), microseconds), in UTC with the offset written out so
// that datetime.fromisoformat reads it back exactly.
func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000-07:00") }

// epochTime is a time as the Python Recall's list results give it: seconds
// since the epoch, the REAL its database stores.
func epochTime(t time.Time) float64 { return float64(t.UnixMicro()) / 1e6 }

// memoryRow is the fields every memory result of the Python Recall starts
// with.
type memoryRow struct {
	ID          string `json:"id"`
	Content     string `json:"content"`
	ContentHash string `json:"content_hash"`
	typed
	Importance float64 `json:"importance"`
	Confidence float64 `json:"confidence"`
}

// typed is a memory's type, twice (the Python Recall names it both ways),
// and its namespace.
type typed struct {
	Type       memory.Type `json:"type"`
	MemoryType memory.Type `json:"memory_type"`
	Namespace  string      `json:"namespace"`
}

func typeOf(t memory.Type, namespace string) typed {
	return typed{Type: t, MemoryType: t, Namespace: namespace}
}

func rowOf(m *memory.Memory) memoryRow {
	return memoryRow{ID: m.ID, Content: m.Content, ContentHash: m.ContentHash, typed: typeOf(m.Type, m.Namespace),
		Importance: m.Importance, Confidence: m.Confidence}
}

// listedMemory is a memory as memory_list_tool returns it: the Python Recall's
// database row (times as epoch seconds, metadata null when empty).
type listedMemory struct {
	memoryRow
	CreatedAt   float64        `json:"created_at"`
	UpdatedAt   float64        `json:"updated_at"`
	AccessedAt  float64        `json:"accessed_at"`
	AccessCount int            `json:"access_count"`
	Metadata    map[string]any `json:"metadata"`
}

func listed(ms []*memory.Memory) []listedMemory {
	out := make([]listedMemory, len(ms))
	for i, m := range ms {
		out[i] = listedMemory{
			memoryRow: rowOf(m),
			CreatedAt: epochTime(m.CreatedAt), UpdatedAt: epochTime(m.UpdatedAt), AccessedAt: epochTime(m.AccessedAt),
			AccessCount: m.AccessCount, Metadata: nilIfEmpty(m.Metadata),
		}
	}
	return out
}

// recalledMemory is a direct hit of memory_recall_tool (times in ISO form).
type recalledMemory struct {
	memoryRow
	CreatedAt        string         `json:"created_at"`
	AccessedAt       string         `json:"accessed_at"`
	AccessCount      int            `json:"access_count"`
	Metadata         map[string]any `json:"metadata"`
	Score            float64        `json:"score"`
	EmbeddingPending bool           `json:"embedding_pending,omitempty"`
}

func recalled(hits []memory.ScoredMemory) []recalledMemory {
	out := make([]recalledMemory, len(hits))
	for i, h := range hits {
		m := h.Memory
		out[i] = recalledMemory{
			memoryRow: rowOf(m),
			CreatedAt: isoTime(m.CreatedAt), AccessedAt: isoTime(m.AccessedAt),
			AccessCount: m.AccessCount, Metadata: nilIfEmpty(m.Metadata),
			Score: h.Score, EmbeddingPending: m.EmbeddingPending,
		}
	}
	return out
}

// expandedMemory is a memory reached along edges, with the Python Recall's
// relevance_score, hop_distance, path (edge types from the hit) and explanation.
type expandedMemory struct {
	ID      string `json:"id"`
	Content string `json:"content"`
	typed
	RelevanceScore float64  `json:"relevance_score"`
	HopDistance    int      `json:"hop_distance"`
	Path           []string `json:"path"`
	Explanation    string   `json:"explanation"`
	ViaMemoryID    string   `json:"via_memory_id"`
}

// expandedView shapes the memories reached along edges. Their relevance is
// the Python Recall's: decay per hop times the edge weights along the path, in
// [0, 1], whatever the score of the hit they were reached from (our expansion
// multiplies that score in; dividing it out gives the path's own relevance).
func expandedView(hits, exp []memory.ScoredMemory) []expandedMemory {
	hitScore := make(map[string]float64, len(hits))
	for _, h := range hits {
		hitScore[h.ID] = h.Score
	}
	byID := make(map[string]memory.ScoredMemory, len(exp))
	for _, m := range exp {
		byID[m.ID] = m
	}
	out := make([]expandedMemory, len(exp))
	for i, m := range exp {
		path, root := edgePath(m, byID)
		relevance := m.Score
		if s := hitScore[root]; s > 0 {
			relevance = math.Min(1, m.Score/s)
		}
		relevance = math.Round(relevance*1e6) / 1e6
		out[i] = expandedMemory{
			ID: m.ID, Content: m.Content, typed: typeOf(m.Type, m.Namespace),
			RelevanceScore: relevance, HopDistance: m.Hop, Path: path, ViaMemoryID: m.ViaID,
			Explanation: explain(m.Hop, path, relevance),
		}
	}
	return out
}

// edgePath follows an expanded memory back to the direct hit it was reached
// from and returns the edge types in traversal order, and that hit's id.
func edgePath(m memory.ScoredMemory, byID map[string]memory.ScoredMemory) ([]string, string) {
	path := []string{string(m.ViaEdge)}
	for hops := m.Hop; hops > 1; hops-- {
		parent, ok := byID[m.ViaID]
		if !ok {
			break
		}
		path = append([]string{string(parent.ViaEdge)}, path...)
		m = parent
	}
	return path, m.ViaID
}

// explain is the Python Recall's sentence: "2 hops via supersedes → relates_to,
// combined weight 0.42".
func explain(hops int, path []string, score float64) string {
	plural := "s"
	if hops == 1 {
		plural = ""
	}
	return fmt.Sprintf("%d hop%s via %s, combined weight %.2f", hops, plural, strings.Join(path, " → "), score)
}

// graphNode, graphEdge, graphPath and graphStats are memory_inspect_graph_tool's.
type graphNode struct {
	ID             string `json:"id"`
	ContentPreview string `json:"content_preview"`
	typed
	Confidence float64 `json:"confidence"`
	Importance float64 `json:"importance"`
	Depth      int     `json:"depth"`
}

type graphEdge struct {
	ID        int64           `json:"id"`
	SourceID  string          `json:"source_id"`
	TargetID  string          `json:"target_id"`
	EdgeType  memory.Relation `json:"edge_type"`
	Relation  memory.Relation `json:"relation"`
	Weight    float64         `json:"weight"`
	CreatedAt string          `json:"created_at"`
}

type graphPath struct {
	NodeIDs        []string `json:"node_ids"`
	EdgeTypes      []string `json:"edge_types"`
	TotalWeight    float64  `json:"total_weight"`
	RelevanceScore float64  `json:"relevance_score"`
}

type graphStats struct {
	NodeCount       int                     `json:"node_count"`
	EdgeCount       int                     `json:"edge_count"`
	MaxDepthReached int                     `json:"max_depth_reached"`
	OriginID        string                  `json:"origin_id"`
	RelationCounts  map[memory.Relation]int `json:"relation_counts"`
}

type graphView struct {
	OriginID string      `json:"origin_id"`
	Nodes    []graphNode `json:"nodes"`
	Edges    []graphEdge `json:"edges"`
	Paths    []graphPath `json:"paths"`
	Stats    graphStats  `json:"stats"`
	Mermaid  string      `json:"mermaid,omitempty"`
}

func graphOf(r *memory.InspectResult) graphView {
	g := graphView{
		OriginID: r.Origin, Mermaid: r.Mermaid,
		Nodes: make([]graphNode, len(r.Nodes)), Edges: make([]graphEdge, len(r.Edges)), Paths: make([]graphPath, len(r.Paths)),
		Stats: graphStats{NodeCount: r.Stats.NodeCount, EdgeCount: r.Stats.EdgeCount, MaxDepthReached: r.Stats.MaxDepthReached,
			OriginID: r.Origin, RelationCounts: r.Stats.RelationCounts},
	}
	for i, n := range r.Nodes {
		g.Nodes[i] = graphNode{ID: n.ID, ContentPreview: n.Content, typed: typeOf(n.Type, n.Namespace),
			Confidence: n.Confidence, Importance: n.Importance, Depth: n.Depth}
	}
	for i, e := range r.Edges {
		g.Edges[i] = graphEdge{ID: e.ID, SourceID: e.SourceID, TargetID: e.TargetID, EdgeType: e.Relation, Relation: e.Relation,
			Weight: e.Weight, CreatedAt: isoTime(e.CreatedAt)}
	}
	for i, p := range r.Paths {
		g.Paths[i] = graphPath{NodeIDs: p.NodeIDs, EdgeTypes: relationNames(p.Relations),
			TotalWeight: pathWeight(p, r.Edges), RelevanceScore: p.Relevance}
	}
	return g
}

// pathWeight is the product of the weights of the edges along a path (either
// direction, since a walk may follow an edge backwards).
func pathWeight(p memory.GraphPath, edges []memory.Edge) float64 {
	w := 1.0
	for i := 0; i+1 < len(p.NodeIDs) && i < len(p.Relations); i++ {
		a, b, rel := p.NodeIDs[i], p.NodeIDs[i+1], p.Relations[i]
		for _, e := range edges {
			if e.Relation == rel && ((e.SourceID == a && e.TargetID == b) || (e.SourceID == b && e.TargetID == a)) {
				w *= e.Weight
				break
			}
		}
	}
	return math.Round(w*1e6) / 1e6
}

func relationNames(rs []memory.Relation) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r)
	}
	return out
}

// nilIfEmpty gives null for empty metadata, as the Python Recall stores none.
func nilIfEmpty(m map[string]any) map[string]any {
	if len(m) == 0 {
		return nil
	}
	return m
}
