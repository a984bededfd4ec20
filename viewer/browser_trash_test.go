package viewer

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recall-mcp/recall/memory"
)

func TestBrowserTrashRestore(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	a := f.store(t, "The staging database is reset every night.", memory.TypeDecision, "project:recall")
	b := f.store(t, "Staging lives on its own host.", memory.TypePattern, "project:recall")
	if _, err := f.mem.Relate(t.Context(), memory.RelateRequest{SourceID: a, TargetID: b, Relation: memory.RelationRelatesTo}); err != nil {
		t.Fatal(err)
	}
	if w := f.do(t, "DELETE", "/api/memories/"+a, `{}`, nil); w.Code != 200 {
		t.Fatalf("delete: %d %s", w.Code, w.Body)
	}
	srv := newLoopbackServer(t, f)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv+"/#/trash")); err != nil {
		t.Fatal(err)
	}
	err := within(ctx, 20*time.Second, chromedp.WaitVisible(chromedp.CSS(`#trash li[data-id="`+a+`"] button.restore`)))
	if err != nil {
		t.Fatalf("the trash never listed the deleted memory: %v", err)
	}
	screenshot(t, ctx, "trash")
	err = within(ctx, 20*time.Second,
		chromedp.Click(chromedp.CSS(`#trash li[data-id="`+a+`"] button.restore`)),
		chromedp.WaitVisible(chromedp.CSS(`#trash-empty`)),
	)
	if err != nil {
		t.Fatalf("restoring: %v", err)
	}
	screenshot(t, ctx, "trash-restored")
	d := decode[Detail](t, f.do(t, "GET", "/api/memories/"+a, "", nil), 200)
	if d.Memory.Content != "The staging database is reset every night." || len(d.Edges) != 1 {
		t.Errorf("restored: %+v with %d edges", d.Memory, len(d.Edges))
	}
}
