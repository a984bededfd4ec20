package viewer

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recall-mcp/recall/memory"
)

// drawn is what cytoscape holds for the graph on the page: the page's own
// count (data-nodes) and the drawing's nodes, edges and centre.
type drawn struct {
	Shown       int               `json:"shown"` // #graph-canvas's data-nodes
	Nodes       int               `json:"nodes"`
	Edges       int               `json:"edges"`
	Listed      int               `json:"listed"` // entries in the accessible list
	Origin      string            `json:"origin"`
	Selected    string            `json:"selected"`
	EdgeColours map[string]string `json:"edgeColours"` // relation -> line colour
}

// drawnGraph reads the drawing through the instance cytoscape keeps on its
// container.
const drawnGraph = `(() => {
	const box = document.querySelector("#graph-canvas");
	const cy = box?._cyreg?.cy;
	if (!cy || !box.dataset.nodes) return null;
	const edgeColours = {};
	cy.edges().forEach((e) => { edgeColours[e.data("label")] = e.style("line-color"); });
	return {
		shown: Number(box.dataset.nodes), nodes: cy.nodes().length, edges: cy.edges().length,
		listed: document.querySelectorAll("#graph-nodes .node-item").length,
		origin: cy.$("node.origin").id() || "", selected: cy.$("node:selected").id() || "", edgeColours,
	};
})()`

// waitDrawn waits until the graph around origin is drawn and returns it.
func waitDrawn(t *testing.T, ctx context.Context, origin string) drawn {
	t.Helper()
	g, err := run(ctx, chromedp.Poll[drawn](`(() => { const g = `+drawnGraph+`; return g && g.origin === `+strconv.Quote(origin)+` ? g : null; })()`))
	if err != nil {
		t.Fatalf("the graph around %s was never drawn: %v", origin, err)
	}
	return g
}

// clickNode clicks a node where cytoscape drew it on the canvas, as a person
// would: scrolled into the window first when it is below the fold.
func clickNode(ctx context.Context, id string) error {
	where := `(() => {
		const box = document.querySelector("#graph-canvas");
		const p = box._cyreg.cy.$id(` + strconv.Quote(id) + `).renderedPosition();
		const r = box.getBoundingClientRect();
		return [r.left + p.x, r.top + p.y];
	})()`
	pos, err := run(ctx, chromedp.Evaluate[[]float64](where))
	if err == nil && (pos[1] < 10 || pos[1] > 600) {
		// Scrolled, the canvas learns its new place on the next frame, as
		// it would before a person's click.
		if _, err = run(ctx, chromedp.Evaluate[any](fmt.Sprintf(`window.scrollBy(0, %f - window.innerHeight / 2)`, pos[1]))); err == nil {
			time.Sleep(200 * time.Millisecond)
			pos, err = run(ctx, chromedp.Evaluate[[]float64](where))
		}
	}
	if err != nil {
		return err
	}
	return within(ctx, 20*time.Second, chromedp.MouseClickXY(pos[0], pos[1]))
}

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
	)
	if err != nil {
		t.Fatalf("opening the graph: %v", err)
	}
	g := waitDrawn(t, ctx, hub)
	screenshot(t, ctx, "graph-depth1")
	if g.Shown != 5 || g.Nodes != 5 || g.Listed != 5 || g.Edges != 4 {
		t.Fatalf("graph drew %+v; want 5 nodes (shown, drawn and listed) and 4 edges", g)
	}
	if g.EdgeColours["contradicts"] != "rgb(196,38,46)" || g.EdgeColours["supersedes"] != "rgb(11,98,214)" {
		t.Errorf("edges coloured %v; want each relation in its legend's colour", g.EdgeColours)
	}

	// Clicking a node on the canvas selects it; "Centre the graph here"
	// expands around it, which reaches the memory two hops from the hub.
	if err := clickNode(ctx, rel); err != nil {
		t.Fatalf("clicking a node: %v", err)
	}
	if err := within(ctx, 20*time.Second, chromedp.WaitVisible(chromedp.CSS(`#graph-expand`)), chromedp.Click(chromedp.CSS(`#graph-expand`))); err != nil {
		t.Fatalf("selecting a node: %v", err)
	}
	if g := waitDrawn(t, ctx, rel); g.Nodes != 3 {
		t.Fatalf("centred on %s: %+v; want it, the hub and %s", rel, g, far)
	}
	// Two hops from the hub: everything. A memory chosen in the list beside
	// the canvas (the keyboard's way) is selected on the canvas too.
	if err := within(ctx, 20*time.Second, chromedp.Navigate(srv+"/#/g/"+hub+"/2")); err != nil {
		t.Fatal(err)
	}
	if g := waitDrawn(t, ctx, hub); g.Nodes != 6 || g.Edges != 5 {
		t.Fatalf("depth 2: %+v; want 6 nodes, 5 edges", g)
	}
	err = within(ctx, 20*time.Second,
		chromedp.Click(chromedp.CSS(`#graph-nodes .node-item[data-id="`+clash+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#graph-open`)),
	)
	if err != nil {
		t.Fatalf("depth 2: %v", err)
	}
	screenshot(t, ctx, "graph-depth2-selected")
	if g := waitDrawn(t, ctx, hub); g.Selected != clash {
		t.Errorf("after choosing %s in the list, the canvas selected %q", clash, g.Selected)
	}
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

// A neighbourhood past the node cap at three hops: the page draws exactly the
// nearest 60 the server sends and says how many were left out.
func TestBrowserGraphDepth3Capped(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	hub := f.store(t, "Release process for the viewer", memory.TypeDecision, "project:recall")
	link := func(a, b string, r memory.Relation) {
		t.Helper()
		if _, err := f.mem.Relate(t.Context(), memory.RelateRequest{SourceID: a, TargetID: b, Relation: r}); err != nil {
			t.Fatal(err)
		}
	}
	relations := []memory.Relation{memory.RelationRelatesTo, memory.RelationCausedBy, memory.RelationSupersedes, memory.RelationContradicts}
	total := 1
	// 5 children, 15 grandchildren, 45 at three hops: 66 memories.
	for i := range 5 {
		child := f.store(t, fmt.Sprintf("Step %d of the release checklist", i+1), memory.TypePattern, "project:recall")
		link(hub, child, relations[i%len(relations)])
		total++
		for j := range 3 {
			grand := f.store(t, fmt.Sprintf("Detail %d.%d: run the browser tests first", i+1, j+1), memory.TypeSession, "project:recall")
			link(child, grand, relations[(i+j)%len(relations)])
			total++
			for k := range 3 {
				leaf := f.store(t, fmt.Sprintf("Note %d.%d.%d about flaky screenshots", i+1, j+1, k+1), memory.TypePreference, "project:recall")
				link(grand, leaf, memory.RelationRelatesTo)
				total++
			}
		}
	}
	srv := newLoopbackServer(t, f)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv+"/#/g/"+hub+"/3")); err != nil {
		t.Fatal(err)
	}
	g := waitDrawn(t, ctx, hub)
	summary, err := run(ctx, chromedp.Text(chromedp.CSS(`#graph-summary`)))
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "graph-depth3-capped")
	if g.Shown != maxGraphNodes || g.Nodes != maxGraphNodes || g.Listed != maxGraphNodes {
		t.Errorf("drew %+v; want the cap, %d nodes, shown, drawn and listed", g, maxGraphNodes)
	}
	if want := fmt.Sprintf("showing the nearest %d of %d", maxGraphNodes, total); !strings.Contains(summary, want) {
		t.Errorf("summary %q does not say %q", summary, want)
	}
}
