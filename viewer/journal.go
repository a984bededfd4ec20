package viewer

import (
	"context"
	"net/http"
	"time"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/capture/journal"
)

// Journal is what the Journal page reads: the session journal a page at a
// time, through the capture service (*capture.Reader has it).
type Journal interface {
	Feed(ctx context.Context, req capture.FeedRequest) (*capture.FeedPage, error)
}

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

// journalFeed is GET /api/journal: what the hooks captured of sessions,
// newest first, for one namespace or all, one kind or all, a page at a time
// (before: an RFC 3339 time; the entries at or before it).
func (h *handler) journalFeed(w http.ResponseWriter, r *http.Request) {
	qs, ok := params(w, r, journalParams)
	if !ok {
		return
	}
	if h.journal == nil {
		writeError(w, http.StatusServiceUnavailable, "the journal is off: the viewer was started without the session journal")
		return
	}
	req := capture.FeedRequest{Namespace: qs.Get("namespace"), Kind: journal.Kind(qs.Get("kind"))}
	var err error
	if req.Limit, err = intParam(qs, "limit", capture.DefaultFeedLimit, 1, capture.MaxFeedLimit); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if raw := qs.Get("before"); raw != "" {
		if req.Before, err = time.Parse(time.RFC3339Nano, raw); err != nil {
			writeError(w, http.StatusBadRequest, `invalid before "`+raw+`": accepted a time as RFC 3339, such as 2026-01-02T15:04:05Z`)
			return
		}
	}
	feed, err := h.journal.Feed(r.Context(), req)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	page := journalPage{Entries: []journalItem{}, HasMore: feed.HasMore}
	for _, e := range feed.Entries {
		page.Entries = append(page.Entries, journalItem{ID: journal.EntryID(e.ID), Entry: e})
	}
	if feed.HasMore {
		page.Before = feed.Before.Format(time.RFC3339Nano)
	}
	writeJSON(w, http.StatusOK, page)
}
