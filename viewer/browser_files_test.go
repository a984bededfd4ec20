package viewer

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

func TestBrowserFilesPage(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	for root, ns := range map[string]string{"/src/shop": "project:shop", "/src/blog": "project:blog"} {
		if _, err := f.db.BindProject(t.Context(), root, []string{ns}); err != nil {
			t.Fatal(err)
		}
	}
	f.touch(t, "/src/shop/main.go", "read", "/src/shop")
	f.touch(t, "/src/shop/main.go", "edit", "/src/shop")
	f.touch(t, "/src/shop/README.md", "write", "/src/shop")
	f.touch(t, "/src/blog/app.rb", "edit", "/src/blog")
	srv := newLoopbackServer(t, f)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv+"/#/files")); err != nil {
		t.Fatal(err)
	}
	err := within(ctx, 20*time.Second,
		chromedp.WaitVisible(chromedp.CSS(`#files tbody tr`)),
		chromedp.SetValue(chromedp.CSS(`#files-root`), "/src/shop"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#files-root").dispatchEvent(new Event("change"))`),
	)
	if err != nil {
		t.Fatalf("the files page: %v", err)
	}
	if _, err := run(ctx, chromedp.Poll[bool](`document.querySelectorAll("#files tbody tr").length === 2`)); err != nil {
		t.Fatalf("the shop's files never showed alone: %v", err)
	}
	paths, err := run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#files td.path")].map((td) => td.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "files-shop")
	for _, p := range paths {
		if p != "/src/shop/main.go" && p != "/src/shop/README.md" {
			t.Errorf("file %q shown for the shop", p)
		}
	}
}
