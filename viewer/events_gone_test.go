package viewer

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestEventsNoticeAGoneClient: a page that goes away closes its connection,
// and the stream ends then, not at the next heartbeat (which would fail to
// write): a browser's connections per host are few, and a stream that lives
// on holds one of them on the server's side too.
func TestEventsNoticeAGoneClient(t *testing.T) {
	saved := heartbeatEvery
	heartbeatEvery = time.Hour // only the closed connection can end the stream
	t.Cleanup(func() { heartbeatEvery = saved })
	f := newFixture(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	done := make(chan struct{})
	h := &handler{mem: f.mem, val: f.val, hub: newHub(f.db, log), log: log, done: done}
	srv := httptest.NewServer(http.HandlerFunc(h.events))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) }) // first: a stream that missed the close must not hang srv.Close

	listeners := func() int {
		h.hub.mu.Lock()
		defer h.hub.mu.Unlock()
		return h.hub.subs
	}
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if n := listeners(); res.StatusCode != http.StatusOK || n != 1 {
		t.Fatalf("stream: %d with %d listeners, want 200 with 1", res.StatusCode, n)
	}
	cancel() // the page is gone: its connection closes
	res.Body.Close()
	for deadline := time.Now().Add(10 * time.Second); listeners() != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the stream of a closed connection still listens (%d listeners)", listeners())
		}
	}
}
