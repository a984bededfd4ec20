package viewer

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

// contradictionPair is one unresolved contradiction with both memories in full.
type contradictionPair struct {
	EdgeID int64          `json:"edge_id"`
	Weight float64        `json:"weight"`
	Reason string         `json:"reason,omitempty"`
	A      *memory.Memory `json:"a"`
	B      *memory.Memory `json:"b"`
}

type contradictionQueue struct {
	Pairs []contradictionPair `json:"pairs"`
	// Total counts every unresolved contradiction; Pairs holds the first 100.
	Total int `json:"total"`
}

// listContradictions is the review queue: the unresolved contradictions
// memory_analyze_health_tool reports (contradicts edges where neither memory
// is superseded), each with both memories and the judge's reason.
func (h *handler) listContradictions(w http.ResponseWriter, r *http.Request) {
	if err := onlyParams(r.URL.Query(), []string{"namespace"}); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	off := false
	rep, err := h.val.AnalyzeHealth(r.Context(), validation.HealthRequest{
		Namespace: r.URL.Query().Get("namespace"), IncludeLowConfidence: &off, IncludeStale: &off,
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	// The edges (for the judge's reason) and both memories of every pair in
	// two reads, not three per pair.
	edgeIDs := make([]int64, 0, len(rep.Contradictions))
	memIDs := make([]string, 0, 2*len(rep.Contradictions))
	for _, c := range rep.Contradictions {
		edgeIDs = append(edgeIDs, c.EdgeID)
		memIDs = append(memIDs, c.SourceID, c.TargetID)
	}
	q := contradictionQueue{Pairs: []contradictionPair{}, Total: rep.Counts.Contradictions}
	if len(edgeIDs) == 0 {
		writeJSON(w, http.StatusOK, q)
		return
	}
	edges, err := h.mem.EdgesByID(r.Context(), edgeIDs)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	byID := make(map[int64]memory.Edge, len(edges))
	for _, e := range edges {
		byID[e.ID] = e
	}
	mems, err := h.mem.GetMany(r.Context(), memIDs)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	for _, c := range rep.Contradictions {
		e, ok := byID[c.EdgeID]
		a, b := mems[c.SourceID], mems[c.TargetID]
		if !ok || a == nil || b == nil {
			continue // resolved or deleted meanwhile
		}
		reason, _ := e.Metadata["reason"].(string)
		q.Pairs = append(q.Pairs, contradictionPair{EdgeID: c.EdgeID, Weight: e.Weight, Reason: reason, A: a, B: b})
	}
	writeJSON(w, http.StatusOK, q)
}

type resolveBody struct {
	Resolution string `json:"resolution"`
	// Reason is the person's, optional; recorded with the outcome.
	Reason string `json:"reason"`
	// Force lets a golden rule be superseded: never done automatically.
	Force bool `json:"force"`
}

// resolveContradiction records a person's verdict on a contradicts edge
// through memory.Service.ResolveContradiction, which holds the rules (a
// golden rule is superseded only with force, never against a supersedes edge
// the other way round) and writes the outcome in one transaction.
func (h *handler) resolveContradiction(w http.ResponseWriter, r *http.Request) {
	edgeID, err := strconv.ParseInt(r.PathValue("edge"), 10, 64)
	if err != nil || edgeID < 1 {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("invalid edge id %q: accepted a positive integer", r.PathValue("edge")))
		return
	}
	var body resolveBody
	if err := decodeBody(w, r, &body); err != nil {
		writeError(w, http.StatusBadRequest, "invalid body: accepted a JSON object {\"resolution\": ..., \"reason\": \"optional\", \"force\": false}")
		return
	}
	res, err := h.mem.ResolveContradiction(r.Context(), memory.ResolveRequest{EdgeID: edgeID, Resolution: body.Resolution,
		Reason: body.Reason, Force: body.Force, Source: editor})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// listStale is GET /api/review/stale: the memories not validated for `days`
// (default: the configured stale_days) or, with `below`, trusted less than
// that confidence, the longest unchecked first, at most `limit` (100).
func (h *handler) listStale(w http.ResponseWriter, r *http.Request) {
	qs, ok := params(w, r, []string{"namespace", "days", "below", "limit"})
	if !ok {
		return
	}
	req := validation.StaleRequest{Namespace: qs.Get("namespace")}
	var err error
	if req.Days, err = intParam(qs, "days", 0, 1, 3650); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if req.Limit, err = intParam(qs, "limit", 100, 1, 500); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if raw := qs.Get("below"); raw != "" {
		if req.Below, err = strconv.ParseFloat(raw, 64); err != nil || req.Below < 0 || req.Below > 1 {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("invalid below %q: accepted a confidence from 0 to 1", raw))
			return
		}
	}
	rep, err := h.val.StaleMemories(r.Context(), req)
	h.respond(w, r, rep, err)
}
