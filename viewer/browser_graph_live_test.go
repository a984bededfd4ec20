package viewer

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recall-mcp/recall/memory"
)

// layout is the drawing's state: each canvas node's model position, the
// zoom and pan, and whether it is still the same cytoscape instance.
type layout struct {
	Pos    map[string][2]float64 `json:"pos"`
	Zoom   float64               `json:"zoom"`
	Pan    [2]float64            `json:"pan"`
	Same   bool                  `json:"same"`
	Folded int                   `json:"folded"`
	Fill   map[string]string     `json:"fill"` // memory type -> node colour
	Legend map[string]string     `json:"legend"`
	Labels [][4]float64          `json:"labels"` // boxes of the labels shown
}

const readLayout = `(() => {
	const box = document.querySelector("#graph-canvas");
	const cy = box?._cyreg?.cy;
	if (!cy || !box.dataset.nodes) return null;
	const pos = {}, fill = {}, legend = {};
	cy.nodes().forEach((n) => {
		pos[n.id()] = [n.position().x, n.position().y];
		if (n.data("type")) fill[n.data("type")] = n.style("background-color");
	});
	document.querySelectorAll("#graph-legend .types li").forEach((li) => {
		legend[li.className.replace("type-", "")] = getComputedStyle(li.querySelector(".dot")).backgroundColor.replaceAll(" ", "");
	});
	const labels = cy.nodes().filter((n) => !n.hasClass("nolabel") && !n.hasClass("fold")).map((n) => {
		const b = n.boundingBox({ includeNodes: false, includeEdges: false, includeLabels: true });
		return [b.x1, b.y1, b.x2, b.y2];
	});
	const same = cy.scratch("_test") === "mark";
	return { pos, zoom: cy.zoom(), pan: [cy.pan().x, cy.pan().y], same, folded: Number(box.dataset.folded), fill, legend, labels };
})()`

