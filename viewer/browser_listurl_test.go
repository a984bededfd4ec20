package viewer

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recall-mcp/recall/memory"
)

// TestBrowserListViewLivesInItsURL: a person filters the list, pages on,
// reloads, opens a memory and comes back; the view (filters, page, scroll) is
// the one they left, and its address can be shared. The namespace filter
// offers the namespaces that exist; superseded memories can be shown.
func TestBrowserListViewLivesInItsURL(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	for i := range 60 {
		f.store(t, fmt.Sprintf("Shop note %02d about the checkout flow", i), memory.TypePattern, "project:shop")
	}
	f.store(t, "Blog note about the RSS feed", memory.TypeDecision, "project:blog")
	old := f.store(t, "The checkout API listens on port 8080", memory.TypeDecision, "global")
	cur := f.store(t, "The checkout API listens on port 9090", memory.TypeDecision, "global")
	if _, err := f.mem.Relate(t.Context(), memory.RelateRequest{SourceID: cur, TargetID: old, Relation: memory.RelationSupersedes}); err != nil {
		t.Fatal(err)
	}
	srv := newLoopbackServer(t, f)
	open(t, ctx, srv+"/", "#memories li")

	// The namespaces that hold memories are offered; choosing one filters.
	if _, err := run(ctx, until(`[...document.querySelectorAll("#namespace option")].some((o) => o.value === "project:shop")`)); err != nil {
		t.Fatalf("the namespace filter never offered project:shop: %v", err)
	}
	offered, err := run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#namespace option")].map((o) => o.value)`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(offered, " ") != " global project:blog project:shop" {
		t.Errorf("namespaces offered %q, want every namespace, global and the two projects", offered)
	}
	err = within(ctx, 20*time.Second,
		chromedp.SetValue(chromedp.CSS(`#namespace`), "project:shop"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#namespace").dispatchEvent(new Event("change"))`),
		until(`document.querySelector("#summary").textContent.startsWith("1–50 of 60")`),
		chromedp.Click(chromedp.CSS(`#next`)),
		until(`document.querySelector("#summary").textContent.startsWith("51–60 of 60")`))
	if err != nil {
		t.Fatalf("filtering by namespace and paging on: %v", err)
	}
	hash, _ := run(ctx, chromedp.Evaluate[string](`location.hash`))
	if hash != "#/?ns=project%3Ashop&page=2" {
		t.Errorf("the list's address is %q, want its namespace and page", hash)
	}

	// A reload (or the address shared) shows the same view.
	err = within(ctx, 20*time.Second,
		chromedp.Reload(),
		until(`document.querySelector("#summary")?.textContent.startsWith("51–60 of 60")`))
	if err != nil {
		t.Fatalf("after a reload the list lost its filter or page: %v", err)
	}
	if ns, _ := run(ctx, chromedp.Evaluate[string](`document.querySelector("#namespace").value`)); ns != "project:shop" {
		t.Errorf("after a reload the namespace filter shows %q", ns)
	}

	// Back from a memory returns to the same spot of the same page.
	err = within(ctx, 20*time.Second,
		chromedp.EmulateViewport(800, 500),
		chromedp.Click(chromedp.CSS(`#prev`)),
		until(`document.querySelector("#summary").textContent.startsWith("1–50 of 60") && location.hash === "#/?ns=project%3Ashop"`),
		chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 1200)`),
		until(`Math.abs(window.scrollY - 1200) < 2`))
	if err != nil {
		t.Fatal(err)
	}
	y, _ := run(ctx, chromedp.Evaluate[float64](`window.scrollY`))
	target, _ := run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("#memories li")].find((li) => li.getBoundingClientRect().top > 0).dataset.id`))
	err = within(ctx, 20*time.Second,
		chromedp.Click(chromedp.CSS(`#memories li[data-id="`+target+`"] a`)),
		chromedp.WaitVisible(chromedp.CSS(`#memory-content`)),
		chromedp.Evaluate[chromedp.Void](`history.back()`),
		until(`document.querySelector("#summary").textContent.startsWith("1–50 of 60") && !document.querySelector("#list-view").hidden`))
	if err != nil {
		t.Fatalf("back to the list: %v", err)
	}
	if _, err := run(ctx, chromedp.Poll[bool](fmt.Sprintf(`Math.abs(window.scrollY - %v) < 2`, y))); err != nil {
		got, _ := run(ctx, chromedp.Evaluate[float64](`window.scrollY`))
		t.Errorf("back on the list at scroll %v, want %v where it was left", got, y)
	}

	// Superseded memories: hidden, then shown on request (and in the URL).
	err = within(ctx, 20*time.Second,
		chromedp.Navigate(srv+"/#/?q=checkout+port"),
		until(`document.querySelector("#memories li[data-id='`+cur+`']") !== null`))
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#memories li[data-id='`+old+`']").length`)); n != 0 {
		t.Errorf("a superseded memory is listed without asking")
	}
	err = within(ctx, 20*time.Second,
		chromedp.Click(chromedp.CSS(`#superseded`)),
		until(`document.querySelector("#memories li[data-id='`+old+`']") !== null && location.hash.includes("superseded=1")`))
	if err != nil {
		t.Fatalf("show superseded never listed the old version: %v", err)
	}
	marks, _ := run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#memories li mark")].map((m) => m.textContent.toLowerCase())`))
	if !strings.Contains(strings.Join(marks, " "), "checkout") || !strings.Contains(strings.Join(marks, " "), "port") {
		t.Errorf("search hits marked %v, want checkout and port", marks)
	}
	screenshot(t, ctx, "search-superseded")
}

