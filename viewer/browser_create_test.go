package viewer

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recall-mcp/recall/memory"
)

// TestBrowserCreateAMemoryAndDeleteAView: a person writes a memory (key n),
// lands on its page, then deletes a whole filtered view after the same
// confirmation ticks get: the count and each preview first.
func TestBrowserCreateAMemoryAndDeleteAView(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	f.store(t, "Blog posts go out on Mondays", memory.TypeDecision, "project:blog")
	for _, c := range []string{"Scratch note one", "Scratch note two"} {
		f.store(t, c, memory.TypeSession, "project:scratch")
	}
	srv := newLoopbackServer(t, f)
	open(t, ctx, srv+"/", "#memories li")

	err := within(ctx, 20*time.Second,
		chromedp.KeyEvent("n"),
		chromedp.WaitVisible(chromedp.CSS(`#create-content`)),
		chromedp.SendKeys(chromedp.CSS(`#create-content`), "Deploys need a **second reviewer**"),
		chromedp.SetValue(chromedp.CSS(`#create-type`), "decision"),
		chromedp.SetValue(chromedp.CSS(`#create-namespace`), "project:shop"))
	if err != nil {
		t.Fatalf("the new memory form: %v", err)
	}
	screenshot(t, ctx, "create-form")
	err = within(ctx, 20*time.Second,
		chromedp.Click(chromedp.CSS(`#create-save`)),
		chromedp.WaitVisible(chromedp.CSS(`#memory-content strong`)))
	if err != nil {
		t.Fatalf("storing from the form: %v", err)
	}
	res, err := f.mem.List(t.Context(), memory.ListRequest{Namespace: "project:shop"})
	if err != nil || len(res.Memories) != 1 || res.Memories[0].Type != memory.TypeDecision || res.Memories[0].Source != memory.SourceViewer {
		t.Fatalf("after storing from the page, project:shop holds %+v (%v)", res, err)
	}

	// The scratch project's view, deleted whole.
	err = within(ctx, 20*time.Second,
		chromedp.Navigate(srv+"/#/?ns=project%3Ascratch"),
		until(`document.querySelectorAll("#memories li").length === 2`),
		chromedp.Click(chromedp.CSS(`#delete-view`)),
		chromedp.WaitVisible(chromedp.CSS(`#bulk-go`)))
	if err != nil {
		t.Fatalf("asking to delete the view: %v", err)
	}
	title, _ := run(ctx, chromedp.Text(chromedp.CSS(`#bulk-title`)))
	previews, _ := run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#bulk-preview li").length`))
	screenshot(t, ctx, "delete-view-confirm")
	if !strings.Contains(title, "Delete 2 memories of this view?") || previews != 2 {
		t.Errorf("confirmation %q with %d previews, want the count of the view and both previews", title, previews)
	}
	err = within(ctx, 20*time.Second,
		chromedp.Click(chromedp.CSS(`#bulk-go`)),
		until(`document.querySelectorAll("#memories li").length === 0`))
	if err != nil {
		t.Fatalf("deleting the view: %v", err)
	}
	if n, _ := f.mem.Count(t.Context(), memory.CountRequest{Namespace: "project:scratch"}); n != 0 {
		t.Errorf("%d scratch memories left", n)
	}
	if n, _ := f.mem.Count(t.Context(), memory.CountRequest{Namespace: "project:blog"}); n != 1 {
		t.Errorf("the blog's memory went with the scratch view")
	}
}
