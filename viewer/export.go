package viewer

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/recall-mcp/recall/internal/describe"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/transfer"
)

// exportParams are the list's filters and the format.
var exportParams = append([]string{"q", "namespace", "type", "order_by", "format", "include_superseded"}, boundParams...)

// exportFilters are the parameters an export names in its header, in this
// order: every filter that decided what it holds.
var exportFilters = slices.Concat([]string{"q", "namespace", "type", "order_by"}, boundParams, []string{"include_superseded"})

// maxExport bounds one export of the list (a search holds at most
// memory.MaxNResults hits).
const maxExport = 10 * memory.MaxListLimit

// exportFile is the JSON export of a view.
type exportFile struct {
	ExportedAt time.Time         `json:"exported_at"`
	Filters    map[string]string `json:"filters"`
	Count      int               `json:"count"`
	Truncated  bool              `json:"truncated,omitempty"`
	Memories   []*memory.Memory  `json:"memories"`
}

// export is GET /api/export: every memory of the view the list shows with the
// same filters (all pages, up to maxExport), as JSON or as Markdown in the
// format of `recall export --markdown`.
func (h *handler) export(w http.ResponseWriter, r *http.Request) {
	qs, ok := params(w, r, exportParams)
	if !ok {
		return
	}
	format := qs.Get("format")
	if format == "jsonl" || format == "memory-jsonl" {
		h.exportRecords(w, r, format)
		return
	}
	if format != "json" && format != "markdown" {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("invalid format %q: accepted json, markdown (the view), jsonl, memory-jsonl (everything)", format))
		return
	}
	ms, truncated, err := h.viewMemories(r, qs, maxExport)
	if err != nil {
		h.failView(w, r, err)
		return
	}
	if ms == nil {
		ms = []*memory.Memory{}
	}
	filters := map[string]string{}
	for _, k := range exportFilters {
		if v := qs.Get(k); v != "" {
			filters[k] = v
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	if format == "json" {
		w.Header().Set("Content-Disposition", `attachment; filename="recall-memories.json"`)
		writeJSON(w, http.StatusOK, exportFile{ExportedAt: time.Now().UTC(), Filters: filters, Count: len(ms), Truncated: truncated, Memories: ms})
		return
	}
	desc := describe.Count(len(ms), "memory", "memories")
	if len(filters) > 0 {
		var parts []string
		for _, k := range exportFilters {
			if v, ok := filters[k]; ok {
				parts = append(parts, k+"="+v)
			}
		}
		desc += ", filtered by " + strings.Join(parts, ", ")
	}
	if truncated {
		desc += fmt.Sprintf(" (the first %d)", len(ms))
	}
	desc += ", exported from the viewer."
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="recall-memories.md"`)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(transfer.MemoriesMarkdown("Recall memories", desc, ms)))
}

// errBadView is a view's parameters refused: 400 with its message.
type errBadView struct{ msg string }

func (e errBadView) Error() string { return e.msg }

func (h *handler) failView(w http.ResponseWriter, r *http.Request, err error) {
	if bad, ok := err.(errBadView); ok {
		writeError(w, http.StatusBadRequest, bad.msg)
		return
	}
	h.fail(w, r, err)
}

// viewMemories are the memories of the view the list shows with these
// parameters (q, namespace, type, order_by, the bounds, include_superseded):
// a search's hits, ranked, or every page of the list, up to max (truncated
// says there were more). The export and the delete of a view read it.
func (h *handler) viewMemories(r *http.Request, qs url.Values, max int) (ms []*memory.Memory, truncated bool, err error) {
	bounds, err := readBounds(qs)
	if err != nil {
		return nil, false, errBadView{err.Error()}
	}
	superseded, err := readSuperseded(qs)
	if err != nil {
		return nil, false, errBadView{err.Error()}
	}
	ns, typ, orderBy := qs.Get("namespace"), memory.Type(qs.Get("type")), qs.Get("order_by")
	query := strings.TrimSpace(qs.Get("q"))
	if query != "" {
		if orderBy != "" {
			return nil, false, errBadView{"order_by applies to the list, not to a search, which is ranked by relevance: drop order_by or q"}
		}
		res, err := h.mem.Recall(r.Context(), memory.RecallRequest{Query: query, NResults: memory.MaxNResults, Namespace: ns, Type: typ,
			SkipAccessUpdate: true, Bounds: bounds, IncludeSuperseded: superseded})
		if err != nil {
			return nil, false, err
		}
		for _, hit := range res.Memories {
			ms = append(ms, hit.Memory)
		}
		return ms, false, nil
	}
	for offset := 0; ; {
		res, err := h.mem.List(r.Context(), memory.ListRequest{Namespace: ns, Type: typ, OrderBy: orderBy, Limit: min(memory.MaxListLimit, max-offset+1),
			Offset: offset, Bounds: bounds, IncludeSuperseded: superseded})
		if err != nil {
			return nil, false, err
		}
		ms = append(ms, res.Memories...)
		offset += len(res.Memories)
		if len(ms) > max || (offset >= max && res.HasMore) {
			return ms[:max], true, nil
		}
		if !res.HasMore || len(res.Memories) == 0 {
			return ms, false, nil
		}
	}
}

// exportRecords is GET /api/export?format=jsonl (or memory-jsonl): everything
// the asker may see, in the format of `recall export` (a client machine's
// recall export). It takes no filters: it is the whole record.
func (h *handler) exportRecords(w http.ResponseWriter, r *http.Request, format string) {
	if len(r.URL.Query()) > 1 {
		writeError(w, http.StatusBadRequest, "format="+format+" exports everything you may see and takes no filters; the filters apply to format=json and markdown")
		return
	}
	if h.records == nil {
		writeError(w, http.StatusNotFound, "this viewer exports views only (format=json or markdown)")
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Disposition", `attachment; filename="recall-export.jsonl"`)
	// Records go out as they are read: an error midway can only cut the
	// stream, which the reader sees as a short file without its last line.
	var err error
	if format == "jsonl" {
		_, err = transfer.ExportJSONL(r.Context(), h.records, w, time.Now())
	} else {
		err = transfer.ExportMemoryServer(r.Context(), h.records, w)
	}
	if err != nil {
		h.log.Error("viewer: export failed midway", "format", format, "err", err)
		panic(http.ErrAbortHandler) // cut the response: never a file that looks whole
	}
}

// maxImportBody bounds POST /api/import.
const maxImportBody = 256 << 20

// importRecords is POST /api/import?namespace=NS: a `recall export` (jsonl)
// or an MCP memory server's memory.jsonl in the body, read in as `recall
// import` reads it (a client machine's recall import): bad lines reported by
// number and left out, the good ones written in one transaction, as the
// asker (into another person's namespace nothing is written).
func (h *handler) importRecords(w http.ResponseWriter, r *http.Request) {
	qs, ok := params(w, r, []string{"namespace"})
	if !ok {
		return
	}
	if h.records == nil {
		writeError(w, http.StatusNotFound, "this viewer does not import")
		return
	}
	sink := &watchedSink{Sink: h.records}
	rep, err := transfer.Import(r.Context(), sink, http.MaxBytesReader(w, r.Body, maxImportBody), transfer.ImportOptions{Namespace: qs.Get("namespace")})
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the file is over %d MB: split it, or import it on the server's machine", maxImportBody>>20))
	case err != nil && !sink.failed:
		// The file itself (its format, a line too long): the sender's to fix.
		writeError(w, http.StatusBadRequest, err.Error())
	case err != nil:
		h.fail(w, r, err)
	default:
		writeJSON(w, http.StatusOK, rep)
	}
}

// watchedSink tells an import's failure to write (the store's) from the
// file's own faults.
type watchedSink struct {
	transfer.Sink
	failed bool
}

func (s *watchedSink) Import(ctx context.Context, recs memory.Records) (*memory.ImportResult, error) {
	res, err := s.Sink.Import(ctx, recs)
	s.failed = err != nil
	return res, err
}
