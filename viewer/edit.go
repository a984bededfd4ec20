package viewer

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/recall-mcp/recall/memory"
)

// editor is the source the viewer's changes and memories are recorded with.
const editor = memory.SourceViewer

// editBody is PATCH /api/memories/{id}: the fields to change, others left out.
type editBody struct {
	Content    *string      `json:"content"`
	Type       *memory.Type `json:"memory_type"`
	Importance *float64     `json:"importance"`
	Namespace  *string      `json:"namespace"`
}

// maxEditBody allows a memory's largest content with JSON escaping.
const maxEditBody = 8*memory.MaxContentBytes + 4096

// editMemory changes content, type, importance or namespace (a move) through
// memory.Service.Update, recorded in the memory's change log as made by the
// viewer.
func (h *handler) editMemory(w http.ResponseWriter, r *http.Request) {
	var body editBody
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxEditBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil || (body.Content == nil && body.Type == nil && body.Importance == nil && body.Namespace == nil) {
		writeError(w, http.StatusBadRequest, `invalid body: accepted a JSON object with one or more of "content" (text), "memory_type" (a type name), "importance" (0 to 1), "namespace" (where to move it: global, project:<name>, private)`)
		return
	}
	res, err := h.mem.Update(r.Context(), memory.UpdateRequest{
		MemoryID: r.PathValue("id"), Content: body.Content, Type: body.Type, Importance: body.Importance, Namespace: body.Namespace, By: door(r),
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// reasonBody is POST /api/memories/{id}/promote and /demote.
type reasonBody struct {
	Reason string `json:"reason"`
}

// readReason reads the required reason of a promotion or demotion; what says
// what it is for. On a bad body it answers 400 and returns false.
func readReason(w http.ResponseWriter, r *http.Request, what string) (string, bool) {
	var body reasonBody
	if err := decodeBody(w, r, &body); err != nil || strings.TrimSpace(body.Reason) == "" {
		writeError(w, http.StatusBadRequest, `invalid body: accepted a JSON object {"reason": "`+what+`"} (the reason is required)`)
		return "", false
	}
	return body.Reason, true
}

// retypeMemory is POST /api/memories/{id}/promote and /demote: a person
// makes a preference, decision or pattern a golden rule, or turns one back
// into an ordinary memory, with a reason (why is what the form asks for).
func (h *handler) retypeMemory(change func(context.Context, memory.DemoteRequest) (*memory.Memory, error), why string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		reason, ok := readReason(w, r, why)
		if !ok {
			return
		}
		m, err := change(r.Context(), memory.DemoteRequest{MemoryID: r.PathValue("id"), Reason: reason, By: editor})
		h.respond(w, r, m, err)
	}
}
