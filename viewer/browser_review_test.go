package viewer

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

// open navigates to the viewer (the first run starts the browser: no time
// limit on it) and waits for sel.
func open(t *testing.T, ctx context.Context, url, sel string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	if err := within(ctx, 20*time.Second, chromedp.WaitVisible(chromedp.CSS(sel))); err != nil {
		t.Fatalf("%s never showed %s: %v", url, sel, err)
	}
}

func TestBrowserMemoryPageVersionsChartAndDelete(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	old := f.store(t, "Deploy with rsync to the single host", memory.TypeDecision, "project:recall")
	res, err := f.mem.Remember(t.Context(), memory.StoreRequest{
		Content: "Deploy with container images.\n\n- build in CI\n- <script>alert(1)</script> stays text",
		Type:    memory.TypeGoldenRule, Namespace: "project:recall",
		Metadata: map[string]any{"source": "retro 2026-03", "tags": []string{"deploy", "ci"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	cur := res.ID
	if _, err := f.mem.Relate(t.Context(), memory.RelateRequest{SourceID: cur, TargetID: old, Relation: memory.RelationSupersedes}); err != nil {
		t.Fatal(err)
	}
	for _, ok := range []bool{true, false, true, true} {
		if _, err := f.val.Validate(t.Context(), validation.ValidateRequest{MemoryID: cur, Success: ok}); err != nil {
			t.Fatal(err)
		}
	}
	srv := newLoopbackServer(t, f)

	// The old version's page says it is superseded and shows the chain.
	open(t, ctx, srv+"/#/m/"+old, "#superseded-notice")
	screenshot(t, ctx, "memory-superseded")

	open(t, ctx, srv+"/#/m/"+cur, "#confidence-chart")
	n, err := run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#chain li").length`))
	if err != nil || n != 2 {
		t.Errorf("versions list has %d entries (%v), want 2", n, err)
	}
	dots, err := run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#confidence-chart circle").length`))
	if err != nil || dots != 5 {
		t.Errorf("chart has %d points (%v), want 5: the start and four events", dots, err)
	}
	scripts, _ := run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#memory script").length`))
	if scripts != 0 {
		t.Errorf("a memory's text became a script element")
	}
	screenshot(t, ctx, "memory-complete")

	// Delete: the confirmation shows the text, and a golden rule needs force.
	if err := within(ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#delete`)), chromedp.WaitVisible(chromedp.CSS(`#delete-confirm`))); err != nil {
		t.Fatal(err)
	}
	shown, _ := run(ctx, chromedp.Text(chromedp.CSS(`#delete-content`)))
	disabled, _ := run(ctx, chromedp.Evaluate[bool](`document.getElementById("delete-confirm").disabled`))
	screenshot(t, ctx, "delete-confirm-golden")
	if !strings.Contains(shown, "Deploy with container images") || !disabled {
		t.Fatalf("confirmation shows %q, delete disabled %v; want the text and disabled until force", shown, disabled)
	}
	err = within(ctx, 10*time.Second,
		chromedp.Click(chromedp.CSS(`#delete-force`)),
		chromedp.Click(chromedp.CSS(`#delete-confirm`)),
		chromedp.WaitVisible(chromedp.CSS(`#list-view`)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run(ctx, chromedp.Poll[bool](`document.getElementById("status").textContent.includes("deleted 1")`)); err != nil {
		t.Errorf("no deleted message after the delete: %v", err)
	}
	screenshot(t, ctx, "after-delete")
	if _, err := f.mem.Get(t.Context(), cur); err == nil {
		t.Errorf("the golden rule still exists after a forced delete from the page")
	}
}
