package viewer

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recall-mcp/recall/memory"
)

// TestBrowserReadOnlyViewer opens a viewer served to other machines the way a
// person would: once with ?token= in the URL. The page lands on the clean URL,
// says it is read-only, and shows no control that would change something.
func TestBrowserReadOnlyViewer(t *testing.T) {
	ctx := newBrowser(t)
	base := newFixture(t)
	id := base.store(t, "Deploys go out on Tuesdays, never on Fridays", memory.TypeDecision, "project:recall")
	base.store(t, "Prefer table-driven tests in Go", memory.TypePreference, "global")
	f := base.withAccess(Access{Token: testToken, ReadOnly: true})
	srv := httptest.NewServer(f.h)
	t.Cleanup(srv.Close)

	// Opened without the token: a page asks for it. A wrong one is said to
	// be wrong; the right one opens the viewer.
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	err := within(ctx, 20*time.Second,
		chromedp.WaitVisible(chromedp.CSS(`#token-form`)),
		chromedp.SendKeys(chromedp.CSS(`#token`), "not-the-token"),
		chromedp.Submit(chromedp.CSS(`#token-form`)),
		chromedp.WaitVisible(chromedp.CSS(`#token-wrong`)))
	if err != nil {
		t.Fatalf("the token page never said the token was wrong: %v", err)
	}
	screenshot(t, ctx, "token-asked")
	err = within(ctx, 20*time.Second,
		chromedp.SendKeys(chromedp.CSS(`#token`), testToken),
		chromedp.Submit(chromedp.CSS(`#token-form`)),
		chromedp.WaitVisible(chromedp.CSS(`#memories li`)), chromedp.WaitVisible(chromedp.CSS(`#read-only-note`)))
	if err != nil {
		t.Fatalf("the read-only list never showed after the token was given: %v", err)
	}
	href, err := run(ctx, chromedp.Evaluate[string](`location.href`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(href, "token") {
		t.Errorf("the address bar still holds the token: %s", href)
	}
	// Visible write controls on the list: the bulk selection boxes.
	picks, err := run(ctx, chromedp.Evaluate[int](`[...document.querySelectorAll("#memories .pick")].filter((e) => e.checkVisibility()).length`))
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "read-only-list")
	if picks != 0 {
		t.Errorf("%d bulk selection boxes visible on a read-only list, want none", picks)
	}

	err = within(ctx, 20*time.Second,
		chromedp.Navigate(srv.URL+"/#/m/"+id),
		chromedp.WaitVisible(chromedp.CSS(`#memory-content`)),
		chromedp.WaitVisible(chromedp.CSS(`#graph-link`)),
	)
	if err != nil {
		t.Fatalf("the memory page never showed: %v", err)
	}
	visible, err := run(ctx, chromedp.Evaluate[[]string](`["confirm", "refute", "edit", "promote", "delete", "graph-link", "raw-toggle"].filter((id) => document.getElementById(id)?.checkVisibility())`))
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "read-only-memory")
	if strings.Join(visible, " ") != "graph-link raw-toggle" {
		t.Errorf("controls visible on a read-only memory page: %v; want only graph-link and raw-toggle", visible)
	}
}

// TestBrowserReadOnlyEmptyStore: an empty store in a read-only viewer says
// how memories arrive without offering New memory…, which it does not show.
func TestBrowserReadOnlyEmptyStore(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t).withAccess(Access{Token: testToken, ReadOnly: true})
	srv := httptest.NewServer(f.h)
	t.Cleanup(srv.Close)
	open(t, ctx, srv.URL+"/?token="+testToken, "#welcome")
	text, err := run(ctx, chromedp.Evaluate[string](`document.querySelector("#welcome").innerText`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text, "New memory") || !strings.Contains(text, "recall add") || !strings.Contains(text, "recall import") {
		t.Errorf("a read-only empty store's welcome:\n%s\nwant recall add and recall import, and no New memory…", text)
	}
}
