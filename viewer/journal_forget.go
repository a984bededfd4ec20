package viewer

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/recall-mcp/recall/capture"
)

// ForgetCaptured removes what the hooks captured of a session and/or before
// a time (journal entries, file activity, the session memories summaries
// became), as whoever asks in ctx: a person forgets their own sessions
// alone. Unconfirmed it only counts the entries.
type ForgetCaptured func(ctx context.Context, session string, before time.Time, confirm bool) (*capture.ForgetResult, error)

// forgetCapturedBody is POST /api/journal/forget.
type forgetCapturedBody struct {
	Session string `json:"session"`
	Before  string `json:"before"` // RFC 3339
	Confirm bool   `json:"confirm"`
}

// forgottenCaptured is its answer: what was deleted, or with dry_run what
// would be.
type forgottenCaptured struct {
	Entries  int      `json:"entries"`
	Memories []string `json:"memories"`
	Kept     []string `json:"kept"`
	DryRun   bool     `json:"dry_run"`
}

// forgetJournal is POST /api/journal/forget: recall forget --session/--before
// of a client machine.
func (h *handler) forgetJournal(w http.ResponseWriter, r *http.Request) {
	var body forgetCapturedBody
	if err := decodeBody(w, r, &body); err != nil || (strings.TrimSpace(body.Session) == "" && body.Before == "") {
		writeError(w, http.StatusBadRequest, `invalid body: accepted a JSON object {"session": "<Claude Code session id>", "before": "<RFC 3339 time>", "confirm": true} with a session, a time or both (confirm false only counts)`)
		return
	}
	if h.forgetCaptured == nil {
		writeError(w, http.StatusServiceUnavailable, "the journal is off: the viewer was started without the session journal")
		return
	}
	var before time.Time
	if body.Before != "" {
		var err error
		if before, err = time.Parse(time.RFC3339Nano, body.Before); err != nil {
			writeError(w, http.StatusBadRequest, `invalid before "`+body.Before+`": accepted a time as RFC 3339, such as 2026-01-02T15:04:05Z`)
			return
		}
	}
	res, err := h.forgetCaptured(r.Context(), strings.TrimSpace(body.Session), before, body.Confirm)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out := forgottenCaptured{Entries: res.Entries, Memories: orNone(res.Memories), Kept: orNone(res.Kept), DryRun: !body.Confirm}
	writeJSON(w, http.StatusOK, out)
}

func orNone(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
