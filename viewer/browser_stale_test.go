package viewer

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recall-mcp/recall/memory"
)

// The stale review on the Review page: re-validate one memory nobody checked
// for weeks, archive the other after the count, and find it in the Trash
// kept until restored.
func TestBrowserStaleReviewRevalidateAndArchive(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	oldest := f.storeOld(t, "Deploy with the old Makefile target.", memory.TypeDecision, "project:shop", 90)
	old := f.storeOld(t, "Tabs, not spaces, in the Makefile.", memory.TypePattern, "project:shop", 45)
	f.store(t, "Prefer short commit titles.", memory.TypePreference, "project:shop")
	srv := newLoopbackServer(t, f)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv+"/#/review")); err != nil {
		t.Fatal(err)
	}
	err := within(ctx, 20*time.Second,
		chromedp.WaitVisible(chromedp.CSS(`#stale li[data-id="`+old+`"]`)),
		chromedp.Click(chromedp.CSS(`#stale li[data-id="`+old+`"] input.pick`)),
		chromedp.Click(chromedp.CSS(`#stale-confirm`)),
		chromedp.WaitVisible(chromedp.CSS(`#stale-go`)),
	)
	if err != nil {
		t.Fatalf("asking to re-validate: %v", err)
	}
	days, _ := run(ctx, chromedp.Evaluate[string](`document.querySelector("#stale-days").value`))
	listed, _ := run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#stale li").length`))
	title, _ := run(ctx, chromedp.Text(chromedp.CSS(`#stale-title strong`)))
	screenshot(t, ctx, "stale-revalidate-confirm")
	if days != "30" || listed != 2 || title != "Re-validate 1 memory?" {
		t.Fatalf("stale review: days %q, %d listed, confirmation %q; want the default 30 days, the two old memories, a count of 1", days, listed, title)
	}
	err = within(ctx, 20*time.Second, chromedp.Click(chromedp.CSS(`#stale-go`)))
	if err == nil {
		_, err = run(ctx, chromedp.Poll[bool](`document.querySelector("#status").textContent === "confirmed 1 of 1 memories" && document.querySelectorAll("#stale li").length === 1`))
	}
	if err != nil {
		t.Fatalf("re-validating: %v", err)
	}
	if m, err := f.mem.Get(t.Context(), old); err != nil || m.Confidence <= memory.DefaultConfidence {
		t.Fatalf("re-validated memory: %+v %v", m, err)
	}

	err = within(ctx, 20*time.Second,
		chromedp.Click(chromedp.CSS(`#stale-all`)),
		chromedp.Click(chromedp.CSS(`#stale-archive`)),
		chromedp.WaitVisible(chromedp.CSS(`#stale-go`)),
	)
	if err != nil {
		t.Fatalf("asking to archive: %v", err)
	}
	title, _ = run(ctx, chromedp.Text(chromedp.CSS(`#stale-title strong`)))
	screenshot(t, ctx, "stale-archive-confirm")
	if title != "Archive 1 memory?" {
		t.Fatalf("archive confirmation %q", title)
	}
	err = within(ctx, 20*time.Second, chromedp.Click(chromedp.CSS(`#stale-go`)))
	if err == nil {
		_, err = run(ctx, chromedp.Poll[bool](`document.querySelector("#status").textContent === "archived 1 of 1 memories" && document.querySelectorAll("#stale li").length === 0`))
	}
	screenshot(t, ctx, "stale-archived")
	if err != nil {
		t.Fatalf("archiving: %v", err)
	}
	if _, err := f.mem.Get(t.Context(), oldest); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("archived memory still in the store: %v", err)
	}
	err = within(ctx, 20*time.Second,
		chromedp.Navigate(srv+"/#/trash"),
		chromedp.WaitVisible(chromedp.CSS(`#trash li[data-id="`+oldest+`"] .archived`)),
	)
	screenshot(t, ctx, "trash-archived")
	if err != nil {
		t.Fatalf("the archived memory in the trash: %v", err)
	}
}

// TestBrowserReviewFiltersInTheAddress: the stale review's filters live in
// the Review page's address: a shared link opens the same queue, Show adds
// a history entry, Back returns to the queue before, and a reload keeps it.
func TestBrowserReviewFiltersInTheAddress(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	shop := f.storeOld(t, "Deploy with the old Makefile target.", memory.TypeDecision, "project:shop", 90)
	blog := f.storeOld(t, "Posts are written in Markdown.", memory.TypeDecision, "project:blog", 20)
	srv := newLoopbackServer(t, f)
	shown := `[...document.querySelectorAll("#stale li[data-id]")].map((li) => li.dataset.id).join()`
	err := within(ctx, 20*time.Second,
		chromedp.Navigate(srv+"/#/review?days=60&ns=project:shop"),
		until(shown+` === `+strconv.Quote(shop)),
		until(`document.querySelector("#stale-days").value === "60" && document.querySelector("#stale-namespace").value === "project:shop"`),
		until(`document.querySelector('#nav a[data-view="review"]').getAttribute("href") === "#/review?days=60&ns=project:shop"`),
	)
	if err != nil {
		t.Fatalf("opening a shared review link: %v", err)
	}
	err = within(ctx, 20*time.Second,
		// every namespace that holds memories is offered
		until(`[...document.querySelectorAll("#stale-namespace option")].map((o) => o.value).join() === ",global,project:shop,project:blog"`),
		chromedp.SetValue(chromedp.CSS(`#stale-days`), "10"),
		chromedp.SetValue(chromedp.CSS(`#stale-namespace`), ""),
		chromedp.Click(chromedp.CSS(`#stale-filters button[type=submit]`)),
		until(`location.hash === "#/review?days=10"`),
		until(shown+` === `+strconv.Quote(shop+","+blog)),
		chromedp.Reload(),
		until(`document.querySelector("#stale-days").value === "10"`),
		until(shown+` === `+strconv.Quote(shop+","+blog)),
		chromedp.NavigateBack(),
		until(`location.hash === "#/review?days=60&ns=project:shop"`),
		until(shown+` === `+strconv.Quote(shop)),
	)
	if err != nil {
		s, _ := run(ctx, chromedp.Evaluate[string](shown+` + " at " + location.hash`))
		t.Fatalf("changing, reloading and going back: %v (shown %s)", err, s)
	}
}
