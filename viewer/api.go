package viewer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

// Page sizes of the list. A search returns at most memory.MaxNResults hits.
const (
	defaultPageSize = 50
	maxPageSize     = 200
)

// listParams are the query parameters GET /api/memories accepts.
var listParams = append([]string{"limit", "offset"}, viewParams...)

// viewParams are what makes a view of the list: its search and filters.
var viewParams = append([]string{"q", "namespace", "type", "order_by", "include_superseded"}, boundParams...)

// page is what GET /api/memories answers, listing or searching: one page of
// memories and enough to page on. Score is set on search hits only.
type page struct {
	Memories []pageItem `json:"memories"`
	Total    int        `json:"total"`
	Limit    int        `json:"limit"`
	Offset   int        `json:"offset"`
	HasMore  bool       `json:"has_more"`
	Query    string     `json:"query,omitempty"`
	// SearchMode and Degraded report how a search ran ("hybrid" or "keyword",
	// and why vectors were not used), as memory_recall_tool does.
	SearchMode string `json:"search_mode,omitempty"`
	Degraded   bool   `json:"degraded,omitempty"`
	Reason     string `json:"degraded_reason,omitempty"`
}

type pageItem struct {
	*memory.Memory
	Score *float64 `json:"score,omitempty"`
}

// listMemories pages through memories (newest first) or, with q, runs the
// hybrid search memory_recall_tool runs, with the same filters.
func (h *handler) listMemories(w http.ResponseWriter, r *http.Request) {
	qs, ok := params(w, r, listParams)
	if !ok {
		return
	}
	limit, err := intParam(qs, "limit", defaultPageSize, 1, maxPageSize)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	offset, err := intParam(qs, "offset", 0, 0, 1<<31-1)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	bounds, err := readBounds(qs)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	superseded, err := readSuperseded(qs)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ns, typ := qs.Get("namespace"), memory.Type(qs.Get("type"))
	query := strings.TrimSpace(qs.Get("q"))
	orderBy := qs.Get("order_by")
	if query == "" {
		// Newest, most used, most important or most trusted first.
		res, err := h.mem.List(r.Context(), memory.ListRequest{Namespace: ns, Type: typ, OrderBy: orderBy, Limit: limit, Offset: offset,
			Bounds: bounds, IncludeSuperseded: superseded})
		if err != nil {
			h.fail(w, r, err)
			return
		}
		p := page{Memories: make([]pageItem, 0, len(res.Memories)), Total: res.Total, Limit: res.Limit, Offset: res.Offset, HasMore: res.HasMore}
		for _, m := range res.Memories {
			p.Memories = append(p.Memories, pageItem{Memory: m})
		}
		writeJSON(w, http.StatusOK, p)
		return
	}
	if orderBy != "" {
		writeError(w, http.StatusBadRequest, "order_by applies to the list, not to a search, which is ranked by relevance: drop order_by or q")
		return
	}
	h.search(w, r, memory.RecallRequest{Query: query, Namespace: ns, Type: typ, Bounds: bounds, IncludeSuperseded: superseded}, limit, offset)
}

// search pages over the ranked hits of one recall: the search has no offset of
// its own, so it asks for offset+limit hits (at most memory.MaxNResults) and
// returns the requested slice.
func (h *handler) search(w http.ResponseWriter, r *http.Request, req memory.RecallRequest, limit, offset int) {
	if offset >= memory.MaxNResults {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("invalid offset %d: a search returns at most %d hits, accepted 0 to %d", offset, memory.MaxNResults, memory.MaxNResults-1))
		return
	}
	n := min(offset+limit, memory.MaxNResults)
	req.NResults, req.SkipAccessUpdate = n, true
	res, err := h.mem.Recall(r.Context(), req)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	hits := res.Memories[min(offset, len(res.Memories)):]
	hits = hits[:min(limit, len(hits))]
	p := page{
		Memories: make([]pageItem, 0, len(hits)), Total: len(res.Memories), Limit: limit, Offset: offset,
		// A full answer may have more hits behind it, up to the search's cap.
		HasMore: len(res.Memories) == n && n < memory.MaxNResults,
		Query:   req.Query, SearchMode: res.SearchMode, Degraded: res.Degraded, Reason: res.Reason,
	}
	for _, hit := range hits {
		p.Memories = append(p.Memories, pageItem{Memory: hit.Memory, Score: &hit.Score})
	}
	writeJSON(w, http.StatusOK, p)
}

// Detail is GET /api/memories/{id}: one memory with its edges (and the
// memories at their other ends) and its validation events with their summary.
type Detail struct {
	Memory    *memory.Memory            `json:"memory"`
	Edges     []memory.Edge             `json:"edges"`
	Neighbors []memory.GraphNode        `json:"neighbors"`
	History   *validation.HistoryResult `json:"validation"`
	// Chain is the memory's supersession chain, oldest first, the memory
	// itself included: a single entry when nothing supersedes it and it
	// supersedes nothing. The last entry is the version in force.
	Chain []memory.GraphNode `json:"supersession"`
	// Changes is the memory's change log, newest first.
	Changes []ChangeEntry `json:"changes"`
}

// maxChain bounds the supersession chain walked for one memory page: that many
// versions either side of it, the graph walk's deepest.
const maxChain = memory.MaxGraphDepth

