package viewer

import (
	"context"
	"net"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/recall-mcp/recall/memory"
)

// TestBrowserCatchesUpAcrossARestart: a page that has seen no change yet
// when the server stops (it knows only the position it was given on
// connecting) shows the memories stored while the server was down once a new
// run of the server (a new process: its own handler and event hub) is back on
// the same address.
func TestBrowserCatchesUpAcrossARestart(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	f.store(t, "Already here when the page opened", memory.TypeSession, "global")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	serve := func(ln net.Listener, h func() *fixture) (stop func()) {
		sctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { defer close(done); _ = Serve(sctx, ln, h().h) }()
		stop = func() { cancel(); <-done }
		t.Cleanup(stop)
		return stop
	}
	stop := serve(ln, func() *fixture { return f })
	open(t, ctx, "http://"+addr+"/", "#memories li")
	if _, err := run(ctx, chromedp.Poll[bool](`document.body.dataset.live === "live"`)); err != nil {
		t.Fatalf("the page never went live: %v", err)
	}

	stop()
	if _, err := run(ctx, chromedp.Poll[bool](`!document.getElementById("live-banner").hidden`)); err != nil {
		t.Fatalf("no reconnecting banner after the server stopped: %v", err)
	}
	other := f.otherProcess(t)
	var missed []string
	for _, text := range []string{"First memory stored while the viewer was down", "Second memory stored while the viewer was down"} {
		res, err := other.Remember(t.Context(), memory.StoreRequest{Content: text, Type: memory.TypeDecision})
		if err != nil {
			t.Fatal(err)
		}
		missed = append(missed, res.ID)
	}

	ln2, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("could not listen on %s again: %v", addr, err)
	}
	serve(ln2, func() *fixture {
		return &fixture{h: New(Deps{Memory: f.mem, Validation: f.val, DB: f.db, Journal: f.journal()})}
	})
	for _, id := range missed {
		sel := `#memories li[data-id="` + id + `"]`
		if _, err := run(ctx, chromedp.Poll[bool](`document.getElementById("live-banner").hidden && document.querySelector('`+sel+`') !== null`)); err != nil {
			screenshot(t, ctx, "restart-missed")
			t.Fatalf("after the restart the page never showed %s, stored while the server was down: %v", id, err)
		}
	}
}
