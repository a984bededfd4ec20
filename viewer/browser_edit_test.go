package viewer

import (
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
		t.Fatalf("undoing the edit: %v", err)
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
