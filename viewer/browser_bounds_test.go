package viewer

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

// The confidence and date boxes of the list narrow it, and the export links
// follow.
func TestBrowserListByConfidenceAndDate(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	old := f.storeOld(t, "Cache the orders list in Redis", memory.TypeDecision, "global", 40)
	trusted := f.store(t, "Cache the orders page for five minutes", memory.TypeDecision, "global")
	f.store(t, "Cache nothing in the admin dashboard", memory.TypeDecision, "global")
	for range 3 {
		if _, err := f.val.Validate(t.Context(), validation.ValidateRequest{MemoryID: trusted, Success: true}); err != nil {
			t.Fatal(err)
		}
	}
	srv := newLoopbackServer(t, f)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv+"/")); err != nil {
		t.Fatal(err)
	}
	err := within(ctx, 20*time.Second,
		chromedp.WaitVisible(chromedp.CSS(`#memories li[data-id="`+old+`"]`)),
		chromedp.SetValue(chromedp.CSS(`#min-confidence`), "0.5"),
	)
	if err == nil {
		_, err = run(ctx, chromedp.Evaluate[bool](`document.getElementById("min-confidence").dispatchEvent(new Event("change"))`))
	}
	if err == nil {
		_, err = run(ctx, chromedp.Poll[bool](`document.querySelectorAll("#memories li").length === 1 && document.querySelector('#memories li[data-id="`+trusted+`"]') !== null`))
	}
	screenshot(t, ctx, "list-by-confidence")
	if err != nil {
		t.Fatalf("min confidence 0.5 should leave only %s: %v", trusted, err)
	}
	href, _ := run(ctx, chromedp.Evaluate[string](`document.getElementById("export-json").getAttribute("href")`))
	if href != "api/export?format=json&min_confidence=0.5" {
		t.Errorf("export link %q, want the view's filter in it", href)
	}
	until := time.Now().UTC().AddDate(0, 0, -30).Format(dateLayout)
	err = within(ctx, 20*time.Second,
		chromedp.SetValue(chromedp.CSS(`#min-confidence`), ""),
		chromedp.SetValue(chromedp.CSS(`#until`), until),
	)
	if err == nil {
		_, err = run(ctx, chromedp.Evaluate[bool](`document.getElementById("until").dispatchEvent(new Event("change"))`))
	}
	if err == nil {
		_, err = run(ctx, chromedp.Poll[bool](`document.querySelectorAll("#memories li").length === 1 && document.querySelector('#memories li[data-id="`+old+`"]') !== null`))
	}
	screenshot(t, ctx, "list-by-date")
	if err != nil {
		t.Fatalf("created until %s should leave only %s: %v", until, old, err)
	}
}
