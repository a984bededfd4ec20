package viewer

import (
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/memory"
)

// A live refresh of the Review page changes only the cards whose pair changed:
// a person typing a reason keeps the focus when another process adds a
// contradiction or resolves one, so that the next keys land in the reason and
// not on the page's 1-4, which resolve the selected pair.
func TestBrowserReviewRefreshLeavesATypedReasonAlone(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	a1, b1, e1 := f.contradiction(t, "Use tabs for indentation in Go files", "Use four spaces for indentation everywhere", memory.TypeDecision)
	_, _, e2 := f.contradiction(t, "Deploying on Fridays is fine with feature flags", "Never deploy on Fridays", memory.TypeDecision)
	srv := newLoopbackServer(t, f)
	reason := `document.querySelector('#pairs li.pair[data-edge="` + strconv.FormatInt(e1, 10) + `"] .reason-box')`
	cards := `document.querySelectorAll("#pairs li.pair").length`
	err := within(ctx, 20*time.Second,
		chromedp.Navigate(srv+"/#/review"),
		chromedp.WaitVisible(chromedp.CSS(`#pairs li.pair.selected`)),
		until(`document.body.dataset.live === "live"`),
		chromedp.Click(chromedp.JSPath(reason)),
		chromedp.KeyEvent("gofmt"),
		until(reason+`.value === "gofmt"`),
	)
	if err != nil {
		t.Fatalf("typing a reason on the first card: %v", err)
	}

	// Another process finds a contradiction: it joins the queue while the
	// reason is being typed.
	other := f.otherProcess(t)
	contradictionThrough(t, other, "Errors are wrapped with %w", "Errors are returned bare, never wrapped")
	if err := within(ctx, 20*time.Second, until(cards+` === 3`)); err != nil {
		t.Fatalf("the other process's contradiction never joined the queue: %v", err)
	}
	// And resolves the second pair: it leaves the queue.
	if _, err := other.ResolveContradiction(t.Context(), memory.ResolveRequest{EdgeID: e2, Resolution: memory.ResolveBothHold}); err != nil {
		t.Fatal(err)
	}
	if err := within(ctx, 20*time.Second, until(cards+` === 2`)); err != nil {
		t.Fatalf("the pair resolved by the other process never left the queue: %v", err)
	}
	// The person types on: "2" is part of the reason, not "B supersedes A".
	err = within(ctx, 20*time.Second,
		chromedp.KeyEvent(" 2 wins"),
		until(reason+`.value === "gofmt 2 wins"`),
	)
	if err != nil {
		got, _ := run(ctx, chromedp.Evaluate[string](`(`+reason+`?.value ?? "no card") + " / focus on " + document.activeElement.tagName + "." + document.activeElement.className`))
		t.Fatalf("the reason lost what was typed after the queue changed: %v (%s)", err, got)
	}
	screenshot(t, ctx, "review-typing-kept")
	es, err := f.db.Edges(t.Context(), memory.EdgeQuery{SourceID: b1, TargetID: a1, Direction: memory.DirectionOutgoing, Relations: []memory.Relation{memory.RelationSupersedes}})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 0 {
		t.Fatalf("a key typed into the reason resolved the pair (B supersedes A)")
	}
	// The selection stayed on the pair it was on.
	if sel, _ := run(ctx, chromedp.Evaluate[string](`document.querySelector("#pairs li.pair.selected")?.dataset.edge ?? ""`)); sel != strconv.FormatInt(e1, 10) {
		t.Errorf("selected pair %q after the queue changed, want %d", sel, e1)
	}
}