// until waits, as a step, for expr to be true on the page.
func until(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Poll[bool](expr)(ctx, tg)
		return err
	})
}

// TestBrowserFilterByAuthor: on a team's store the list offers who stored
// the memories (most first) and narrows to one of them, in its address; a
// store of one person offers no such filter.
func TestBrowserFilterByAuthor(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	srv := newLoopbackServer(t, f)
	f.store(t, "Written on this machine before there were people", memory.TypeDecision, "global")
	open(t, ctx, srv+"/", "#memories li")
	if _, err := run(ctx, until(`document.querySelector("#author").hidden && document.querySelectorAll("#memories li").length === 1`)); err != nil {
		t.Fatalf("a store of one person shows an author filter: %v", err)
	}
	storeAs := func(person, content string) string {
		t.Helper()
		ctx := memory.WithPrincipal(t.Context(), memory.Principal{Person: person})
		res, err := f.mem.Remember(ctx, memory.StoreRequest{Content: content, Type: memory.TypeDecision, Namespace: "project:shop"})
		if err != nil {
			t.Fatal(err)
		}
		return res.ID
	}
	ann := []string{storeAs("ann", "Ann: the shop deploys on Fridays"), storeAs("ann", "Ann: prices include VAT")}
	storeAs("bob", "Bob: the cart keeps items for a week")
	shown := `[...document.querySelectorAll("#memories li")].map((li) => li.dataset.id).sort().join()`
	err := within(ctx, 20*time.Second,
		chromedp.Reload(),
		until(`!document.querySelector("#author").hidden`),
		until(`[...document.querySelectorAll("#author option")].map((o) => o.textContent).join("|") === "anyone|ann (2)|bob (1)|no author (1)"`),
		chromedp.SetValue(chromedp.CSS(`#author`), "ann"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#author").dispatchEvent(new Event("change"))`),
		until(`location.hash === "#/?by=ann"`),
		until(shown+` === `+fmt.Sprintf("%q", strings.Join(sorted(ann), ","))),
		until(`document.querySelector("#memories li .author").textContent === "by ann"`),
		chromedp.Reload(),
		until(`document.querySelector("#author").value === "ann"`),
		until(shown+` === `+fmt.Sprintf("%q", strings.Join(sorted(ann), ","))),
		until(`document.querySelector("#export-md").getAttribute("href").includes("author=ann")`),
	)
	if err != nil {
		got, _ := run(ctx, chromedp.Evaluate[string](shown+` + " / " + [...document.querySelectorAll("#author option")].map((o) => o.textContent).join("|")`))
		t.Fatalf("filtering by author: %v (shown %s)", err, got)
	}
	screenshot(t, ctx, "list-by-author")
}

// TestBrowserFilterBySource: the list offers the doors the memories came
// in through (MCP tools, the CLI, the viewer, not recorded), with their
// counts, and narrows to one in its address; a memory's page says how it came
// in, plainly "not recorded" for a memory stored before Recall kept it.
func TestBrowserFilterBySource(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	srv := newLoopbackServer(t, f)
	storeVia := func(source, content string) string {
		t.Helper()
		res, err := f.mem.Remember(memory.WithSource(t.Context(), source), memory.StoreRequest{Content: content, Type: memory.TypeDecision, Namespace: "project:shop"})
		if err != nil {
			t.Fatal(err)
		}
		return res.ID
	}
	old := f.store(t, "Stored before Recall recorded how memories came in", memory.TypeDecision, "global")
	open(t, ctx, srv+"/", "#memories li")
	if _, err := run(ctx, until(`document.querySelector("#source").hidden && document.querySelectorAll("#memories li").length === 1`)); err != nil {
		t.Fatalf("a store whose memories all came one way shows a source filter: %v", err)
	}
	tools := []string{storeVia(memory.SourceMCP, "The shop deploys on Fridays"), storeVia(memory.SourceMCP, "Prices include VAT")}
	cli := storeVia(memory.SourceCLI, "The cart keeps items for a week")
	shown := `[...document.querySelectorAll("#memories li")].map((li) => li.dataset.id).sort().join()`
	pick := func(value string) []chromedp.Action[chromedp.Void] {
		return []chromedp.Action[chromedp.Void]{
			chromedp.SetValue(chromedp.CSS(`#source`), value),
			chromedp.Evaluate[chromedp.Void](`document.querySelector("#source").dispatchEvent(new Event("change"))`),
		}
	}
	steps := []chromedp.Action[chromedp.Void]{
		chromedp.Reload(),
		until(`!document.querySelector("#source").hidden`),
		until(`[...document.querySelectorAll("#source option")].map((o) => o.textContent).join("|") === "any source|via MCP tools (2)|via the CLI (1)|source not recorded (1)"`),
	}
	steps = append(steps, pick("mcp")...)
	steps = append(steps,
		until(`location.hash === "#/?via=mcp"`),
		until(shown+` === `+fmt.Sprintf("%q", strings.Join(sorted(tools), ","))),
		until(`document.querySelector("#filters-toggle").textContent === "Filters (1)"`))
	if err := within(ctx, 20*time.Second, steps...); err != nil {
		got, _ := run(ctx, chromedp.Evaluate[string](shown+` + " / " + [...document.querySelectorAll("#source option")].map((o) => o.textContent).join("|")`))
		t.Fatalf("filtering by source: %v (shown %s)", err, got)
	}
	screenshot(t, ctx, "list-by-source")
	steps = append([]chromedp.Action[chromedp.Void]{}, pick("(unknown)")...)
	steps = append(steps,
		until(`location.hash === "#/?via=%28unknown%29"`),
		until(shown+` === `+fmt.Sprintf("%q", old)),
		chromedp.Reload(),
		until(`document.querySelector("#source").value === "(unknown)"`),
		until(shown+` === `+fmt.Sprintf("%q", old)),
		until(`document.querySelector("#export-md").getAttribute("href").includes("source=%28unknown%29")`),
		chromedp.Navigate(srv+"/#/m/"+old),
		until(`[...document.querySelectorAll("#memory dt")].some((dt) => dt.textContent === "stored through" && dt.nextElementSibling.textContent === "not recorded (stored before Recall kept it)")`),
		chromedp.Navigate(srv+"/#/m/"+cli),
		until(`[...document.querySelectorAll("#memory dt")].some((dt) => dt.textContent === "stored through" && dt.nextElementSibling.textContent === "the CLI")`),
	)
	if err := within(ctx, 20*time.Second, steps...); err != nil {
		t.Fatalf("the memories of no recorded source, and a memory's page: %v", err)
	}
	screenshot(t, ctx, "memory-stored-through")
}

func sorted(xs []string) []string {
	out := append([]string(nil), xs...)
	slices.Sort(out)
	return out
}

// TestBrowserEmptyStoreSaysHowMemoriesArrive: a new user's empty store shows
// how memories get there instead of an empty list with actions on nothing;
// the first memory stored elsewhere replaces it.
func TestBrowserEmptyStoreSaysHowMemoriesArrive(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	srv := newLoopbackServer(t, f)
	open(t, ctx, srv+"/", "#welcome")
	err := within(ctx, 20*time.Second,
		until(`document.querySelector("#view-actions").hidden && document.querySelector("#pager").hidden && document.querySelector("#summary").hidden`),
		until(`document.body.dataset.live === "live"`))
	if err != nil {
		t.Fatalf("the empty store's page: %v", err)
	}
	screenshot(t, ctx, "list-empty")
	f.store(t, "The first memory, stored by an agent", memory.TypeDecision, "global")
	err = within(ctx, 20*time.Second,
		chromedp.WaitNotVisible(chromedp.CSS(`#welcome`)),
		until(`document.querySelector("#summary").textContent === "1–1 of 1 memory" && !document.querySelector("#view-actions").hidden`))
	if err != nil {
		t.Fatalf("after the first memory: %v", err)
	}
	// A filter that matches nothing is not an empty store: no welcome.
	err = within(ctx, 20*time.Second,
		chromedp.Navigate(srv+"/#/?type=pattern"),
		until(`document.querySelector("#summary").textContent === "No memories in this view." && document.querySelector("#welcome").hidden`))
	if err != nil {
		t.Fatalf("an empty view of a store with memories: %v", err)
	}
}