// TestBrowserGraphKeepsItsLayout: the graph is laid out the same way every
// time, coloured by memory type as its legend says, with a hub's many leaves
// folded and no two labels on top of each other; a live change elsewhere
// redraws nothing, one inside the graph adds its memory beside its parent and
// moves nothing else, zoom and pan included.
func TestBrowserGraphKeepsItsLayout(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	link := func(a, b string) {
		t.Helper()
		if _, err := f.mem.Relate(t.Context(), memory.RelateRequest{SourceID: a, TargetID: b, Relation: memory.RelationRelatesTo}); err != nil {
			t.Fatal(err)
		}
	}
	hub := f.store(t, "Release process for the viewer", memory.TypeDecision, "project:recall")
	for i := range 12 {
		link(hub, f.store(t, fmt.Sprintf("Release note %d: screenshots refreshed and looked at", i), memory.TypePattern, "project:recall"))
	}
	step := f.store(t, "Run the browser tests before tagging", memory.TypeSession, "project:recall")
	link(hub, step)
	rule := f.store(t, "Never tag on a red build", memory.TypeGoldenRule, "project:recall")
	link(step, rule)
	srv := newLoopbackServer(t, f)
	open(t, ctx, srv+"/#/g/"+hub+"/2", "#graph-canvas canvas")

	read := func() layout {
		t.Helper()
		l, err := run(ctx, chromedp.Poll[layout](readLayout))
		if err != nil {
			t.Fatalf("reading the drawing: %v", err)
		}
		return l
	}
	first := read()
	screenshot(t, ctx, "graph-folded")
	if first.Folded != 7 || len(first.Pos) != 1+5+1+1+1 {
		t.Errorf("drew %d nodes with %d memories folded; want the hub's 12 leaves as 5 and a \"+7 more\" node", len(first.Pos), first.Folded)
	}
	if _, ok := first.Pos["fold:"+hub]; !ok {
		t.Errorf("no fold node for the hub among %v", first.Pos)
	}
	for typ, c := range first.Fill {
		if first.Legend[typ] != c {
			t.Errorf("%s memories drawn %s, the legend says %s", typ, c, first.Legend[typ])
		}
	}
	if len(first.Fill) != 4 || first.Fill["decision"] == first.Fill["pattern"] {
		t.Errorf("node colours by type %v; want four types, each its own colour", first.Fill)
	}
	overlap := func(l layout) {
		t.Helper()
		for i, a := range l.Labels {
			for _, b := range l.Labels[i+1:] {
				if a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3] {
					t.Errorf("labels %v and %v overlap", a, b)
				}
			}
		}
		if len(l.Labels) < 3 {
			t.Errorf("%d labels shown, want the centre's and others that fit", len(l.Labels))
		}
	}
	overlap(first)

	// The same graph is laid out the same way after a reload.
	if err := within(ctx, 20*time.Second, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`#graph-canvas canvas`))); err != nil {
		t.Fatal(err)
	}
	again := read()
	for id, p := range first.Pos {
		if q := again.Pos[id]; math.Abs(p[0]-q[0]) > 0.01 || math.Abs(p[1]-q[1]) > 0.01 {
			t.Errorf("after a reload %s moved from %v to %v", id, p, q)
		}
	}

	// A change outside the graph: the drawing is left alone.
	if _, err := run(ctx, chromedp.Evaluate[any](`void document.querySelector("#graph-canvas")._cyreg.cy.scratch("_test", "mark")`)); err != nil {
		t.Fatal(err)
	}
	if _, err := run(ctx, chromedp.Poll[bool](`document.body.dataset.live === "live"`)); err != nil {
		t.Fatal(err)
	}
	other := f.otherProcess(t)
	if _, err := other.Remember(t.Context(), memory.StoreRequest{Content: "Blog posts go out on Mondays", Namespace: "project:blog"}); err != nil {
		t.Fatal(err)
	}
	if _, err := run(ctx, chromedp.Poll[bool](`Number(document.body.dataset.changes || 0) >= 1`)); err != nil {
		t.Fatalf("the page never heard of the change: %v", err)
	}
	time.Sleep(300 * time.Millisecond) // the graph's own reload, had it redrawn
	quiet := read()
	if !quiet.Same || quiet.Zoom != again.Zoom || quiet.Pan != again.Pan {
		t.Errorf("a change in another project redrew the graph: same instance %v, zoom %v→%v, pan %v→%v", quiet.Same, again.Zoom, quiet.Zoom, again.Pan, quiet.Pan)
	}

	// A memory joins the graph: it appears beside its parent; nothing else moves.
	joined, err := other.Remember(t.Context(), memory.StoreRequest{Content: "Tag only from main", Type: memory.TypeDecision, Namespace: "project:recall"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Relate(t.Context(), memory.RelateRequest{SourceID: step, TargetID: joined.ID, Relation: memory.RelationCausedBy}); err != nil {
		t.Fatal(err)
	}
	if _, err := run(ctx, chromedp.Poll[bool](`document.querySelector("#graph-canvas")._cyreg.cy.$id("`+joined.ID+`").nonempty()`)); err != nil {
		t.Fatalf("the new memory never joined the drawing: %v", err)
	}
	after := read()
	screenshot(t, ctx, "graph-live-joined")
	if !after.Same || after.Zoom != again.Zoom || after.Pan != again.Pan {
		t.Errorf("a memory joining redrew the graph: same instance %v, zoom %v→%v, pan %v→%v", after.Same, again.Zoom, after.Zoom, again.Pan, after.Pan)
	}
	for id, p := range again.Pos {
		if q := after.Pos[id]; math.Abs(p[0]-q[0]) > 0.01 || math.Abs(p[1]-q[1]) > 0.01 {
			t.Errorf("%s moved from %v to %v when another memory joined", id, p, q)
		}
	}
	p, q := after.Pos[step], after.Pos[joined.ID]
	if d := math.Hypot(p[0]-q[0], p[1]-q[1]); d > 150 {
		t.Errorf("the new memory sits %.0f from its parent, want beside it", d)
	}
	overlap(after)

	// The fold opens on a click.
	if err := clickNode(ctx, "fold:"+hub); err != nil {
		t.Fatal(err)
	}
	if _, err := run(ctx, chromedp.Poll[bool](`document.querySelector("#graph-canvas").dataset.folded === "0" && document.querySelector("#graph-canvas")._cyreg.cy.nodes().length === 16`)); err != nil {
		t.Errorf("clicking \"+7 more\" never showed the folded memories: %v", err)
	}
}