// A live refresh of the Trash leaves the items that did not change in place: a
// person who has focused a memory's Restore button (with the keyboard) keeps
// it when another process deletes a memory, and Enter restores theirs.
func TestBrowserTrashRefreshKeepsTheFocusedItem(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	a := f.store(t, "The staging database is reset every night.", memory.TypeDecision, "project:recall")
	b := f.store(t, "Staging lives on its own host.", memory.TypePattern, "project:recall")
	if w := f.do(t, "DELETE", "/api/memories/"+a, `{}`, nil); w.Code != 200 {
		t.Fatalf("delete: %d %s", w.Code, w.Body)
	}
	srv := newLoopbackServer(t, f)
	restoreA := `#trash li[data-id="` + a + `"] button.restore`
	err := within(ctx, 20*time.Second,
		chromedp.Navigate(srv+"/#/trash"),
		chromedp.WaitVisible(chromedp.CSS(restoreA)),
		until(`document.body.dataset.live === "live"`),
		chromedp.Focus(chromedp.CSS(restoreA)),
		until(`document.activeElement === document.querySelector('`+restoreA+`')`),
	)
	if err != nil {
		t.Fatalf("focusing the deleted memory's Restore: %v", err)
	}
	other := f.otherProcess(t)
	if _, err := other.Forget(t.Context(), memory.ForgetRequest{MemoryID: b, Confirm: true, Trash: true}); err != nil {
		t.Fatal(err)
	}
	if err := within(ctx, 20*time.Second, chromedp.WaitVisible(chromedp.CSS(`#trash li[data-id="`+b+`"]`))); err != nil {
		got, _ := run(ctx, chromedp.Evaluate[string](`document.body.dataset.changes + " | " + document.getElementById("trash-view").textContent`))
		t.Fatalf("the memory the other process deleted never showed in the trash: %v (%s)", err, got)
	}
	if focused, _ := run(ctx, chromedp.Evaluate[bool](`document.activeElement === document.querySelector('`+restoreA+`')`)); !focused {
		t.Fatalf("the trash lost the focused Restore button when another memory was deleted")
	}
	if err := within(ctx, 20*time.Second, chromedp.KeyEvent("\r"), chromedp.WaitNotPresent(chromedp.CSS(`#trash li[data-id="`+a+`"]`))); err != nil {
		t.Fatalf("Enter on the focused Restore: %v", err)
	}
	screenshot(t, ctx, "trash-focus-kept")
	if _, err := f.mem.Get(t.Context(), a); err != nil {
		t.Errorf("the memory is not back after Enter on its Restore: %v", err)
	}
}

// A live refresh of the Health page replaces only what changed: a fix the
// doctor gives, selected to be copied, stays selected when another process
// stores a memory (the counts and the doctor's database line change).
func TestBrowserHealthRefreshKeepsASelectedFix(t *testing.T) {
	ctx, f, srv := healthWithAWarning(t)
	fix := "ollama pull " + ollamatest.DefaultChatModel
	code := `[...document.querySelectorAll("#doctor code")].find((c) => c.textContent === ` + strconv.Quote(fix) + `)`
	err := within(ctx, 20*time.Second,
		chromedp.Navigate(srv+"/#/health"),
		until(code+` !== undefined`),
		until(`document.body.dataset.live === "live"`),
		chromedp.Evaluate[chromedp.Void](`(() => {
			window.selectedFix = `+code+`;
			const r = document.createRange();
			r.selectNodeContents(window.selectedFix);
			getSelection().removeAllRanges();
			getSelection().addRange(r);
		})()`),
		until(`getSelection().toString() === `+strconv.Quote(fix)),
	)
	if err != nil {
		t.Fatalf("selecting the doctor's fix: %v", err)
	}
	other := f.otherProcess(t)
	if _, err := other.Remember(t.Context(), memory.StoreRequest{Content: "Benchmarks run at normal priority.", Type: memory.TypePattern}); err != nil {
		t.Fatal(err)
	}
	err = within(ctx, 20*time.Second,
		until(`document.getElementById("health-memories")?.textContent === "2"`),
		until(`[...document.querySelectorAll("#doctor li.finding")].some((li) => li.textContent.includes("2 memories"))`),
	)
	if err != nil {
		t.Fatalf("the page never showed the other process's memory: %v", err)
	}
	screenshot(t, ctx, "health-selection-kept")
	if got, _ := run(ctx, chromedp.Evaluate[string](`(window.selectedFix.isConnected ? "" : "replaced, ") + getSelection().toString()`)); got != fix {
		t.Fatalf("selection after the refresh: %q, want %q kept", got, fix)
	}
}

