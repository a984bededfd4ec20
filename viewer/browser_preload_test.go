package viewer

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recall-mcp/recall/memory"
)

// The first list page is asked for by index.html's preload, while the page's
// modules load, and the list uses that answer: one request, not two.
func TestBrowserFirstListComesFromThePreload(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	f.store(t, "Deploys go out on Tuesdays.", memory.TypeDecision, "global")
	srv := newLoopbackServer(t, f)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv+"/")); err != nil {
		t.Fatal(err)
	}
	if err := within(ctx, 20*time.Second, chromedp.WaitVisible(chromedp.CSS(`#memories li`))); err != nil {
		t.Fatal(err)
	}
	requests, err := run(ctx, chromedp.Evaluate[[]string](`performance.getEntriesByType("resource")
		.filter((e) => new URL(e.name).pathname.endsWith("/api/memories")).map((e) => e.initiatorType + " " + new URL(e.name).search)`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(requests, ", ") != "link ?limit=50&offset=0" {
		t.Errorf("list requests on the first load: %q; want one, made by the preload link", requests)
	}
}
