package viewer

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recall-mcp/recall/memory"
)

func TestBrowserGraph(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	hub := f.store(t, "Use WAL journal mode for SQLite", memory.TypeDecision, "project:recall")
	old := f.store(t, "Use rollback journal mode", memory.TypeDecision, "project:recall")
	cause := f.store(t, "Readers blocked the writer in production", memory.TypeSession, "project:recall")
	clash := f.store(t, "Never change SQLite pragmas", memory.TypeGoldenRule, "project:recall")
	rel := f.store(t, "Checkpoint the WAL on shutdown", memory.TypePattern, "project:recall")
	far := f.store(t, "Busy timeout of five seconds", memory.TypePattern, "project:recall")
	for _, e := range []struct {
		a, b string
		r    memory.Relation
	}{{hub, old, memory.RelationSupersedes}, {hub, cause, memory.RelationCausedBy}, {hub, clash, memory.RelationContradicts}, {hub, rel, memory.RelationRelatesTo}, {rel, far, memory.RelationRelatesTo}} {
		if _, err := f.mem.Relate(t.Context(), memory.RelateRequest{SourceID: e.a, TargetID: e.b, Relation: e.r}); err != nil {
			t.Fatal(err)
		}
	}
	srv := newLoopbackServer(t, f)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv+"/#/m/"+hub)); err != nil {
		t.Fatal(err)
	}
	// From the memory page to its graph, one hop: the hub and its four neighbours.
	err := within(ctx, 20*time.Second,
		chromedp.WaitVisible(chromedp.CSS(`#graph-link`)),
		chromedp.Click(chromedp.CSS(`#graph-link`)),
		chromedp.WaitVisible(chromedp.CSS(`#graph-svg`)),
	)
	if err != nil {
		t.Fatalf("the graph never showed: %v", err)
	}
	counts, err := run(ctx, chromedp.Evaluate[[]int](`[document.querySelectorAll("#graph-svg .node").length, document.querySelectorAll("#graph-svg .edge").length, document.querySelectorAll("#graph-svg .edge.rel-contradicts").length]`))
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "graph-depth1")
	if counts[0] != 5 || counts[1] != 4 || counts[2] != 1 {
		t.Fatalf("graph shows %v nodes, edges, contradicts edges; want 5, 4, 1", counts)
	}
	// Clicking a node selects it; "Centre the graph here" expands around it,
	// which reaches the memory two hops from the hub.
	err = within(ctx, 20*time.Second,
		chromedp.Click(chromedp.CSS(`#graph-svg .node[data-id="`+rel+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#graph-expand`)),
		chromedp.Click(chromedp.CSS(`#graph-expand`)),
		chromedp.WaitVisible(chromedp.CSS(`#graph-svg .node.origin[data-id="`+rel+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#graph-svg .node[data-id="`+far+`"]`)),
	)
	if err != nil {
		t.Fatalf("expanding around a node: %v", err)
	}
	// Two hops from the hub: everything.
	err = within(ctx, 20*time.Second,
		chromedp.Navigate(srv+"/#/g/"+hub+"/2"),
		chromedp.WaitVisible(chromedp.CSS(`#graph-svg .node[data-id="`+far+`"]`)),
		chromedp.Click(chromedp.CSS(`#graph-svg .node[data-id="`+clash+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#graph-open`)),
	)
	if err != nil {
		t.Fatalf("depth 2: %v", err)
	}
	screenshot(t, ctx, "graph-depth2-selected")
	err = within(ctx, 20*time.Second,
		chromedp.Click(chromedp.CSS(`#graph-open`)),
		chromedp.WaitVisible(chromedp.CSS(`#memory-content`)),
	)
	if err == nil {
		_, err = run(ctx, chromedp.Poll[bool](`document.querySelector("#memory-content")?.textContent.includes("Never change SQLite pragmas")`))
	}
	if err != nil {
		t.Fatalf("opening a node's memory: %v", err)
	}
}
