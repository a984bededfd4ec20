package viewer

import (
	"net/http"

	"github.com/recall-mcp/recall/memory"
)

var filesParams = []string{"project_root", "days", "limit"}

// recentFiles is GET /api/files: the files agents touched lately, most recent
// first, as memory_recent_files_tool reports them (memory.Service.RecentFiles),
// optionally for one project root.
func (h *handler) recentFiles(w http.ResponseWriter, r *http.Request) {
	qs, ok := params(w, r, filesParams)
	if !ok {
		return
	}
	days, err := intParam(qs, "days", memory.DefaultRecentDays, 1, memory.MaxRecentDays)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	limit, err := intParam(qs, "limit", 100, 1, memory.MaxListLimit)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	files, err := h.mem.RecentFiles(r.Context(), memory.RecentFilesRequest{ProjectRoot: qs.Get("project_root"), Days: days, Limit: limit})
	h.respond(w, r, files, err)
}
