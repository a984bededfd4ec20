package viewer

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recall-mcp/recall/memory"
)

// TestBrowserLinkAndUnlinkMemories: from a memory's page a person finds
// another memory by a search, links it with a relation, then removes the
// edge (a second click confirms); both memories stay.
func TestBrowserLinkAndUnlinkMemories(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	a := f.store(t, "Use WAL journal mode for SQLite", memory.TypeDecision, "global")
	b := f.store(t, "Readers blocked the writer in production", memory.TypeSession, "global")
	srv := newLoopbackServer(t, f)
	open(t, ctx, srv+"/#/m/"+a, "#edge-search")

	err := within(ctx, 20*time.Second,
		chromedp.SetValue(chromedp.CSS(`#edge-relation`), "caused_by"),
		chromedp.SendKeys(chromedp.CSS(`#edge-search`), "readers blocked"),
		// A person picks among the hits of what they typed: on a busy
		// machine the search runs more than once while the keys arrive.
		until(`document.querySelector("#edge-hits").dataset.q === "readers blocked"`),
		chromedp.Click(chromedp.CSS(`#edge-hits .edge-hit[data-id="`+b+`"]`)),
		chromedp.Click(chromedp.CSS(`#edge-add`)),
		chromedp.WaitVisible(chromedp.CSS(`#edges tr.edge.caused_by`)))
	if err != nil {
		t.Fatalf("linking the memories: %v", err)
	}
	screenshot(t, ctx, "memory-edge-added")
	g, err := f.mem.Inspect(t.Context(), memory.InspectRequest{MemoryID: a, MaxDepth: 1})
	if err != nil || len(g.Edges) != 1 || g.Edges[0].SourceID != a || g.Edges[0].TargetID != b || g.Edges[0].Relation != memory.RelationCausedBy {
		t.Fatalf("after linking: %+v, %v", g, err)
	}
	err = within(ctx, 20*time.Second,
		chromedp.Click(chromedp.CSS(`#edges .edge-remove`)),
		until(`document.querySelector("#edges .edge-remove").textContent === "Remove it?"`),
		chromedp.Click(chromedp.CSS(`#edges .edge-remove`)),
		until(`document.querySelector("#edges") === null`))
	if err != nil {
		t.Fatalf("removing the edge: %v", err)
	}
	if g, _ := f.mem.Inspect(t.Context(), memory.InspectRequest{MemoryID: a, MaxDepth: 1}); len(g.Edges) != 0 {
		t.Errorf("the edge is still there: %+v", g.Edges)
	}
	if _, err := f.mem.Get(t.Context(), b); err != nil {
		t.Errorf("the other memory went with the edge: %v", err)
	}
}

// TestBrowserSupersedeAGoldenRuleNeedsForce: picking a golden rule for a
// supersedes edge shows the force box, and Add stays off until it is ticked,
// as memory_relate_tool needs force=true.
func TestBrowserSupersedeAGoldenRuleNeedsForce(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	newer := f.store(t, "Deploys on Fridays are fine before noon", memory.TypeDecision, "global")
	golden := f.store(t, "Never deploy on Fridays", memory.TypeGoldenRule, "global")
	srv := newLoopbackServer(t, f)
	open(t, ctx, srv+"/#/m/"+newer, "#edge-search")

	err := within(ctx, 20*time.Second,
		chromedp.SetValue(chromedp.CSS(`#edge-relation`), "supersedes"),
		chromedp.SendKeys(chromedp.CSS(`#edge-search`), "deploy fridays"),
		until(`document.querySelector("#edge-hits").dataset.q === "deploy fridays"`),
		chromedp.Click(chromedp.CSS(`#edge-hits .edge-hit[data-id="`+golden+`"]`)),
		until(`document.querySelector("#edge-add").disabled && document.querySelector("#edge-force").checkVisibility()`))
	if err != nil {
		t.Fatalf("a golden rule picked for supersedes: want the force box shown and Add off: %v", err)
	}
	err = within(ctx, 20*time.Second,
		chromedp.Click(chromedp.CSS(`#edge-force`)),
		chromedp.Click(chromedp.CSS(`#edge-add`)),
		chromedp.WaitVisible(chromedp.CSS(`#edges tr.edge.supersedes`)))
	if err != nil {
		v, _ := run(ctx, chromedp.Evaluate[string](`"add disabled " + document.querySelector("#edge-add")?.disabled + ", force " + document.querySelector("#edge-force")?.checked + ", picked " + document.querySelectorAll("#edge-hits .edge-hit.selected").length + ", hits for " + document.querySelector("#edge-hits")?.dataset.q + ", status " + document.querySelector("#status").textContent`))
		t.Fatalf("superseding with force: %v (%s)", err, v)
	}
	if es, _ := f.db.Edges(t.Context(), memory.EdgeQuery{SourceID: newer, TargetID: golden, Relations: []memory.Relation{memory.RelationSupersedes}}); len(es) != 1 {
		t.Errorf("supersedes edges %+v, want the one added with force", es)
	}
}

