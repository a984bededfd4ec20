package viewer

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/recall-mcp/recall/memory"
)

func TestBrowserEditMemory(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	id := f.store(t, "The build uses bazel.", memory.TypeDecision, "project:recall")
	srv := newLoopbackServer(t, f)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv+"/#/m/"+id)); err != nil {
		t.Fatal(err)
	}
	// "e" opens the form on the memory's page.
	err := within(ctx, 20*time.Second,
		chromedp.WaitVisible(chromedp.CSS(`#memory-content`)),
		chromedp.KeyEvent("e"),
		chromedp.WaitVisible(chromedp.CSS(`#edit-form`)),
		chromedp.SetValue(chromedp.CSS(`#edit-content`), "The build uses **make**, not bazel."),
		chromedp.SetValue(chromedp.CSS(`#edit-type`), "pattern"),
		chromedp.SetValue(chromedp.CSS(`#edit-importance`), "0.8"),
	)
	if err != nil {
		t.Fatalf("opening the edit form with e: %v", err)
	}
	screenshot(t, ctx, "edit-form")
	err = within(ctx, 20*time.Second,
		chromedp.Click(chromedp.CSS(`#edit-save`)),
		chromedp.WaitNotPresent(chromedp.CSS(`#edit-form`)),
	)
	if err == nil {
		_, err = run(ctx, chromedp.Poll[bool](`document.querySelector("#memory-content strong")?.textContent === "make" && document.querySelector("#status").textContent.startsWith("Saved")`))
	}
	if err != nil {
		t.Fatalf("saving the edit: %v", err)
	}
	screenshot(t, ctx, "edit-saved")
	m, err := f.mem.Get(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if m.Content != "The build uses **make**, not bazel." || m.Type != memory.TypePattern || m.Importance != 0.8 {
		t.Errorf("stored after the edit: %q %s %v", m.Content, m.Type, m.Importance)
	}
	if log, err := f.mem.Changes(t.Context(), id); err != nil || len(log) != 1 {
		t.Errorf("changes recorded: %+v (%v), want one", log, err)
	}
	// Escape closes the form without saving.
	err = within(ctx, 20*time.Second,
		chromedp.KeyEvent("e"),
		chromedp.WaitVisible(chromedp.CSS(`#edit-form`)),
		chromedp.SendKeys(chromedp.CSS(`#edit-content`), kb.Escape),
		chromedp.WaitNotPresent(chromedp.CSS(`#edit-form`)),
	)
	if err != nil {
		t.Fatalf("escape from the form: %v", err)
	}

	// The edit is undone from the change log: every field back, the undo
	// recorded as an edit in turn; the first edit no longer matches the
	// memory and has no Undo, the undo itself has one (which would redo).
	err = within(ctx, 20*time.Second,
		chromedp.Click(chromedp.CSS(`#changes button.undo`)),
		until(`document.querySelector("#memory-content").textContent.trim() === "The build uses bazel." && document.querySelector("#status").textContent.startsWith("Undone")`))
	if err != nil {
		v, _ := run(ctx, chromedp.Evaluate[string](`document.querySelector("#memory-content").textContent + " / status " + document.querySelector("#status").textContent + " / undo buttons " + document.querySelectorAll("#changes button.undo").length + " / changes " + document.querySelectorAll("#changes li").length`))
		t.Fatalf("undoing the edit: %v (%s)", err, v)
	}
	screenshot(t, ctx, "edit-undone")
	m, err = f.mem.Get(t.Context(), id)
	if err != nil || m.Content != "The build uses bazel." || m.Type != memory.TypeDecision || m.Importance != 0.5 {
		t.Errorf("after undo: %+v (%v), want the content, type and importance of before the edit", m, err)
	}
	if log, err := f.mem.Changes(t.Context(), id); err != nil || len(log) != 2 {
		t.Errorf("changes recorded after the undo: %d (%v), want two edits", len(log), err)
	}
	if n, _ := run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#changes button.undo").length`)); n != 1 {
		t.Errorf("%d Undo buttons after the undo, want one (on the undo itself, which is in effect)", n)
	}
}