// A live refresh of the stale review loads the filters shown, not what a
// person is typing in the form before pressing Show: the queue does not jump
// to a half-typed number of days, and what is typed stays.
func TestBrowserStaleRefreshKeepsTheShownFilters(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	shop := f.storeOld(t, "Deploy with the old Makefile target.", memory.TypeDecision, "project:shop", 90)
	blog := f.storeOld(t, "Posts are written in Markdown.", memory.TypeDecision, "project:blog", 20)
	srv := newLoopbackServer(t, f)
	shown := `[...document.querySelectorAll("#stale li[data-id]")].map((li) => li.dataset.id).join()`
	err := within(ctx, 20*time.Second,
		chromedp.Navigate(srv+"/#/review?days=60"),
		until(shown+` === `+strconv.Quote(shop)),
		until(`document.body.dataset.live === "live"`),
		chromedp.SetValue(chromedp.CSS(`#stale-days`), "10"), // typed, not shown yet
	)
	if err != nil {
		t.Fatalf("opening the stale review: %v", err)
	}
	// A memory unchecked for 70 days arrives (an import, say): the queue of
	// 60 days gains it; the blog's memory (20 days) is not in it.
	late := f.storeOld(t, "The CDN caches for an hour.", memory.TypeDecision, "project:shop", 70)
	err = within(ctx, 20*time.Second, until(`[...document.querySelectorAll("#stale li[data-id]")].some((li) => li.dataset.id === `+strconv.Quote(late)+`)`))
	if err != nil {
		t.Fatalf("the memory stored meanwhile never joined the queue: %v", err)
	}
	got, _ := run(ctx, chromedp.Evaluate[string](shown+` + " days " + document.querySelector("#stale-days").value + " at " + location.hash`))
	if want := shop + "," + late + " days 10 at #/review?days=60"; got != want {
		t.Fatalf("after a live refresh: %s, want %s (the blog's %s only once 10 days is shown)", got, want, blog)
	}
}

// A live refresh of the memory list replaces only the memories that changed:
// a person who has focused a memory's tick box (with the keyboard) keeps it
// when another process stores a memory, and Space ticks the one they meant.
func TestBrowserListRefreshKeepsTheFocusedItem(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	a := f.store(t, "Releases are tagged from main.", memory.TypeDecision, "global")
	f.store(t, "Prefer table-driven tests.", memory.TypePattern, "global")
	srv := newLoopbackServer(t, f)
	pick := `#memories li[data-id="` + a + `"] input.pick`
	err := within(ctx, 20*time.Second,
		chromedp.Navigate(srv+"/"),
		chromedp.WaitVisible(chromedp.CSS(pick)),
		until(`document.body.dataset.live === "live"`),
		chromedp.Focus(chromedp.CSS(pick)),
	)
	if err != nil {
		t.Fatalf("focusing a memory's tick box: %v", err)
	}
	res, err := f.otherProcess(t).Remember(t.Context(), memory.StoreRequest{Content: "Benchmarks run at normal priority.", Type: memory.TypePattern})
	if err != nil {
		t.Fatal(err)
	}
	if err := within(ctx, 20*time.Second, chromedp.WaitVisible(chromedp.CSS(`#memories li[data-id="`+res.ID+`"]`))); err != nil {
		t.Fatalf("the other process's memory never joined the list: %v", err)
	}
	if focused, _ := run(ctx, chromedp.Evaluate[bool](`document.activeElement === document.querySelector('`+pick+`')`)); !focused {
		t.Fatalf("the list lost the focused tick box when another memory was stored")
	}
	if err := within(ctx, 20*time.Second, chromedp.KeyEvent(" "), until(`document.getElementById("bulk-count")?.textContent === "1 selected"`)); err != nil {
		t.Fatalf("Space on the focused tick box: %v", err)
	}
	if ticked, _ := run(ctx, chromedp.Evaluate[bool](`document.querySelector('`+pick+`').checked`)); !ticked {
		t.Errorf("Space ticked another memory than the focused one")
	}
}
