package server

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"time"

	"github.com/recall-mcp/recall/hook"
	"github.com/recall-mcp/recall/memory"
)

// HookPrefix is where a team server answers the hooks of its client
// machines: POST /hook/<event> with the hook's JSON input as the body,
// answered with what the hook prints (the JSON Claude Code reads; empty when
// the hook says nothing).
const HookPrefix = "/hook/"

// EventIDHeader carries a client's id for the event: the same id sent twice
// (the client never heard the first answer and spooled the event) is applied
// once.
const EventIDHeader = "Recall-Event-Id"

// Hooks answers client machines' hooks with the server's own hook handler,
// as the person whose token came with the request.
type Hooks struct {
	Open hook.Open
	// Claim records an event id and reports whether it is new.
	Claim    func(ctx context.Context, id string) (bool, error)
	Deadline time.Duration
	Logger   *slog.Logger
}

// maxHookBody bounds a hook's input (a tool call's output is cut by the
// hook itself well below this).
const maxHookBody = 8 << 20

var eventIDPattern = regexp.MustCompile(`^[0-9A-Za-z_.:-]{1,128}$`)

func (h *Hooks) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "POST the hook's JSON input to "+HookPrefix+"<event>", http.StatusMethodNotAllowed)
		return
	}
	event := r.URL.Path[len(HookPrefix):]
	if _, err := hook.ParseEvent(event); err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxHookBody))
	if err != nil {
		http.Error(w, "could not read the hook's input: "+err.Error(), http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	if id := r.Header.Get(EventIDHeader); id != "" {
		if !eventIDPattern.MatchString(id) {
			http.Error(w, EventIDHeader+" must be 1 to 128 letters, digits and . _ : -", http.StatusBadRequest)
			return
		}
		// Ids are the client's: one person's cannot shadow another's.
		first, err := h.Claim(ctx, "hook:"+memory.PrincipalFrom(ctx).Author()+":"+id)
		if err != nil {
			http.Error(w, "could not record the event: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		if !first {
			w.WriteHeader(http.StatusOK) // applied before: nothing more to say
			return
		}
	}
	var out bytes.Buffer
	hook.Run(ctx, event, bytes.NewReader(body), &out, h.Deadline, h.Logger, h.Open)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out.Bytes())
}
