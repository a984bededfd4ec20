package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/recall-mcp/recall/hook"
	"github.com/recall-mcp/recall/internal/lazy"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/spool"
)

// HookPrefix is where a team server answers the hooks of its client
// machines: POST /hook/<event> with the hook's JSON input as the body,
// answered with what the hook prints (the JSON Claude Code reads; empty when
// the hook says nothing).
const HookPrefix = "/hook/"

// EventIDHeader carries a client's id for the event. The hook's writes are
// made under it (spool.WithWriteID), so the same event sent again (the client
// never heard the first answer and kept it in its outbox) writes nothing
// twice.
const EventIDHeader = "Recall-Event-Id"

// Hooks answers client machines' hooks with the server's own hook handler,
// as the person whose token came with the request.
type Hooks struct {
	Handle   hook.HandleFunc
	Deadline time.Duration // bounds one event, as for a hook on this machine
	Logger   *slog.Logger
}

// maxHookBody bounds a hook's input.
const maxHookBody = 8 << 20

// eventIDPattern is compiled on first use: its {1,128} makes 128 states, and
// every recall process (each hook) would compile it at start.
var eventIDPattern = lazy.Regexp(`^[0-9A-Za-z_.-]{1,128}$`)

func (h *Hooks) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "POST the hook's JSON input to "+HookPrefix+"<event>", http.StatusMethodNotAllowed)
		return
	}
	event, err := hook.ParseEvent(r.URL.Path[len(HookPrefix):])
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxHookBody))
	if err != nil {
		http.Error(w, "could not read the hook's input: "+err.Error(), http.StatusBadRequest)
		return
	}
	in, err := hook.ParseInput(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if v := r.Header.Get(hook.TranscriptOffsetHeader); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			http.Error(w, hook.TranscriptOffsetHeader+" must be the transcript's size in bytes, a whole number from 0, not "+strconv.Quote(v), http.StatusBadRequest)
			return
		}
		in.TranscriptOffset = &n
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.Deadline)
	defer cancel()
	// The hook's cwd is a path of the client machine; the project it
	// resolved there comes with the request.
	if ctx, err = withClientProject(ctx, r.Header); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if id := r.Header.Get(EventIDHeader); id != "" {
		if !eventIDPattern().MatchString(id) {
			http.Error(w, EventIDHeader+" must be 1 to 128 letters, digits and . _ -", http.StatusBadRequest)
			return
		}
		// The ids are the client's: one person's cannot shadow another's.
		ctx = spool.WithWriteID(ctx, "client:"+memory.PrincipalFrom(ctx).Author()+":"+id)
	}
	out, err := h.Handle(ctx, event, in)
	if err != nil {
		log := h.Logger
		if log == nil {
			log = slog.Default()
		}
		log.Warn("client hook not answered", "hook", event, "err", err)
		if errors.Is(err, memory.ErrInvalid) {
			// Never good: the client sets it aside rather than hold up
			// the events behind it.
			http.Error(w, "hook refused: "+err.Error(), http.StatusUnprocessableEntity)
			return
		}
		// Not handled this time: the client keeps it and sends it again.
		http.Error(w, "hook not answered: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if out != nil {
		_ = json.NewEncoder(w).Encode(out)
	}
}
