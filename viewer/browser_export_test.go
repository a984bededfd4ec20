package viewer

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recall-mcp/recall/memory"
)

func TestBrowserExportTheFilteredView(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	f.store(t, "Use WAL journal mode for SQLite.", memory.TypeDecision, "project:recall")
	pat := f.store(t, "Release notes go in CHANGELOG.md", memory.TypePattern, "project:recall")
	f.store(t, "Prefer table-driven tests in Go", memory.TypePreference, "global")
	srv := newLoopbackServer(t, f)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv+"/")); err != nil {
		t.Fatal(err)
	}
	err := within(ctx, 20*time.Second,
		chromedp.WaitVisible(chromedp.CSS(`#memories li`)),
		chromedp.SetValue(chromedp.CSS(`#type`), "pattern"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#type").dispatchEvent(new Event("change"))`),
	)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run(ctx, chromedp.Poll[bool](`document.querySelectorAll("#memories li").length === 1 && document.querySelector("#export-json").href.includes("type=pattern")`)); err != nil {
		t.Fatalf("the filter never reached the export links: %v", err)
	}
	screenshot(t, ctx, "export-links")
	// What the link downloads: the filtered view, and Markdown likewise.
	ids, err := run(ctx, chromedp.Evaluate[[]string](`fetch(document.querySelector("#export-json").href).then((r) => r.json()).then((x) => x.memories.map((m) => m.id))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1 || ids[0] != pat {
		t.Errorf("the JSON link exports %v, want [%s]", ids, pat)
	}
	md, err := run(ctx, chromedp.Evaluate[string](`fetch(document.querySelector("#export-md").href).then((r) => r.text())`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if want := "> Release notes go in CHANGELOG.md"; !strings.Contains(md, want) || strings.Contains(md, "WAL") {
		t.Errorf("the Markdown link exports:\n%s", md)
	}
}