func (h *handler) getMemory(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	m, err := h.mem.Get(r.Context(), id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	// One hop of memory_inspect_graph_tool: the memory's own edges, both ways,
	// with a preview of each neighbour.
	g, err := h.mem.Inspect(r.Context(), memory.InspectRequest{MemoryID: m.ID, MaxDepth: 1})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	neighbors := make([]memory.GraphNode, 0, len(g.Nodes))
	for _, n := range g.Nodes {
		if n.ID != m.ID {
			neighbors = append(neighbors, n)
		}
	}
	hist, err := h.val.History(r.Context(), validation.HistoryRequest{MemoryID: m.ID, Limit: validation.MaxHistoryLimit})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	edges := g.Edges
	if edges == nil {
		edges = []memory.Edge{}
	}
	chain, err := h.chain(r, m)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	log, err := h.mem.Changes(r.Context(), m.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	changes, err := h.withPreviews(r, log)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, Detail{Memory: m, Edges: edges, Neighbors: neighbors, History: hist, Chain: chain, Changes: changes})
}

// chain walks the supersedes edges around m (memory_inspect_graph_tool along
// supersedes only, at most maxChain hops) into one line from the oldest
// version to the one in force.
// Where versions branch, the first edge is followed; a loop ends the walk.
func (h *handler) chain(r *http.Request, m *memory.Memory) ([]memory.GraphNode, error) {
	g, err := h.mem.Inspect(r.Context(), memory.InspectRequest{
		MemoryID: m.ID, MaxDepth: maxChain, EdgeTypes: []memory.Relation{memory.RelationSupersedes},
	})
	if err != nil {
		return nil, err
	}
	nodes := make(map[string]memory.GraphNode, len(g.Nodes))
	for _, n := range g.Nodes {
		nodes[n.ID] = n
	}
	self, ok := nodes[m.ID]
	if !ok {
		self = memory.GraphNode{ID: m.ID, Content: m.Content, Type: m.Type, Namespace: m.Namespace, Confidence: m.Confidence, Importance: m.Importance}
	}
	// step follows one supersedes edge from id: to the older version it
	// replaced (back) or the newer one replacing it (forward).
	step := func(id string, back bool) (string, bool) {
		for _, e := range g.Edges {
			if back && e.SourceID == id {
				return e.TargetID, true
			}
			if !back && e.TargetID == id {
				return e.SourceID, true
			}
		}
		return "", false
	}
	seen := map[string]bool{m.ID: true}
	var older, newer []memory.GraphNode
	for id, ok := step(m.ID, true); ok && !seen[id] && len(older) < maxChain; id, ok = step(id, true) {
		seen[id] = true
		older = append(older, nodes[id])
	}
	for id, ok := step(m.ID, false); ok && !seen[id] && len(newer) < maxChain; id, ok = step(id, false) {
		seen[id] = true
		newer = append(newer, nodes[id])
	}
	slices.Reverse(older)
	return append(append(older, self), newer...), nil
}

// validateBody is POST /api/memories/{id}/validate: a person confirming (or
// refuting) a memory, as memory_validate_tool does.
type validateBody struct {
	Success *bool `json:"success"`
}

func (h *handler) validateMemory(w http.ResponseWriter, r *http.Request) {
	var body validateBody
	if err := decodeBody(w, r, &body); err != nil || body.Success == nil {
		writeError(w, http.StatusBadRequest, `invalid body: accepted a JSON object {"success": true} or {"success": false}`)
		return
	}
	res, err := h.val.Validate(r.Context(), validation.ValidateRequest{MemoryID: r.PathValue("id"), Success: *body.Success, Source: editor})
	h.respond(w, r, res, err)
}

// forgetBody is DELETE /api/memories/{id}: Force is needed for a golden rule.
type forgetBody struct {
	Force bool `json:"force"`
}

// forgetMemory deletes one memory by id through memory_forget_tool's path:
// memory.Service.Forget with the id, confirmed, golden rules kept unless
// force. Its edges and validation events go with it.
func (h *handler) forgetMemory(w http.ResponseWriter, r *http.Request) {
	var body forgetBody
	if err := decodeBody(w, r, &body); err != nil {
		writeError(w, http.StatusBadRequest, `invalid body: accepted a JSON object {"force": false} or {"force": true} (force deletes a golden rule)`)
		return
	}
	res, err := h.mem.Forget(r.Context(), memory.ForgetRequest{MemoryID: r.PathValue("id"), Confirm: true, Force: body.Force, Trash: true})
	h.respond(w, r, res, err)
}

// decodeBody reads a small JSON body, refusing unknown fields. An empty body
// is the zero value.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// params returns r's query parameters, or answers 400 (ok false) for one
// the endpoint does not know.
func params(w http.ResponseWriter, r *http.Request, known []string) (qs url.Values, ok bool) {
	qs = r.URL.Query()
	if err := onlyParams(qs, known); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return nil, false
	}
	return qs, true
}

// onlyParams refuses a query parameter the endpoint does not know, so a typo
// is reported instead of silently ignored.
func onlyParams(qs url.Values, known []string) error {
	for name := range qs {
		if !slices.Contains(known, name) && len(known) == 0 {
			return fmt.Errorf("unknown parameter %q: this address takes no parameters", name)
		}
		if !slices.Contains(known, name) {
			return fmt.Errorf("unknown parameter %q: accepted %s", name, strings.Join(known, ", "))
		}
	}
	return nil
}

// intParam reads an optional integer parameter within [lo, hi].
func intParam(qs url.Values, name string, def, lo, hi int) (int, error) {
	raw := qs.Get(name)
	if raw == "" {
		return def, nil
	}
	v, err := strconv.Atoi(raw)
	if err != nil || v < lo || v > hi {
		return 0, fmt.Errorf("invalid %s %q: accepted an integer from %d to %d", name, raw, lo, hi)
	}
	return v, nil
}
