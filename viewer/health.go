package viewer

import (
	"net/http"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

// healthPanel is GET /api/health: what `recall stats` prints (the database's
// counts, pending vectors, the curation job backlog, models failing lately)
// and what memory_analyze_health_tool reports (contradictions, low
// confidence, stale and weak golden rules, with its recommendations).
type healthPanel struct {
	Stats  *memory.Stats            `json:"stats"`
	Report *validation.HealthReport `json:"report"`
	Vector struct {
		Usable bool   `json:"usable"`
		Reason string `json:"reason,omitempty"`
	} `json:"vectors"`
}

func (h *handler) health(w http.ResponseWriter, r *http.Request) {
	if err := onlyParams(r.URL.Query(), []string{"namespace"}); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	var p healthPanel
	var err error
	if p.Stats, err = h.mem.Stats(r.Context()); err != nil {
		h.fail(w, r, err)
		return
	}
	if p.Report, err = h.val.AnalyzeHealth(r.Context(), validation.HealthRequest{Namespace: r.URL.Query().Get("namespace")}); err != nil {
		h.fail(w, r, err)
		return
	}
	p.Vector.Usable, p.Vector.Reason = h.mem.EmbeddingStatus(r.Context())
	writeJSON(w, http.StatusOK, p)
}

// Finding is one of recall doctor's checks as the Health page shows it: its
// level (ok, warn or fail), what it found and the commands that fix it. The
// viewer declares it, so that it needs none of the stores and clients the
// checks open.
type Finding struct {
	Level string   `json:"level"`
	What  string   `json:"what"`
	Fix   []string `json:"fix,omitempty"`
}

// checkup is GET /api/doctor: recall doctor's findings, each with its level
// (ok, warn, fail) and the commands that fix it. Slower than the panel (it
// asks Ollama), so the page loads it on its own.
func (h *handler) checkup(w http.ResponseWriter, r *http.Request) {
	if err := onlyParams(r.URL.Query(), nil); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if h.doctor == nil {
		writeError(w, http.StatusNotFound, "no doctor: this viewer was started without its configuration; run recall doctor")
		return
	}
	findings := h.doctor(r.Context())
	if findings == nil {
		findings = []Finding{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"findings": findings})
}
