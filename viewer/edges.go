package viewer

import (
	"net/http"
	"strconv"

	"github.com/recall-mcp/recall/memory"
)

// edgeBody is POST /api/memories/{id}/edges: an edge from this memory to
// another, as memory_relate_tool adds one.
type edgeBody struct {
	TargetID string          `json:"target_id"`
	Relation memory.Relation `json:"relation"`
	// Force lets a supersedes edge mark a golden rule superseded.
	Force bool `json:"force"`
}

func (h *handler) addEdge(w http.ResponseWriter, r *http.Request) {
	var body edgeBody
	if err := decodeBody(w, r, &body); err != nil || body.TargetID == "" || body.Relation == "" {
		writeError(w, http.StatusBadRequest, `invalid body: accepted a JSON object {"target_id": "mem_...", "relation": "relates_to", "supersedes", "caused_by" or "contradicts", "force": false}`)
		return
	}
	id, err := h.mem.Relate(r.Context(), memory.RelateRequest{SourceID: r.PathValue("id"), TargetID: body.TargetID, Relation: body.Relation, Force: body.Force})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]int64{"edge_id": id})
}

// removeEdge is DELETE /api/edges/{edge}: one edge goes, as
// memory_edge_forget_tool removes it by id; both memories stay.
func (h *handler) removeEdge(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("edge"), 10, 64)
	if err != nil || id <= 0 {
		writeError(w, http.StatusBadRequest, "invalid edge id "+quote(r.PathValue("edge"))+": accepted a positive integer")
		return
	}
	res, err := h.mem.ForgetEdges(r.Context(), memory.EdgeForgetRequest{EdgeID: id})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if res.DeletedCount == 0 {
		writeError(w, http.StatusNotFound, "edge "+r.PathValue("edge")+" not found: it was removed already")
		return
	}
	writeJSON(w, http.StatusOK, res)
}
