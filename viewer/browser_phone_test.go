package viewer

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recall-mcp/recall/capture/journal"
	"github.com/recall-mcp/recall/memory"
)

// overflowCheck is true when the page is no wider than the window; when it is
// wider, it names the widest elements that stick out, to say what to fix.
const overflowCheck = `(() => {
  const root = document.documentElement;
  if (root.scrollWidth <= root.clientWidth) return "";
  const out = [...document.querySelectorAll("body *")].filter((e) => e.getBoundingClientRect().right > root.clientWidth + 0.5)
    .map((e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className && typeof e.className === "string" ? "." + e.className.trim().split(/\s+/).join(".") : "") + " right=" + Math.round(e.getBoundingClientRect().right))
    .slice(0, 8);
  return "scrollWidth " + root.scrollWidth + " > clientWidth " + root.clientWidth + ": " + out.join(", ");
})()`

// TestBrowserNoPageOverflowsOnPhonesOrTablets opens every page at 360, 390
// and 768 pixels wide, over a store with what makes pages wide in real use:
// long unbroken file paths and URLs, a very long memory, contradictions side
// by side, golden rules, a trash, a graph. No page may scroll sideways.
func TestBrowserNoPageOverflowsOnPhonesOrTablets(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	path := "/home/someone/src/github.com/example/a-rather-long-repository-name/internal/packages/subsystem/handlers_with_long_names_test.go"
	long := "Deploy checklist for " + path + "\n\n" + strings.Repeat("Check the replica lag before promoting the standby, then run the smoke tests against https://staging.example.com/api/v2/health?verbose=true&include=replicas,queues,caches. ", 120)
	longID := f.store(t, long, memory.TypeDecision, "project:a-rather-long-project-name-for-a-phone")
	if _, err := f.db.BindProject(t.Context(), "/home/someone/src/github.com/example/a-rather-long-repository-name", []string{"project:a-rather-long-project-name-for-a-phone"}); err != nil {
		t.Fatal(err)
	}
	f.touch(t, path, "edit", "/home/someone/src/github.com/example/a-rather-long-repository-name")
	a, _, _ := f.contradiction(t, "Use tabs for indentation in every Go file of "+path, "Use four spaces for indentation everywhere, including "+path, memory.TypeGoldenRule)
	for i := range 6 {
		other := f.store(t, fmt.Sprintf("Related note %d about %s", i, path), memory.TypePattern, "global")
		if _, err := f.mem.Relate(t.Context(), memory.RelateRequest{SourceID: longID, TargetID: other, Relation: memory.RelationRelatesTo}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.mem.Relate(t.Context(), memory.RelateRequest{SourceID: longID, TargetID: a, Relation: memory.RelationCausedBy}); err != nil {
		t.Fatal(err)
	}
	gone := f.store(t, "Deleted note naming "+path, memory.TypeSession, "global")
	if _, err := f.mem.Forget(t.Context(), memory.ForgetRequest{MemoryID: gone, Confirm: true, Trash: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.AddEntry(t.Context(), &journal.Entry{Kind: journal.KindObservation, Namespace: "project:a-rather-long-project-name-for-a-phone",
		SessionID: "s1", ToolName: "Edit", Title: "Edit " + path, Body: long[:2000], Files: []string{path}, CreatedAt: time.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
	// A team's store: the list offers who stored the memories.
	for _, person := range []string{"a-person-with-a-rather-long-name", "bob"} {
		ctx := memory.WithPrincipal(t.Context(), memory.Principal{Person: person})
		if _, err := f.mem.Remember(ctx, memory.StoreRequest{Content: "Stored by " + person + " about " + path, Namespace: "global"}); err != nil {
			t.Fatal(err)
		}
	}
	srv := newLoopbackServer(t, f)

	pages := []struct{ name, hash, ready string }{
		{"list", "#/", "#memories li"},
		{"memory", "#/m/" + longID, "#memory-content"},
		{"graph", "#/g/" + longID + "/2", "#graph-canvas canvas"},
		{"review", "#/review", "#pairs li.pair"},
		{"golden", "#/golden", "#golden-rules li"},
		{"files", "#/files", "#files tbody tr"},
		{"health", "#/health", "#health-stats"},
		{"trash", "#/trash", "#trash li"},
		{"journal", "#/journal", "#journal li"},
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(srv+"/")); err != nil {
		t.Fatal(err)
	}
	for _, width := range []int64{360, 390, 768} {
		for _, p := range pages {
			err := within(ctx, 20*time.Second,
				chromedp.EmulateViewport(width, 800),
				chromedp.Evaluate[chromedp.Void](`location.hash = "`+p.hash+`"`),
				chromedp.WaitVisible(chromedp.CSS(p.ready)))
			if err != nil {
				t.Fatalf("%s at %d px never showed %s: %v", p.name, width, p.ready, err)
			}
			// The help overlay and the long memory's page are looked at as drawn.
			if width == 390 && p.name == "memory" {
				screenshot(t, ctx, "memory-phone")
			}
			if width == 390 && p.name == "list" {
				screenshot(t, ctx, "list-phone")
			}
			if p.name == "memory" {
				// The long memory is folded: its actions are on the first screen.
				top, err := run(ctx, chromedp.Poll[float64](`!document.getElementById("show-all").hidden && document.getElementById("confirm").getBoundingClientRect().bottom`))
				if err != nil || top > 800 {
					t.Errorf("at %d px the long memory's Confirm is at y=%v (%v), want it on the first screen (800) with Show all", width, top, err)
				}
			}
			noOverflow := func(name string) {
				t.Helper()
				got, err := run(ctx, chromedp.Evaluate[string](overflowCheck))
				if err != nil {
					t.Fatal(err)
				}
				if got != "" {
					screenshot(t, ctx, fmt.Sprintf("overflow-%s-%d", name, width))
					t.Errorf("%s at %d px scrolls sideways: %s", name, width, got)
				}
			}
			noOverflow(p.name)
			// The forms a page opens fit too: the list's filters (with
			// the authors of a team's store), a memory's edit form.
			var open, ready, close string
			switch p.name {
			case "list":
				open, ready, close = `#filters-toggle`, `#author`, `#filters-toggle`
			case "memory":
				open, ready, close = `#edit`, `#edit-namespace`, `#edit-cancel`
			}
			if open != "" {
				err := within(ctx, 20*time.Second,
					// The page drawn afresh first: a form opened on the
					// page shown before the load ends goes with it.
					until(`document.querySelector("#status").textContent !== "Loading…"`),
					chromedp.Evaluate[chromedp.Void](`document.querySelector("`+open+`").click()`),
					chromedp.WaitVisible(chromedp.CSS(ready)))
				if err != nil {
					t.Fatalf("%s at %d px: %s never showed %s: %v", p.name, width, open, ready, err)
				}
				if width == 390 && p.name == "list" {
					screenshot(t, ctx, "list-phone-filters")
				}
				noOverflow(p.name + " with " + ready)
				if err := within(ctx, 20*time.Second, chromedp.Evaluate[chromedp.Void](`document.querySelector("`+close+`").click()`)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}
