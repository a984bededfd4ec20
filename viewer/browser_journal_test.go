package viewer

import (
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recall-mcp/recall/capture/journal"
)

// TestBrowserJournalFeed: the Journal page lists what the hooks captured,
// newest first, filters by project and kind (in its address), and pages on.
func TestBrowserJournalFeed(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	t0 := time.Now().UTC().Add(-2 * time.Hour)
	kinds := make([]journal.Kind, 0, 60)
	for i := range 60 {
		kinds = append(kinds, []journal.Kind{journal.KindPrompt, journal.KindObservation, journal.KindObservation}[i%3])
	}
	shop := f.addEntries(t, t0, "project:shop", kinds...)
	f.addEntries(t, t0.Add(time.Hour), "project:blog", journal.KindSummary)
	if _, err := f.db.BindProject(t.Context(), "/src/shop", []string{"project:shop"}); err != nil {
		t.Fatal(err)
	}
	srv := newLoopbackServer(t, f)
	open(t, ctx, srv+"/#/journal", "#journal li")
	first, err := run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#journal li.entry")].map((li) => li.dataset.id)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 50 || first[1] != shop[59] {
		t.Errorf("the journal's first page: %d entries, second %v; want 50, the blog's summary then the shop's newest", len(first), first[:2])
	}
	err = within(ctx, 20*time.Second,
		chromedp.Click(chromedp.CSS(`#journal-older`)),
		until(`document.querySelectorAll("#journal li.entry").length === 61 && document.querySelector("#journal-older").hidden`))
	if err != nil {
		t.Fatalf("Older never showed the rest: %v", err)
	}
	err = within(ctx, 20*time.Second,
		chromedp.SetValue(chromedp.CSS(`#journal-kind`), "prompt"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#journal-kind").dispatchEvent(new Event("change"))`),
		until(`location.hash === "#/journal?kind=prompt" && [...document.querySelectorAll("#journal li.entry")].every((li) => li.classList.contains("prompt")) && document.querySelectorAll("#journal li.entry").length === 20 && document.querySelector("#journal-older").hidden`),
		chromedp.Click(chromedp.CSS(`#journal li.entry details summary`)),
		chromedp.WaitVisible(chromedp.CSS(`#journal li.entry details .content`)))
	if err != nil {
		t.Fatalf("filtering the journal by kind: %v", err)
	}
	screenshot(t, ctx, "journal")
}

// TestBrowserJournalLive: entries the hooks capture while the Journal page is
// open join it in their place by time, marked, without closing what the
// person opened; forgotten entries leave it.
func TestBrowserJournalLive(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	t0 := time.Now().UTC().Add(-time.Hour)
	f.addEntries(t, t0, "project:shop", journal.KindPrompt, journal.KindObservation, journal.KindObservation)
	srv := newLoopbackServer(t, f)
	open(t, ctx, srv+"/#/journal", "#journal li")
	err := within(ctx, 20*time.Second,
		until(`document.body.dataset.live === "live"`),
		chromedp.Click(chromedp.CSS(`#journal li.entry details summary`)),
		chromedp.WaitVisible(chromedp.CSS(`#journal li.entry details .content`)))
	if err != nil {
		t.Fatalf("the page never went live: %v", err)
	}
	now := f.addEntries(t, time.Now().UTC(), "project:shop", journal.KindPrompt)[0]
	// A hook's write applied late keeps its capture time: it goes below.
	late := f.addEntries(t, t0.Add(-time.Minute), "project:shop", journal.KindObservation)[0]
	err = within(ctx, 20*time.Second,
		until(`(() => {
			const ids = [...document.querySelectorAll("#journal li.entry")].map((li) => li.dataset.id);
			return ids.length === 5 && ids[0] === `+strconv.Quote(now)+` && ids[4] === `+strconv.Quote(late)+`;
		})()`),
		until(`document.querySelector("#journal li.entry").classList.contains("fresh")`),
		until(`document.querySelectorAll("#journal li.entry details[open]").length === 1 && document.querySelectorAll("#journal li.entry")[1].querySelector("details").open`))
	if err != nil {
		ids, _ := run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#journal li.entry")].map((li) => li.dataset.id)`))
		t.Fatalf("new entries on the open page: %v; shown %v, want %s first and %s last", err, ids, now, late)
	}
	screenshot(t, ctx, "journal-live")
	if _, _, err := f.db.ForgetEntries(t.Context(), "s-project:shop", time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := within(ctx, 20*time.Second, chromedp.WaitVisible(chromedp.CSS(`#journal-empty`))); err != nil {
		t.Fatalf("forgotten entries stayed on the page: %v", err)
	}
}