// TestBrowserMoveMemory moves a memory to another namespace from its edit
// form, reads the move in the change log, undoes it, and is told which
// memory stands in the way of a move onto the same text.
func TestBrowserMoveMemory(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	id := f.store(t, "Releases are tagged from main.", memory.TypeDecision, "project:recall")
	there := f.store(t, "Prefer table-driven tests.", memory.TypePattern, "project:shop")
	twin := f.store(t, "Prefer table-driven tests.", memory.TypePattern, "global")
	srv := newLoopbackServer(t, f)
	err := within(ctx, 20*time.Second,
		chromedp.Navigate(srv+"/#/m/"+id),
		chromedp.WaitVisible(chromedp.CSS(`#memory-content`)),
		// the namespaces that hold memories are offered
		until(`[...document.querySelectorAll("#namespace option")].some((o) => o.value === "project:shop")`),
		chromedp.Click(chromedp.CSS(`#edit`)),
		chromedp.WaitVisible(chromedp.CSS(`#edit-namespace`)),
		until(`[...document.querySelectorAll("#edit-namespaces option")].map((o) => o.value).join() === "global,project:recall,project:shop"`),
		chromedp.SetValue(chromedp.CSS(`#edit-namespace`), "project:web"),
		chromedp.Click(chromedp.CSS(`#edit-save`)),
		chromedp.WaitNotPresent(chromedp.CSS(`#edit-form`)),
		until(`document.querySelector("#status").textContent === "Saved: namespace (now in project:web)."`),
		until(`document.querySelector("#changes li strong")?.textContent === "Moved from project:recall to project:web"`),
		until(`document.querySelector("#changes button.undo")?.textContent === "Undo this move"`),
	)
	if err != nil {
		t.Fatalf("moving from the edit form: %v", err)
	}
	screenshot(t, ctx, "memory-moved")
	if m, err := f.mem.Get(t.Context(), id); err != nil || m.Namespace != "project:web" {
		t.Fatalf("stored after the move: %+v (%v)", m, err)
	}
	err = within(ctx, 20*time.Second,
		// Clicked in one step: the live update of the move may redraw the page.
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#changes button.undo").click()`),
		until(`document.querySelector("#status").textContent.startsWith("Undone: namespace")`),
		until(`document.querySelector(".meta.top")?.textContent.includes("project:recall")`))
	if err != nil {
		t.Fatalf("undoing the move: %v", err)
	}
	if m, err := f.mem.Get(t.Context(), id); err != nil || m.Namespace != "project:recall" {
		t.Fatalf("after undoing the move: %+v (%v)", m, err)
	}

	// Onto the same text in the other namespace: refused, the memory there named.
	err = within(ctx, 20*time.Second,
		chromedp.Navigate(srv+"/#/m/"+twin),
		// The page still shows the moved memory until twin's has loaded; an
		// Edit clicked there would land on a page about to be replaced.
		until(`document.querySelector("#memory-content")?.textContent.includes("table-driven")`),
		chromedp.Click(chromedp.CSS(`#edit`)),
		chromedp.WaitVisible(chromedp.CSS(`#edit-namespace`)),
		chromedp.SetValue(chromedp.CSS(`#edit-namespace`), "project:shop"),
		chromedp.Click(chromedp.CSS(`#edit-save`)),
		until(`document.querySelector("#status.error")?.textContent.includes(`+strconv.Quote(there)+`)`),
		chromedp.WaitVisible(chromedp.CSS(`#edit-form`)),
	)
	if err != nil {
		t.Fatalf("moving onto the same text: %v", err)
	}
	if m, err := f.mem.Get(t.Context(), twin); err != nil || m.Namespace != "global" {
		t.Fatalf("a refused move moved it: %+v (%v)", m, err)
	}
}

// TestBrowserFormOpenedWhileThePageLoads: the edit form opened while a
// memory's page reloads (after Confirm) is still there, with what was typed,
// once the page shows the new confidence; while another memory's page loads,
// the one still shown takes no clicks (an Edit there would edit the wrong
// memory and vanish).
func TestBrowserFormOpenedWhileThePageLoads(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	a := f.store(t, "The shop deploys on Fridays", memory.TypeDecision, "global")
	b := f.store(t, "The blog deploys from main", memory.TypeDecision, "global")
	var slow atomic.Bool // a memory's page takes seconds to load
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slow.Load() && r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/api/memories/mem_") {
			time.Sleep(3 * time.Second)
		}
		f.h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	open(t, ctx, srv.URL+"/#/m/"+a, "#memory-content")
	slow.Store(true)
	err := within(ctx, 30*time.Second,
		chromedp.Click(chromedp.CSS(`#confirm`)),
		chromedp.Click(chromedp.CSS(`#edit`)),
		chromedp.WaitVisible(chromedp.CSS(`#edit-content`)),
		chromedp.SendKeys(chromedp.CSS(`#edit-content`), "Typed while it loads. "),
		until(`document.querySelector(".meta.top").textContent.includes("confidence 0.4")`),
		// the form kept what was typed, and the focus where it was typed
		until(`document.querySelector("#edit-content")?.value.includes("Typed while it loads.") && document.activeElement.id === "edit-content"`))
	if err != nil {
		v, _ := run(ctx, chromedp.Evaluate[string](`document.querySelector(".meta.top").textContent + " / " + (document.querySelector("#edit-content")?.value ?? "no form")`))
		t.Fatalf("a form opened while the page reloaded: %v (%s)", err, v)
	}
	err = within(ctx, 30*time.Second,
		chromedp.Click(chromedp.CSS(`#edit-cancel`)),
		chromedp.Navigate(srv.URL+"/#/m/"+b),
		until(`document.querySelector("#memory").inert`),
		chromedp.Click(chromedp.CSS(`#edit`)),
		until(`document.querySelector("#edit-form") === null`),
		until(`document.querySelector("#memory-content").textContent.includes("The blog deploys") && !document.querySelector("#memory").inert`),
		until(`document.querySelector("#edit-form") === null`))
	if err != nil {
		t.Fatalf("the page of the memory left, while the next one loads: %v", err)
	}
}
