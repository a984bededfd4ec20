package viewer

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recall-mcp/recall/memory"
)

// TestBrowserManyFullLoadsInOneTab loads a dozen distinct viewer URLs, one
// after another, in one tab: each is a full page load with its own live
// update stream. A browser keeps six connections per host over HTTP/1.1, so a
// stream that outlives its page would leave the seventh load waiting.
func TestBrowserManyFullLoadsInOneTab(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	const loads = 12
	ids := make([]string, loads)
	for i := range ids {
		ids[i] = f.store(t, fmt.Sprintf("Memory number %d for the page load test", i), memory.TypeSession, "global")
	}
	srv := newLoopbackServer(t, f)
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		// A new query string makes each a full load, not a change of route.
		url := fmt.Sprintf("%s/?load=%d#/m/%s", srv, i, id)
		err := within(ctx, 15*time.Second,
			chromedp.Navigate(url),
			chromedp.WaitVisible(chromedp.CSS(`#memory-content`)),
		)
		if err == nil {
			_, err = run(ctx, chromedp.Poll[bool](fmt.Sprintf(`document.querySelector("#memory-content")?.textContent.includes("Memory number %d ") && document.body.dataset.live === "live"`, i)))
		}
		if err != nil {
			screenshot(t, ctx, fmt.Sprintf("load-%02d-stuck", i+1))
			t.Fatalf("load %d of %d (%s) never showed its memory with live updates on: %v", i+1, loads, url, err)
		}
	}
	screenshot(t, ctx, "after-many-loads")

	// Back to the list after leaving it: a page the browser kept in its
	// back/forward cache reconnects its stream, so a memory stored now
	// appears without a reload.
	err := within(ctx, 15*time.Second,
		chromedp.Navigate(srv+"/?load=list#/"),
		chromedp.WaitVisible(chromedp.CSS(`#memories li`)),
		chromedp.Navigate(fmt.Sprintf("%s/?load=last#/m/%s", srv, ids[0])),
		chromedp.WaitVisible(chromedp.CSS(`#memory-content`)),
	)
	if err == nil {
		// history.back(), not chromedp.NavigateBack: a page restored from the
		// back/forward cache fires no load event to wait for.
		_, err = run(ctx, chromedp.Evaluate[any](`setTimeout(() => history.back(), 0)`))
	}
	if err == nil {
		err = pollAcrossLoads(ctx, `location.search === "?load=list" && document.querySelectorAll("#memories li").length > 0`)
	}
	if err != nil {
		t.Fatalf("back to the list: %v", err)
	}
	if err := pollAcrossLoads(ctx, `document.body.dataset.live === "live"`); err != nil {
		t.Fatalf("the list came back without live updates: %v", err)
	}
	f.store(t, "Stored after coming back to the list", memory.TypeSession, "global")
	if err := pollAcrossLoads(ctx, `document.querySelector("#memories").textContent.includes("Stored after coming back")`); err != nil {
		dbg, derr := run(ctx, chromedp.Evaluate[string](`JSON.stringify({nav: performance.getEntriesByType("navigation")[0].type, live: document.body.dataset.live, n: document.querySelectorAll("#memories li").length, text: document.querySelector("#summary").textContent})`))
		t.Logf("page state %s %v", dbg, derr)
		screenshot(t, ctx, "back-not-live")
		t.Fatalf("a memory stored after going back never appeared: %v", err)
	}
	screenshot(t, ctx, "back-live")
}

// pollAcrossLoads waits until expr is true on the page, through a navigation
// (while the tab changes documents, evaluating fails for a moment).
func pollAcrossLoads(ctx context.Context, expr string) error {
	deadline := time.Now().Add(15 * time.Second)
	for {
		ok, err := run(ctx, chromedp.Evaluate[bool](expr))
		if err == nil && ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s never true (last error %v)", expr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
