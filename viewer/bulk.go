package viewer

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

// maxBulk is the most memories one bulk action takes (four list pages).
const maxBulk = 200

// bulkActions are the actions on a selection: delete (to the trash for 30
// days), archive (to the trash until restored) and confirm (a successful
// validation each).
var bulkActions = []string{"delete", "archive", "confirm"}

// bulkBody is POST /api/memories/bulk: one action on the memories selected in
// the list. DryRun answers what the action would touch, changing nothing; the
// page shows that (the count and each memory's preview) before acting.
type bulkBody struct {
	Action string   `json:"action"` // "delete", "archive" or "confirm"
	IDs    []string `json:"ids"`
	// View, instead of IDs, is a list view's parameters (as GET
	// /api/memories takes them, without limit and offset): the action takes
	// every memory of the view, at most maxBulk.
	View   map[string]string `json:"view"`
	Force  bool              `json:"force"` // delete or archive golden rules too
	DryRun bool              `json:"dry_run"`
}

// bulkItem is one selected memory and what the action did to it.
type bulkItem struct {
	ID        string      `json:"id"`
	Preview   string      `json:"preview"`
	Type      memory.Type `json:"memory_type"`
	Namespace string      `json:"namespace"`
	Done      bool        `json:"done"`
	Error     string      `json:"error,omitempty"`
}

// bulkResult counts the selection (Count), its golden rules and what was done.
type bulkResult struct {
	Action  string     `json:"action"`
	DryRun  bool       `json:"dry_run"`
	Count   int        `json:"count"`
	Golden  int        `json:"golden_rules"`
	Done    int        `json:"done"`
	Failed  int        `json:"failed"`
	Items   []bulkItem `json:"items"`
	Message string     `json:"message"`
}

// previewChars is how much of a memory a list of the viewer shows.
const previewChars = 160

func preview(s string) string { return memory.Preview(s, previewChars) }

// bulkMemories deletes, archives or confirms the selected memories one by
// one through the services the single actions use (memory.Service.Forget by
// id, into the trash or the archive; validation.Service.Validate with
// success). Every id must exist, and a delete or archive of a selection
// holding golden rules needs force; otherwise nothing is changed.
func (h *handler) bulkMemories(w http.ResponseWriter, r *http.Request) {
	var body bulkBody
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err == nil && body.Action != "" && !slices.Contains(bulkActions, body.Action) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("invalid action %q: accepted %s", body.Action, strings.Join(bulkActions, ", ")))
		return
	} else if err != nil || body.Action == "" || (len(body.IDs) == 0) == (body.View == nil) {
		writeError(w, http.StatusBadRequest, `invalid body: accepted a JSON object {"action": "delete", "archive" or "confirm", "ids": ["mem_..."] or "view": {"namespace": "...", ...}, "force": false, "dry_run": false}`)
		return
	}
	if body.View != nil {
		var ok bool
		if body.IDs, ok = h.viewIDs(w, r, body.View); !ok {
			return
		}
	}
	var ids []string
	for _, id := range body.IDs {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) > maxBulk {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("%d memories selected: accepted at most %d in one action", len(ids), maxBulk))
		return
	}
	res := bulkResult{Action: body.Action, DryRun: body.DryRun, Count: len(ids), Items: make([]bulkItem, 0, len(ids))}
	for _, id := range ids {
		m, err := h.mem.Get(r.Context(), id)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		if m.Type == memory.TypeGoldenRule {
			res.Golden++
		}
		res.Items = append(res.Items, bulkItem{ID: m.ID, Preview: preview(m.Content), Type: m.Type, Namespace: m.Namespace})
	}
	if body.Action != "confirm" && res.Golden > 0 && !body.Force && !body.DryRun {
		what := fmt.Sprintf("%d of the %d selected memories are golden rules", res.Golden, res.Count)
		if res.Golden == 1 {
			what = fmt.Sprintf("1 of the %d selected memories is a golden rule", res.Count)
		}
		writeError(w, http.StatusConflict, fmt.Sprintf("%s: tick force to %s them too; nothing was changed", what, body.Action))
		return
	}
	if body.DryRun {
		res.Message = fmt.Sprintf("would %s %d memories", body.Action, res.Count)
		writeJSON(w, http.StatusOK, res)
		return
	}
	for i := range res.Items {
		it := &res.Items[i]
		var err error
		switch body.Action {
		case "delete", "archive":
			_, err = h.mem.Forget(r.Context(), memory.ForgetRequest{MemoryID: it.ID, Confirm: true, Force: body.Force,
				Trash: true, Archive: body.Action == "archive"})
		default:
			_, err = h.val.Validate(r.Context(), validation.ValidateRequest{MemoryID: it.ID, Success: true, Source: editor})
		}
		if err != nil {
			it.Error = err.Error()
			res.Failed++
			continue
		}
		it.Done = true
		res.Done++
	}
	verb := map[string]string{"delete": "deleted", "archive": "archived", "confirm": "confirmed"}[body.Action]
	res.Message = fmt.Sprintf("%s %d of %d memories", verb, res.Done, res.Count)
	if res.Failed > 0 {
		res.Message += fmt.Sprintf(", %d failed", res.Failed)
	}
	writeJSON(w, http.StatusOK, res)
}

// viewIDs are the ids of every memory of a list view, refused (400) when the
// view holds more than maxBulk or none: a person narrows the view first.
func (h *handler) viewIDs(w http.ResponseWriter, r *http.Request, view map[string]string) ([]string, bool) {
	qs := url.Values{}
	for k, v := range view {
		qs.Set(k, v)
	}
	if err := onlyParams(qs, viewParams); err != nil {
		writeError(w, http.StatusBadRequest, "invalid view: "+err.Error())
		return nil, false
	}
	ms, more, err := h.viewMemories(r, qs, maxBulk)
	if err != nil {
		h.failView(w, r, err)
		return nil, false
	}
	if more {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("this view holds more than %d memories: narrow it (a namespace, a type, a search, a confidence or date range) to act on at most %d at once; nothing was changed", maxBulk, maxBulk))
		return nil, false
	}
	if len(ms) == 0 {
		writeError(w, http.StatusBadRequest, "this view holds no memory: nothing to do")
		return nil, false
	}
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	return ids, true
}
