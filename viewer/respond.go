package viewer

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/recall-mcp/recall/memory"
)

// errorBody is every API error: one message that says what was wrong and what
// is accepted.
type errorBody struct {
	Error string `json:"error"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the client went away: nothing to do
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, errorBody{Error: msg})
}

// respond answers v, or err as fail does.
func (h *handler) respond(w http.ResponseWriter, r *http.Request, v any, err error) {
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// fail answers a service error with the status it deserves; an unexpected one
// is logged and reported without its details.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, memory.ErrInvalid):
		writeError(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, memory.ErrNotFound):
		writeError(w, http.StatusNotFound, err.Error())
	case errors.Is(err, memory.ErrProtected):
		writeError(w, http.StatusConflict, err.Error())
	default:
		h.log.Error("viewer: request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		writeError(w, http.StatusInternalServerError, "internal error; the server log has the details")
	}
}

func quote(s string) string { return strconv.Quote(s) }

// door is where a request's changes are recorded as coming from: the
// viewer, or a client machine's CLI that says so (memory.SourceHeader).
func door(r *http.Request) string {
	if r.Header.Get(memory.SourceHeader) == memory.SourceCLI {
		return memory.SourceCLI
	}
	return editor
}
