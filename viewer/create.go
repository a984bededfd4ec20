package viewer

import (
	"encoding/json"
	"net/http"

	"github.com/recall-mcp/recall/memory"
)

// createBody is POST /api/memories: a memory a person writes, stored as
// memory_store_tool stores one (cleaned, deduplicated, embedded, related).
type createBody struct {
	Content    string      `json:"content"`
	Type       memory.Type `json:"memory_type"`
	Namespace  string      `json:"namespace"`
	Importance *float64    `json:"importance"`
}

// createMemory stores a memory written on the page; its source says it came
// from the viewer (throughTheViewer). Storing text that is already stored answers the existing
// memory (duplicate true), as the tool does.
func (h *handler) createMemory(w http.ResponseWriter, r *http.Request) {
	var body createBody
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxEditBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, `invalid body: accepted a JSON object {"content": "...", "memory_type": "decision", "namespace": "global", "importance": 0.5} (content required)`)
		return
	}
	res, err := h.mem.Remember(r.Context(), memory.StoreRequest{Content: body.Content, Type: body.Type, Namespace: body.Namespace,
		Importance: body.Importance})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	status := http.StatusCreated
	if res.Duplicate {
		status = http.StatusOK
	}
	writeJSON(w, status, res)
}
