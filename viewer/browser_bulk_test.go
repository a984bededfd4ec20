package viewer

import (
	"errors"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recall-mcp/recall/memory"
)

func TestBrowserBulkDelete(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	keep := f.store(t, "Keep the changelog current.", memory.TypePattern, "global")
	a := f.store(t, "The staging database is reset every night.", memory.TypeDecision, "project:recall")
	golden := f.store(t, "Never force-push to main.", memory.TypeGoldenRule, "global")
	c := f.store(t, "Tests run against a real SQLite file.", memory.TypePattern, "project:recall")
	srv := newLoopbackServer(t, f)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv+"/")); err != nil {
		t.Fatal(err)
	}
	// Newest first: c, golden, a, keep. "x" selects the keyboard's item, the
	// box selects another.
	err := within(ctx, 20*time.Second,
		chromedp.WaitVisible(chromedp.CSS(`#memories li[data-id="`+c+`"]`)),
		chromedp.KeyEvent("j"),
		chromedp.KeyEvent("x"),
		chromedp.KeyEvent("j"),
		chromedp.KeyEvent("x"),
		chromedp.Click(chromedp.CSS(`#memories li[data-id="`+a+`"] input.pick`)),
		chromedp.WaitVisible(chromedp.CSS(`#bulk-bar`)),
	)
	if err != nil {
		t.Fatalf("selecting with x and the boxes: %v", err)
	}
	if n, _ := run(ctx, chromedp.Text(chromedp.CSS(`#bulk-count`))); n != "3 selected" {
		t.Fatalf("bar says %q, want 3 selected", n)
	}
	err = within(ctx, 20*time.Second,
		chromedp.Click(chromedp.CSS(`#bulk-delete`)),
		chromedp.WaitVisible(chromedp.CSS(`#bulk-force`)),
	)
	if err != nil {
		t.Fatalf("asking to delete: %v", err)
	}
	title, _ := run(ctx, chromedp.Text(chromedp.CSS(`#bulk-title strong`)))
	previews, _ := run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#bulk-preview li").length`))
	disabled, _ := run(ctx, chromedp.Evaluate[bool](`document.querySelector("#bulk-go").disabled`))
	screenshot(t, ctx, "bulk-delete-confirm")
	if title != "Delete 3 memories?" || previews != 3 || !disabled {
		t.Fatalf("confirmation: title %q, %d previews, button disabled %v; want the count 3, 3 previews, disabled until force", title, previews, disabled)
	}
	err = within(ctx, 20*time.Second,
		chromedp.Click(chromedp.CSS(`#bulk-force`)),
		chromedp.Click(chromedp.CSS(`#bulk-go`)),
		chromedp.WaitNotPresent(chromedp.CSS(`#bulk-go`)),
	)
	if err == nil {
		_, err = run(ctx, chromedp.Poll[bool](`document.querySelector("#status").textContent === "deleted 3 of 3 memories" && document.querySelectorAll("#memories li").length === 1`))
	}
	screenshot(t, ctx, "bulk-deleted")
	if err != nil {
		t.Fatalf("deleting: %v", err)
	}
	for _, id := range []string{a, golden, c} {
		if _, err := f.mem.Get(t.Context(), id); !errors.Is(err, memory.ErrNotFound) {
			t.Errorf("%s after the bulk delete: %v", id, err)
		}
	}
	if _, err := f.mem.Get(t.Context(), keep); err != nil {
		t.Errorf("unselected memory: %v", err)
	}
}