// TestBrowserAPickSurvivesTheSearchStillRunning: a memory picked among the
// hits of the first words typed stays picked when the search of all the words,
// answering later (a busy machine, a large store), still shows it; the person
// does not have to pick it again before Add.
func TestBrowserAPickSurvivesTheSearchStillRunning(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	a := f.store(t, "Use WAL journal mode for SQLite", memory.TypeDecision, "global")
	b := f.store(t, "Readers blocked the writer in production", memory.TypeSession, "global")
	picked := make(chan struct{})
	answered := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/memories" && r.URL.Query().Get("q") == "readers blocked" {
			// The search of both words answers only after the pick.
			select {
			case <-picked:
			case <-r.Context().Done():
				return
			}
			f.h.ServeHTTP(w, r)
			select {
			case answered <- struct{}{}:
			default:
			}
			return
		}
		f.h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	open(t, ctx, srv.URL+"/#/m/"+a, "#edge-search")
	hit := `#edge-hits .edge-hit[data-id="` + b + `"]`
	err := within(ctx, 20*time.Second,
		chromedp.SetValue(chromedp.CSS(`#edge-relation`), "caused_by"),
		chromedp.SendKeys(chromedp.CSS(`#edge-search`), "readers"),
		chromedp.WaitVisible(chromedp.CSS(hit)),
		// the hit as drawn for "readers", to tell it from the one drawn later
		chromedp.Evaluate[chromedp.Void](`document.querySelector('`+hit+`').dataset.first = "yes"`),
		chromedp.SendKeys(chromedp.CSS(`#edge-search`), " blocked"),
		chromedp.Click(chromedp.CSS(hit)))
	if err != nil {
		t.Fatalf("picking a hit of the first word: %v", err)
	}
	close(picked)
	select {
	case <-answered:
	case <-time.After(20 * time.Second):
		t.Fatal("the search of both words never ran")
	}
	err = within(ctx, 20*time.Second,
		until(`document.querySelector('`+hit+`') && !document.querySelector('`+hit+`').dataset.first`),
		until(`document.querySelector('`+hit+`').classList.contains("selected") && !document.querySelector("#edge-add").disabled`),
		chromedp.Click(chromedp.CSS(`#edge-add`)),
		chromedp.WaitVisible(chromedp.CSS(`#edges tr.edge.caused_by`)))
	if err != nil {
		t.Fatalf("the pick made before the search of both words answered was lost: %v", err)
	}
	if es, _ := f.db.Edges(t.Context(), memory.EdgeQuery{SourceID: a, TargetID: b, Relations: []memory.Relation{memory.RelationCausedBy}}); len(es) != 1 {
		t.Errorf("caused_by edges %+v, want the one added", es)
	}
}
