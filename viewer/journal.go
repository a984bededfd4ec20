package viewer

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/recall-mcp/recall/capture/journal"
)

// JournalReader is what the journal page reads: the session journal's
// entries of a namespace (every namespace when empty) at or before a moment,
// as capture's readers read it. *storage.DB has it.
type JournalReader interface {
	NamespaceAround(ctx context.Context, namespace string, at time.Time, before, after int) ([]*journal.Entry, error)
}

// Journal page sizes.
const (
	defaultJournalPage = 50
	maxJournalPage     = 200
)

// maxJournalScan bounds the batches one page of a kind reads.
const maxJournalScan = 20

var journalParams = []string{"namespace", "kind", "before", "limit"}

// journalItem is one entry with its public id (j<n>, as recall_details takes).
type journalItem struct {
	ID string `json:"id"`
	*journal.Entry
}

// journalPage is GET /api/journal: the newest entries first; Before is where
// the next (older) page starts.
type journalPage struct {
	Entries []journalItem `json:"entries"`
	HasMore bool          `json:"has_more"`
	Before  string        `json:"before,omitempty"`
}

// journalKinds are the kinds the page filters by.
var journalKinds = []journal.Kind{journal.KindPrompt, journal.KindObservation, journal.KindSummary}

// journalFeed is GET /api/journal: what the hooks captured of sessions,
// newest first, for one namespace or all, one kind or all, a page at a time
// (before: an RFC 3339 time; the entries at or before it).
func (h *handler) journalFeed(w http.ResponseWriter, r *http.Request) {
	qs := r.URL.Query()
	if err := onlyParams(qs, journalParams); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if h.journal == nil {
		writeError(w, http.StatusServiceUnavailable, "the journal is off: the viewer was started without its database")
		return
	}
	limit, err := intParam(qs, "limit", defaultJournalPage, 1, maxJournalPage)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	kind := journal.Kind(qs.Get("kind"))
	if kind != "" && !slices.Contains(journalKinds, kind) {
		writeError(w, http.StatusBadRequest, `invalid kind "`+string(kind)+`": accepted prompt, observation, summary`)
		return
	}
	at := time.Now().UTC()
	if raw := qs.Get("before"); raw != "" {
		if at, err = time.Parse(time.RFC3339Nano, raw); err != nil {
			writeError(w, http.StatusBadRequest, `invalid before "`+raw+`": accepted a time as RFC 3339, such as 2026-01-02T15:04:05Z`)
			return
		}
	}
	// The reader reads a namespace's entries in time order; a kind is
	// filtered here, reading on (at most maxJournalScan batches) until the
	// page is full or the journal's start is reached.
	page := journalPage{Entries: []journalItem{}}
	ns := qs.Get("namespace")
scan:
	for range maxJournalScan {
		batch, err := h.journal.NamespaceAround(r.Context(), ns, at, limit+1, 0)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		slices.Reverse(batch) // newest first
		full := len(batch) > limit
		if full {
			batch = batch[:limit]
		}
		for i, e := range batch {
			at = e.CreatedAt.Add(-time.Nanosecond)
			if kind == "" || e.Kind == kind {
				page.Entries = append(page.Entries, journalItem{ID: journal.EntryID(e.ID), Entry: e})
			}
			if len(page.Entries) == limit {
				page.HasMore = full || i < len(batch)-1
				break scan
			}
		}
		if !full {
			page.HasMore = false // the journal's start
			break
		}
		page.HasMore = true // the scan stops here; the next page goes on
	}
	if page.HasMore {
		page.Before = at.Format(time.RFC3339Nano)
	}
	writeJSON(w, http.StatusOK, page)
}
