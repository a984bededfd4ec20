package viewer

import (
	"encoding/json"
	"net/http"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/project"
)

// createBody is POST /api/memories: a memory a person writes, stored as
// memory_store_tool stores one (cleaned, deduplicated, embedded, related).
type createBody struct {
	Content    string      `json:"content"`
	Type       memory.Type `json:"memory_type"`
	Namespace  string      `json:"namespace"`
	Importance *float64    `json:"importance"`
}

// clientProject is the namespace of the project a client machine sent
// (project.Header: its CLI adding a memory without a namespace goes to the
// project it is in, as on a machine with its own database), bound as the
// hooks bind it; "" without the header: the default namespace.
func (h *handler) clientProject(r *http.Request) (string, error) {
	v := r.Header.Get(project.Header)
	if v == "" {
		return "", nil
	}
	c, err := project.ParseClient(v)
	if err != nil {
		return "", memory.Invalidf("header", project.Header, err.Error())
	}
	if h.clients == nil {
		return "", memory.Invalidf("header", project.Header, "this viewer does not resolve client machines' projects: give the namespace")
	}
	p, err := h.clients.ForClient(r.Context(), c)
	if err != nil {
		return "", err
	}
	return p.Namespace, nil
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
	if body.Namespace == "" {
		ns, err := h.clientProject(r)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		body.Namespace = ns
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
