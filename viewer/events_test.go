package viewer

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

// sseEvent is one event read off the stream; comment holds a ": ..." line.
type sseEvent struct {
	id, name, data, comment string
}

// stream opens GET /api/events with a Last-Event-ID (none when empty) and
// delivers its events until the test ends.
func stream(t *testing.T, base, lastID string) <-chan sseEvent {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/events", nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("events: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	out := make(chan sseEvent, 64)
	go func() {
		defer res.Body.Close()
		defer close(out)
		sc := bufio.NewScanner(res.Body)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev != (sseEvent{}) {
					out <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, ":"):
				ev.comment = strings.TrimSpace(line[1:])
			default:
				k, v, _ := strings.Cut(line, ": ")
				switch k {
				case "id":
					ev.id = v
				case "event":
					ev.name = v
				case "data":
					ev.data = v
				}
			}
		}
	}()
	return out
}

// eventWait bounds the wait for an event the server sends within its poll
// (250 ms): it only keeps a broken stream from hanging the test, so it leaves
// a loaded machine plenty of room.
const eventWait = 10 * time.Second

// next waits for the next event that is not a comment.
func next(t *testing.T, ch <-chan sseEvent, d time.Duration) sseEvent {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatal("the stream ended")
			}
			if ev.comment == "" {
				return ev
			}
		case <-deadline:
			t.Fatalf("no event within %v", d)
		}
	}
}

func changed(t *testing.T, ev sseEvent) changeEvent {
	t.Helper()
	if ev.name != "change" {
		t.Fatalf("event %+v, want a change", ev)
	}
	var c changeEvent
	if err := json.Unmarshal([]byte(ev.data), &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestEventsReportWritesFromAnotherProcessAndReplayAfterReconnect(t *testing.T) {
	f := newFixture(t)
	f.store(t, "Already here before the page opened", memory.TypeSession, "global")
	base := newLoopbackServer(t, f)
	other := f.otherProcess(t)

	ch := stream(t, base, "")
	// A fresh stream says where it stands first, before any change: a page
	// that reconnects after a restart has an id to come back with.
	pos := next(t, ch, eventWait)
	if pos.name != "position" || pos.id == "" {
		t.Fatalf("first event %+v, want a position with an id", pos)
	}
	start := time.Now()
	res, err := other.Remember(t.Context(), memory.StoreRequest{Content: "Written by a hook in another process", Type: memory.TypePattern})
	if err != nil {
		t.Fatal(err)
	}
	first := next(t, ch, eventWait)
	c := changed(t, first)
	t.Logf("a write from another connection reached the stream in %v", time.Since(start))
	if len(c.Changed) != 1 || c.Changed[0].ID != res.ID || !c.Changed[0].Created || c.Total != 2 {
		t.Fatalf("change %+v, want the new memory %s, created, total 2", c, res.ID)
	}
	if first.id == "" {
		t.Fatal("change event without an id")
	}

	// Changes made while the page was away are replayed from its last id.
	id2 := f.store(t, "Stored while the page was reconnecting", memory.TypeDecision, "global")
	second := changed(t, next(t, ch, eventWait))
	if len(second.Changed) != 1 || second.Changed[0].ID != id2 {
		t.Fatalf("second change %+v, want %s", second, id2)
	}
	replay := changed(t, next(t, stream(t, base, first.id), eventWait))
	if len(replay.Changed) != 1 || replay.Changed[0].ID != id2 {
		t.Errorf("replay after %s: %+v, want the change to %s", first.id, replay, id2)
	}

	// A validation changes a memory without creating one; a delete lowers the total.
	if _, err := f.val.Validate(t.Context(), validationConfirm(res.ID)); err != nil {
		t.Fatal(err)
	}
	upd := changed(t, next(t, ch, eventWait))
	if len(upd.Changed) != 1 || upd.Changed[0].ID != res.ID || upd.Changed[0].Created {
		t.Errorf("after validate: %+v, want %s changed, not created", upd, res.ID)
	}
	if _, err := other.Forget(t.Context(), memory.ForgetRequest{MemoryID: id2, Confirm: true}); err != nil {
		t.Fatal(err)
	}
	del := changed(t, next(t, ch, eventWait))
	if del.Total != 2 {
		t.Errorf("after a delete: %+v, want total 2", del)
	}

	// An edge alone (a contradiction found by another process) is news too.
	if _, err := other.Relate(t.Context(), memory.RelateRequest{SourceID: res.ID, TargetID: first0(t, f), Relation: memory.RelationContradicts}); err != nil {
		t.Fatal(err)
	}
	edge := changed(t, next(t, ch, eventWait))
	if !edge.Edges || len(edge.Changed) != 0 {
		t.Errorf("after a new edge: %+v, want edges true and no memory changed", edge)
	}

	// An id from another run of the server cannot be replayed: reset.
	if ev := next(t, stream(t, base, "zzzz-3"), eventWait); ev.name != "reset" {
		t.Errorf("unknown Last-Event-ID: %+v, want a reset event", ev)
	}
}

func TestEventsSendAHeartbeat(t *testing.T) {
	old := heartbeatEvery
	heartbeatEvery = 50 * time.Millisecond
	t.Cleanup(func() { heartbeatEvery = old })
	f := newFixture(t)
	ch := stream(t, newLoopbackServer(t, f), "")
	if ev := next(t, ch, eventWait); ev.name != "position" {
		t.Fatalf("first event %+v, want the position", ev)
	}
	deadline := time.After(eventWait)
	for {
		select {
		case ev := <-ch:
			if ev.comment == "ping" {
				return
			}
		case <-deadline:
			t.Fatal("no heartbeat comment on a quiet stream")
		}
	}
}

func validationConfirm(id string) validation.ValidateRequest {
	return validation.ValidateRequest{MemoryID: id, Success: true}
}

// first0 is the id of the oldest memory in the fixture.
func first0(t *testing.T, f *fixture) string {
	t.Helper()
	res, err := f.mem.List(t.Context(), memory.ListRequest{Limit: 1000})
	if err != nil || len(res.Memories) == 0 {
		t.Fatalf("list: %v", err)
	}
	return res.Memories[len(res.Memories)-1].ID
}

// TestEventsResetAfterARestart: the position a fresh page got from one run of
// the server is answered with a reset by the next run (another epoch), so the
// page reloads what it shows and catches up with what was stored meanwhile.
func TestEventsResetAfterARestart(t *testing.T) {
	f := newFixture(t)
	pos := next(t, stream(t, newLoopbackServer(t, f), ""), eventWait)
	if pos.name != "position" {
		t.Fatalf("first event %+v, want the position", pos)
	}
	f.store(t, "Stored while the viewer was down", memory.TypeDecision, "global")
	restarted := &fixture{mem: f.mem, val: f.val, db: f.db, h: New(Deps{Memory: f.mem, Validation: f.val, DB: f.db, Journal: f.journal()})}
	ev := next(t, stream(t, newLoopbackServer(t, restarted), pos.id), eventWait)
	if ev.name != "reset" || ev.id == "" || ev.id == pos.id {
		t.Errorf("reconnecting with %s to a restarted server: %+v, want a reset with the new position", pos.id, ev)
	}
}
