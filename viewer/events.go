package viewer

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// Live updates: GET /api/events is a Server-Sent Events stream of what changed
// in the database, whoever wrote it. One poller per viewer looks at the
// database every pollEvery (PRAGMA data_version, in memory) and reads the
// changed rows only when something was committed.
var (
	pollEvery      = 250 * time.Millisecond
	heartbeatEvery = 15 * time.Second
	// idleStop stops the poller this long after the last page went away.
	idleStop = 30 * time.Second
)

const (
	ringSize = 256 // events kept for Last-Event-ID replay
	// lookBehind re-reads changes this far before the newest one seen: a
	// transaction that commits late may carry an earlier updated_at.
	lookBehind  = 2 * time.Second
	maxPerEvent = 200 // changed memories read per poll
)

// changeEvent is one SSE event: the memories written since the last event
// (Created when new), how many memories there are now, whether edges were
// added or removed (a contradiction found or resolved, a supersedes edge),
// and whether the session journal gained or lost entries (the hooks'
// capture: the Journal page follows it).
type changeEvent struct {
	seq     int64
	Changed []changedMemory `json:"changed"`
	Total   int             `json:"total"`
	Edges   bool            `json:"edges"`
	Journal bool            `json:"journal"`
}

type changedMemory struct {
	ID      string `json:"id"`
	Created bool   `json:"created"`
}

// hub polls the database while pages listen and keeps the last events for
// replay. Event ids are "<epoch>-<seq>": a new epoch (a restart of the server
// or of the poller) tells a page that reconnects that it may have missed
// changes, and it reloads what it shows.
type hub struct {
	db  Store
	log *slog.Logger

	mu      sync.Mutex
	epoch   string
	seq     int64
	ring    []changeEvent
	wake    chan struct{} // closed and replaced on each new event
	subs    int
	running bool
}

func newHub(db Store, log *slog.Logger) *hub {
	return &hub{db: db, log: log, wake: make(chan struct{})}
}

// subscribe registers a listener and starts the poller if needed.
func (h *hub) subscribe() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.subs++
	if h.running {
		return nil
	}
	w, err := h.db.Watch(context.Background())
	if err != nil {
		h.subs--
		return err
	}
	// The starting point is read before the first page is told it is
	// connected: a memory stored after that is news, however soon.
	base := readBaseline(w)
	h.running = true
	h.epoch = strconv.FormatInt(time.Now().UnixNano(), 36)
	h.seq, h.ring = 0, nil
	go h.poll(w, h.epoch, base)
	return nil
}

// baseline is what the poller compares the database with: the memories
// written lately (memory id -> the updated_at last reported), the newest
// updated_at seen, the memory count, and the edges' and journal entries'
// count and newest id.
type baseline struct {
	seen    map[string]time.Time
	mark    time.Time
	total   int
	edges   [2]int64
	journal [2]int64
}

// readBaseline takes whatever exists now as the starting point, not news.
func readBaseline(w memory.Watcher) baseline {
	b := baseline{seen: map[string]time.Time{}, total: -1}
	if c, err := w.ChangedSince(context.Background(), time.Now().Add(-lookBehind), maxPerEvent); err == nil {
		b.total, b.edges, b.journal = c.Total, c.Edges, c.Journal
		for _, st := range c.Memories {
			b.seen[st.ID], b.mark = st.UpdatedAt, later(b.mark, st.UpdatedAt)
		}
	}
	if b.mark.IsZero() {
		b.mark = time.Now().UTC()
	}
	return b
}

func (h *hub) unsubscribe() {
	h.mu.Lock()
	h.subs--
	h.mu.Unlock()
}

