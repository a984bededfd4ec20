package viewer

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recall-mcp/recall/memory"
)

func TestBrowserGoldenRulesPage(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	shop := f.store(t, "You MUST run migrations before deploying the shop.", memory.TypeGoldenRule, "project:shop")
	f.store(t, "You MUST NOT commit secrets.", memory.TypeGoldenRule, "global")
	f.store(t, "You MUST use Rails conventions in the blog.", memory.TypeGoldenRule, "project:blog")
	f.store(t, "Orders are stored in Postgres.", memory.TypeDecision, "project:shop")
	srv := newLoopbackServer(t, f)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv+"/#/golden")); err != nil {
		t.Fatal(err)
	}
	// Choosing the project shows its rules and the context a session of it gets.
	err := within(ctx, 20*time.Second,
		chromedp.WaitVisible(chromedp.CSS(`#golden-project`)),
		chromedp.SetValue(chromedp.CSS(`#golden-project`), "shop"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#golden-project").dispatchEvent(new Event("change"))`),
		chromedp.WaitVisible(chromedp.CSS(`#golden-rules li[data-id="`+shop+`"]`)),
	)
	if err != nil {
		t.Fatalf("choosing the project: %v", err)
	}
	text, err := run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("#context-lines td.text")].map((td) => td.textContent).join("\n")`))
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "golden-shop")
	want, err := f.val.Context(t.Context(), contextPreview("shop"))
	if err != nil {
		t.Fatal(err)
	}
	if text != want.Context {
		t.Errorf("page shows the context\n%s\nwant\n%s", text, want.Context)
	}
	// Demote: the button stays off until a reason is written.
	err = within(ctx, 20*time.Second,
		chromedp.Click(chromedp.CSS(`#golden-rules li[data-id="`+shop+`"] button.demote`)),
		chromedp.WaitVisible(chromedp.CSS(`#demote-reason`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	disabled, err := run(ctx, chromedp.Evaluate[bool](`document.querySelector("#demote-confirm").disabled`))
	if err != nil || !disabled {
		t.Fatalf("Demote enabled without a reason (%v)", err)
	}
	err = within(ctx, 20*time.Second,
		chromedp.SendKeys(chromedp.CSS(`#demote-reason`), "migrations run on start now"),
	)
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "golden-demote-form")
	err = within(ctx, 20*time.Second,
		chromedp.Click(chromedp.CSS(`#demote-confirm`)),
		chromedp.WaitNotPresent(chromedp.CSS(`#golden-rules li[data-id="`+shop+`"]`)),
	)
	if err != nil {
		t.Fatalf("demoting: %v", err)
	}
	m, err := f.mem.Get(t.Context(), shop)
	if err != nil || m.IsGolden() || m.Metadata["demoted_reason"] != "migrations run on start now" {
		t.Errorf("after demoting from the page: %+v, %v", m, err)
	}
}
