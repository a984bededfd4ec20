package viewer

import (
	"net/http"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// trashItem is one deleted or archived memory that can still be restored;
// an archived one has no purge time.
type trashItem struct {
	memory.TrashItem
	PurgeAt *time.Time `json:"purge_at"`
}

// listTrash is GET /api/trash: the deleted and archived memories still
// restorable, last deleted first, each with its edges and events and when it
// will be purged (never, archived).
func (h *handler) listTrash(w http.ResponseWriter, r *http.Request) {
	items, err := h.mem.Trash(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out := make([]trashItem, 0, len(items))
	for _, it := range items {
		item := trashItem{TrashItem: it}
		if !it.Archived {
			at := it.DeletedAt.Add(memory.TrashKeep)
			item.PurgeAt = &at
		}
		out = append(out, item)
	}
	writeJSON(w, http.StatusOK, map[string]any{"memories": out, "keep_days": int(memory.TrashKeep.Hours() / 24)})
}

// restoreMemory is POST /api/trash/{id}/restore: the memory back with its id,
// its edges to memories that still exist and its validation events.
func (h *handler) restoreMemory(w http.ResponseWriter, r *http.Request) {
	res, err := h.mem.Restore(r.Context(), r.PathValue("id"))
	h.respond(w, r, res, err)
}
