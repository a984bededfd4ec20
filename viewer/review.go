package viewer

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

// Ways a person resolves a contradiction between A (the contradicts edge's
// source) and B (its target).
const (
	resolveASupersedesB = "a_supersedes_b" // a supersedes edge A -> B: B drops out of recall
	resolveBSupersedesA = "b_supersedes_a" // a supersedes edge B -> A
	resolveBothHold     = "both_hold"      // the contradicts edge becomes relates_to
	resolveNotConflict  = "not_contradiction"
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
	edges, err := h.mem.Store().Edges(r.Context(), memory.EdgeQuery{EdgeIDs: edgeIDs})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	byID := make(map[int64]memory.Edge, len(edges))
	for _, e := range edges {
		byID[e.ID] = e
	}
	mems, err := h.mem.Store().GetMemories(r.Context(), memIDs)
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

// edge reads one edge by id.
func (h *handler) edge(r *http.Request, id int64) (*memory.Edge, error) {
	es, err := h.mem.Store().Edges(r.Context(), memory.EdgeQuery{EdgeIDs: []int64{id}})
	if err != nil {
		return nil, err
	}
	if len(es) == 0 {
		return nil, memory.NotFound("edge", strconv.FormatInt(id, 10))
	}
	return &es[0], nil
}

type resolveBody struct {
	Resolution string `json:"resolution"`
	// Reason is the person's, optional; recorded with the outcome.
	Reason string `json:"reason"`
	// Force lets a golden rule be superseded: never done automatically.
	Force bool `json:"force"`
}

type resolveResult struct {
	EdgeID     int64  `json:"edge_id"`
	Resolution string `json:"resolution"`
	Message    string `json:"message"`
}

// resolveContradiction records a person's verdict on a contradicts edge with
// the graph tools' operations: memory_relate_tool for a supersedes or
// relates_to edge, memory_forget_edges_tool for the contradicts edge. A
// golden rule is superseded only with force, as the curation never
// supersedes one on its own. The outcome and reason are recorded on both
// memories' change logs; "not a contradiction" so keeps a later scan from
// linking the pair again.
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
	e, err := h.edge(r, edgeID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if e.Relation != memory.RelationContradicts {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("edge %d is %s, not contradicts: only a contradiction is resolved here", edgeID, e.Relation))
		return
	}
	a, b := e.SourceID, e.TargetID
	res := resolveResult{EdgeID: edgeID, Resolution: body.Resolution}
	// What the resolution is on A's change log (B's gets the mirror image).
	recorded := map[string]memory.ChangeAction{
		resolveASupersedesB: memory.ChangeSupersede, resolveBSupersedesA: memory.ChangeSupersededBy,
		resolveBothHold: memory.ChangeBothHold, resolveNotConflict: memory.ChangeNotContradiction,
	}
	if len(body.Reason) > 1000 {
		writeError(w, http.StatusBadRequest, "invalid reason: accepted at most 1000 bytes")
		return
	}
	switch body.Resolution {
	case resolveASupersedesB, resolveBSupersedesA:
		newer, older := a, b
		if body.Resolution == resolveBSupersedesA {
			newer, older = b, a
		}
		if err := h.supersede(r, newer, older, body.Force); err != nil {
			h.fail(w, r, err)
			return
		}
		res.Message = fmt.Sprintf("%s now supersedes %s", newer, older)
	case resolveBothHold, resolveNotConflict:
		if body.Resolution == resolveNotConflict {
			// The verdict first: it is what keeps a later scan (here or in
			// another process) from linking the pair again once the edge is gone.
			if !h.record(w, r, a, b, recorded[body.Resolution], body.Reason) {
				return
			}
		}
		if body.Resolution == resolveBothHold {
			// Both stay true (each in its own context): keep them linked.
			if _, err := h.mem.Relate(r.Context(), memory.RelateRequest{SourceID: a, TargetID: b, Relation: memory.RelationRelatesTo}); err != nil {
				h.fail(w, r, err)
				return
			}
		}
		if _, err := h.mem.ForgetEdges(r.Context(), memory.EdgeForgetRequest{EdgeID: edgeID}); err != nil {
			h.fail(w, r, err)
			return
		}
		res.Message = "contradiction removed"
		if body.Resolution == resolveBothHold {
			res.Message = "both hold: the contradiction became a relates_to edge"
		}
	default:
		writeError(w, http.StatusBadRequest, fmt.Sprintf("invalid resolution %q: accepted %s, %s, %s or %s",
			body.Resolution, resolveASupersedesB, resolveBSupersedesA, resolveBothHold, resolveNotConflict))
		return
	}
	if body.Resolution != resolveNotConflict && !h.record(w, r, a, b, recorded[body.Resolution], body.Reason) {
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// record writes a resolution on both memories' change logs; on failure it
// answers the request and returns false.
func (h *handler) record(w http.ResponseWriter, r *http.Request, a, b string, action memory.ChangeAction, reason string) bool {
	err := h.mem.RecordResolution(r.Context(), memory.ResolutionRequest{MemoryID: a, RelatedID: b,
		Action: action, Reason: reason, Source: editor})
	if err != nil {
		h.fail(w, r, err)
		return false
	}
	return true
}

// supersede adds newer -supersedes-> older, refusing a golden rule without
// force and an edge against an existing one the other way round.
func (h *handler) supersede(r *http.Request, newer, older string, force bool) error {
	old, err := h.mem.Get(r.Context(), older)
	if err != nil {
		return err
	}
	if old.IsGolden() && !force {
		return fmt.Errorf("memory %s is a %w: superseding it needs force", older, memory.ErrProtected)
	}
	back, err := h.mem.Store().Edges(r.Context(), memory.EdgeQuery{SourceID: older, TargetID: newer, Direction: memory.DirectionOutgoing, Relations: []memory.Relation{memory.RelationSupersedes}})
	if err != nil {
		return err
	}
	if len(back) > 0 {
		return fmt.Errorf("%s already supersedes %s: remove that edge first, or pick the other resolution: %w", older, newer, memory.ErrInvalid)
	}
	_, err = h.mem.Relate(r.Context(), memory.RelateRequest{SourceID: newer, TargetID: older, Relation: memory.RelationSupersedes})
	return err
}

// listStale is GET /api/review/stale: the memories not validated for `days`
// (default: the configured stale_days) or, with `below`, trusted less than
// that confidence, the longest unchecked first, at most `limit` (100).
func (h *handler) listStale(w http.ResponseWriter, r *http.Request) {
	qs := r.URL.Query()
	if err := onlyParams(qs, []string{"namespace", "days", "below", "limit"}); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
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
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}
