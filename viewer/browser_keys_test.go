package viewer

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/recall-mcp/recall/memory"
)

func TestBrowserHelpAndTheme(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	a := f.store(t, "Use WAL journal mode for SQLite.", memory.TypeDecision, "project:recall")
	b := f.store(t, "Checkpoint the WAL on shutdown.", memory.TypePattern, "project:recall")
	if _, err := f.mem.Relate(t.Context(), memory.RelateRequest{SourceID: a, TargetID: b, Relation: memory.RelationRelatesTo}); err != nil {
		t.Fatal(err)
	}
	srv := newLoopbackServer(t, f)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv+"/#/m/"+a)); err != nil {
		t.Fatal(err)
	}
	// "?" opens the help, Escape closes it.
	err := within(ctx, 20*time.Second,
		chromedp.WaitVisible(chromedp.CSS(`#memory-content`)),
		chromedp.KeyEvent("?"),
		chromedp.WaitVisible(chromedp.CSS(`#help`)),
	)
	if err != nil {
		t.Fatalf("? never opened the help: %v", err)
	}
	screenshot(t, ctx, "help")
	err = within(ctx, 20*time.Second,
		chromedp.KeyEvent(kb.Escape),
		chromedp.WaitNotVisible(chromedp.CSS(`#help`)),
		// "g" goes to the graph and back.
		chromedp.KeyEvent("g"),
		chromedp.WaitVisible(chromedp.CSS(`#graph-canvas[data-nodes]`)),
		chromedp.KeyEvent("g"),
		chromedp.WaitVisible(chromedp.CSS(`#memory-content`)),
	)
	if err != nil {
		t.Fatalf("Escape, then g and g: %v", err)
	}
	// The theme: system, then light, then dark, kept across a reload.
	bg := `getComputedStyle(document.body).backgroundColor`
	err = within(ctx, 20*time.Second,
		chromedp.Click(chromedp.CSS(`#theme`)),
		chromedp.Click(chromedp.CSS(`#theme`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	dark, err := run(ctx, chromedp.Evaluate[string](bg))
	if err != nil {
		t.Fatal(err)
	}
	if dark != "rgb(15, 18, 22)" {
		t.Errorf("dark theme background %s, want rgb(15, 18, 22)", dark)
	}
	err = within(ctx, 20*time.Second,
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS(`#memory-content`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := run(ctx, chromedp.Evaluate[string](bg))
	label, _ := run(ctx, chromedp.Text(chromedp.CSS(`#theme`)))
	screenshot(t, ctx, "memory-dark")
	if again != dark || label != "Theme: dark" {
		t.Errorf("after a reload: background %s, label %q; want the dark theme kept", again, label)
	}
	err = within(ctx, 20*time.Second, chromedp.Click(chromedp.CSS(`#theme`)))
	if err != nil {
		t.Fatal(err)
	}
	// Back to system: headless Chromium reports light.
	if sys, _ := run(ctx, chromedp.Evaluate[string](bg)); sys != "rgb(255, 255, 255)" {
		t.Errorf("system theme background %s", sys)
	}
}
