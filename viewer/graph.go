package viewer

import (
	"net/http"

	"github.com/recall-mcp/recall/memory"
)

// Graph view limits: a neighbourhood, never the whole graph.
const (
	maxGraphDepth     = 3
	defaultGraphDepth = 1
	// maxGraphNodes caps what one drawing holds: nodes beyond it (the farthest,
	// in the walk's breadth-first order) are left out and Truncated says so.
	maxGraphNodes = 60
)

var graphParams = []string{"depth"}

// graphView is GET /api/memories/{id}/graph: the neighbourhood of one memory
// as memory_inspect_graph_tool walks it, cut to maxGraphNodes.
type graphView struct {
	Origin    string             `json:"origin_id"`
	Depth     int                `json:"depth"`
	Nodes     []memory.GraphNode `json:"nodes"`
	Edges     []memory.Edge      `json:"edges"`
	Total     int                `json:"total_nodes"` // nodes the walk found
	Truncated bool               `json:"truncated"`
	MaxNodes  int                `json:"max_nodes"`
}

func (h *handler) graph(w http.ResponseWriter, r *http.Request) {
	qs, ok := params(w, r, graphParams)
	if !ok {
		return
	}
	depth, err := intParam(qs, "depth", defaultGraphDepth, 1, maxGraphDepth)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	g, err := h.mem.Inspect(r.Context(), memory.InspectRequest{MemoryID: r.PathValue("id"), MaxDepth: depth})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, capGraph(g, depth, maxGraphNodes))
}

// capGraph keeps the first max nodes in the walk's order (origin first, then by
// hops) and the edges between kept nodes.
func capGraph(g *memory.InspectResult, depth, max int) graphView {
	v := graphView{Origin: g.Origin, Depth: depth, Total: len(g.Nodes), MaxNodes: max, Edges: []memory.Edge{}}
	nodes := g.Nodes
	if len(nodes) > max {
		nodes, v.Truncated = nodes[:max], true
	}
	v.Nodes = nodes
	kept := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		kept[n.ID] = true
	}
	for _, e := range g.Edges {
		if kept[e.SourceID] && kept[e.TargetID] {
			v.Edges = append(v.Edges, e)
		}
	}
	return v
}