// poll runs until no page has listened for idleStop.
func (h *hub) poll(w memory.Watcher, epoch string, base baseline) {
	defer w.Close()
	ctx := context.Background()
	seen, mark, total, edges, entries := base.seen, base.mark, base.total, base.edges, base.journal
	idleSince := time.Time{}
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for range tick.C {
		h.mu.Lock()
		if h.subs > 0 {
			idleSince = time.Time{}
		} else if idleSince.IsZero() {
			idleSince = time.Now()
		} else if time.Since(idleSince) > idleStop {
			h.running = false
			h.mu.Unlock()
			return
		}
		h.mu.Unlock()

		changed, err := w.Changed(ctx)
		if err != nil {
			h.log.Warn("viewer: watching the database", "err", err)
			continue
		}
		if !changed {
			continue
		}
		c, err := w.ChangedSince(ctx, mark.Add(-lookBehind), maxPerEvent)
		if err != nil {
			h.log.Warn("viewer: reading changes", "err", err)
			continue
		}
		ev := changeEvent{Changed: []changedMemory{}, Total: c.Total, Edges: c.Edges != edges, Journal: c.Journal != entries}
		for _, st := range c.Memories {
			if prev, ok := seen[st.ID]; ok && prev.Equal(st.UpdatedAt) {
				continue
			}
			seen[st.ID] = st.UpdatedAt
			mark = later(mark, st.UpdatedAt)
			ev.Changed = append(ev.Changed, changedMemory{ID: st.ID, Created: st.CreatedAt.Equal(st.UpdatedAt)})
		}
		// Forget what is too old to be read again.
		for id, at := range seen {
			if at.Before(mark.Add(-2 * lookBehind)) {
				delete(seen, id)
			}
		}
		if len(ev.Changed) == 0 && c.Total == total && !ev.Edges && !ev.Journal {
			continue // an access count, a job: nothing a page shows
		}
		total, edges, entries = c.Total, c.Edges, c.Journal
		h.publish(epoch, ev)
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func (h *hub) publish(epoch string, ev changeEvent) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if epoch != h.epoch {
		return
	}
	h.seq++
	ev.seq = h.seq
	h.ring = append(h.ring, ev)
	if len(h.ring) > ringSize {
		h.ring = h.ring[len(h.ring)-ringSize:]
	}
	close(h.wake)
	h.wake = make(chan struct{})
}

// since returns the events after seq and the channel closed on the next one;
// ok is false when events after seq are no longer all kept (another epoch,
// or older than the ring).
func (h *hub) since(epoch string, seq int64) (evs []changeEvent, wake chan struct{}, cur string, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if epoch != h.epoch || seq > h.seq || (len(h.ring) > 0 && seq < h.ring[0].seq-1) || (len(h.ring) == 0 && seq != h.seq) {
		return nil, h.wake, h.epoch, false
	}
	for _, ev := range h.ring {
		if ev.seq > seq {
			evs = append(evs, ev)
		}
	}
	return evs, h.wake, h.epoch, true
}

// current is the id of the newest event.
func (h *hub) current() (string, int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.epoch, h.seq
}

// parseEventID reads "<epoch>-<seq>".
func parseEventID(s string) (epoch string, seq int64, ok bool) {
	epoch, n, found := strings.Cut(s, "-")
	if !found {
		return "", 0, false
	}
	seq, err := strconv.ParseInt(n, 10, 64)
	return epoch, seq, err == nil && seq >= 0
}

// events streams changes as Server-Sent Events:
//
//	event: position  sent first to a page that gave no last id: where the
//	                 stream stands, so it has an id to come back with
//	event: change  data {"changed":[{"id":…,"created":true}],"total":N,
//	               "edges":false,"journal":true}
//	event: reset   the page may have missed changes: reload what it shows
//	: ping         a comment every heartbeatEvery, so proxies and the page
//	               see the stream alive
//
// A page that reconnects sends the last id it saw (Last-Event-ID, or the
// last_event_id parameter for a fresh EventSource) and gets what it missed.
func (h *handler) events(w http.ResponseWriter, r *http.Request) {
	if err := onlyParams(r.URL.Query(), []string{"last_event_id"}); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if h.hub == nil {
		writeError(w, http.StatusServiceUnavailable, "live updates are off: the viewer was started without its database")
		return
	}
	last := r.Header.Get("Last-Event-ID")
	if last == "" {
		last = r.URL.Query().Get("last_event_id")
	}
	if err := h.hub.subscribe(); err != nil {
		h.fail(w, r, err)
		return
	}
	defer h.hub.unsubscribe()
	rc := http.NewResponseController(w)
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)

	epoch, seq := h.hub.current()
	if last != "" {
		e, s, ok := parseEventID(last)
		if ok {
			epoch, seq = e, s
		} else {
			epoch = "" // unreadable: start over
		}
	}
	if last == "" {
		// A fresh page learns where the stream stands before any change: if
		// the server restarts before the first change, the page reconnects
		// with this id, hears "reset" and reloads what it shows, catching up
		// with what was stored while the server was down.
		fmt.Fprintf(w, "id: %s-%d\nevent: position\ndata: {}\n\n", epoch, seq)
	} else {
		fmt.Fprint(w, ": connected\n\n")
	}
	heartbeat := time.NewTicker(heartbeatEvery)
	defer heartbeat.Stop()
	for {
		evs, wake, cur, ok := h.hub.since(epoch, seq)
		if !ok {
			// Missed changes: say so, then carry on from the newest event.
			curEpoch, curSeq := h.hub.current()
			fmt.Fprintf(w, "id: %s-%d\nevent: reset\ndata: {}\n\n", curEpoch, curSeq)
			epoch, seq = curEpoch, curSeq
			evs = nil
		}
		for _, ev := range evs {
			data, _ := json.Marshal(h.visibleEvent(r.Context(), ev))
			fmt.Fprintf(w, "id: %s-%d\nevent: change\ndata: %s\n\n", cur, ev.seq, data)
			seq = ev.seq
		}
		if err := rc.Flush(); err != nil {
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-h.done:
			return
		case <-heartbeat.C:
			fmt.Fprint(w, ": ping\n\n")
		case <-wake:
		}
	}
}

// visibleEvent is ev as the person asking in ctx may see it: the one poller
// watches the whole database, so another person's private memories are taken
// out here, by asking the store (its visibility rule) which of the changed
// memories this person sees, and the total is their own count.
func (h *handler) visibleEvent(ctx context.Context, ev changeEvent) changeEvent {
	if !memory.PrincipalFrom(ctx).Restricted() {
		return ev
	}
	ids := make([]string, len(ev.Changed))
	for i, c := range ev.Changed {
		ids[i] = c.ID
	}
	seen, err := h.mem.GetMany(ctx, ids)
	if err != nil {
		seen = nil
	}
	out := changeEvent{seq: ev.seq, Edges: ev.Edges, Journal: ev.Journal, Changed: []changedMemory{}}
	for _, c := range ev.Changed {
		if seen[c.ID] != nil {
			out.Changed = append(out.Changed, c)
		}
	}
	if n, err := h.mem.Count(ctx, memory.CountRequest{}); err == nil {
		out.Total = n
	}
	return out
}
