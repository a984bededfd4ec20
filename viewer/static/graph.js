// The graph page: the neighbourhood of one memory (1 to 3 hops, at most the
// server's node cap), drawn by cytoscape.js on a canvas, with the same
// memories as a list beside it for keyboards and screen readers.
//
// What makes it readable (graphlayout.js): a radial tree around the memory
// in the centre, the same places every time; memories coloured by type and
// edges by relation, with a legend; a memory with many leaves shows a few and
// folds the rest into one "+N more" node (a click unfolds it); labels that
// would overlap another label or a node are left out (a selected memory and
// its neighbours get theirs). A live update changes only what changed: new
// memories join beside their parent, gone ones leave, the rest stay where
// they are, zoom and pan included; a change elsewhere redraws nothing.
//
// Clicking a node (or its list entry) selects it: open its page or centre
// the graph on it. cytoscape is loaded only when a graph is first shown.
import { el, fmtNum } from "./dom.js";
import { getGraph } from "./api.js";
import { tree, folds, radial, joinPosition, overlaps } from "./graphlayout.js";

const RELATIONS = ["relates_to", "supersedes", "caused_by", "contradicts"];
const TYPES = ["decision", "preference", "pattern", "session", "file_context", "golden_rule"];

// cytoscape prepends an inline <style> to the page unless an element with
// this id exists; the CSP blocks inline styles, and style.css gives the
// container what that style would (position: relative).
const CYTOSCAPE_STYLE_ID = "__________cytoscape_stylesheet";

let cytoscapeModule;
function loadCytoscape() {
  cytoscapeModule ??= import("./vendor/cytoscape/cytoscape.esm.min.mjs").then((m) => m.default);
  return cytoscapeModule;
}

// shown is the graph on screen: { key, g, sig, unfolded, cy, canvas, parts, select }.
let shown = null;

function short(text, n) {
  return text.length <= n ? text : text.slice(0, n - 1) + "…";
}

function plural(n, one, many) {
  return `${n} ${n === 1 ? one : many}`;
}

// probe reads a custom property a class sets (the page's CSS holds every
// colour; cytoscape draws on a canvas, which CSS cannot reach).
function probe(cls, prop) {
  const p = el("span", { class: cls });
  document.body.append(p);
  const c = getComputedStyle(p).getPropertyValue(prop).trim();
  p.remove();
  return c;
}

function colours() {
  const root = getComputedStyle(document.documentElement);
  const v = (name) => root.getPropertyValue(name).trim();
  return {
    bg: v("--bg"), fg: v("--fg"), muted: v("--muted"), card: v("--card"), accent: v("--accent"), gold: v("--gold"), line: v("--line"),
    rel: Object.fromEntries(RELATIONS.map((r) => [r, probe(`rel-${r}`, "--rel")])),
    type: Object.fromEntries(TYPES.map((t) => [t, probe(`type-${t}`, "--type")])),
  };
}

function stylesheet(c) {
  return [
    { selector: "node", style: {
      "background-color": "data(colour)", "border-width": 2, "border-color": c.bg, width: 22, height: 22,
      label: "data(label)", "font-size": 11, color: c.fg, "text-valign": "bottom", "text-margin-y": 3,
      "text-wrap": "ellipsis", "text-max-width": 120,
      "text-background-color": c.bg, "text-background-opacity": 0.85, "text-background-padding": 2,
    } },
    { selector: "node.nolabel", style: { label: "" } },
    { selector: "node[type = 'golden_rule']", style: { shape: "star", width: 28, height: 28, "border-color": c.gold } },
    { selector: "node.origin", style: { "border-color": c.accent, "border-width": 4, width: 34, height: 34, "font-weight": "bold", "font-size": 13 } },
    { selector: "node.fold", style: {
      shape: "round-rectangle", "background-color": c.card, "border-color": c.muted, "border-style": "dashed", "border-width": 1.5,
      width: 72, height: 24, "text-valign": "center", "text-margin-y": 0, color: c.muted, "text-background-opacity": 0,
    } },
    { selector: "node:selected", style: { "border-color": c.accent, "border-width": 4 } },
    { selector: "edge", style: {
      width: 1.5, "curve-style": "bezier", "target-arrow-shape": "triangle", "arrow-scale": 0.9,
      "line-color": "data(colour)", "target-arrow-color": "data(colour)", opacity: 0.85,
    } },
    { selector: "edge.fold-edge", style: { "line-style": "dashed", "target-arrow-shape": "none", "line-color": c.muted } },
    // The selected memory's edges say their relation.
    { selector: "edge.near", style: {
      width: 2.5, opacity: 1, label: "data(label)", "font-size": 10, color: c.fg, "text-rotation": "autorotate",
      "text-background-color": c.bg, "text-background-opacity": 0.9, "text-background-padding": 1,
    } },
  ];
}

// signature is what the drawing depends on: a live update that leaves it the
// same redraws nothing.
function signature(g) {
  return JSON.stringify([g.nodes.map((n) => [n.id, n.content_preview, n.memory_type, n.depth]).sort(),
    g.edges.map((e) => [e.id, e.source_id, e.target_id, e.relation]).sort(), g.total_nodes]);
}

// elements are the canvas's nodes and edges for the graph, its folds applied.
function elements(s, c) {
  const g = s.g;
  const t = tree(g);
  const folded = folds(g, t, s.unfolded);
  const hidden = new Set([...folded.values()].flat());
  const nodes = [];
  for (const n of g.nodes) {
    if (hidden.has(n.id)) continue;
    nodes.push({ data: { id: n.id, label: short(n.content_preview, 36), type: n.memory_type, depth: n.depth, colour: c.type[n.memory_type] || c.muted },
      classes: n.id === g.origin_id ? "origin" : "" });
  }
  const edges = [];
  for (const e of g.edges) {
    if (hidden.has(e.source_id) || hidden.has(e.target_id)) continue;
    edges.push({ data: { id: `edge-${e.id}`, source: e.source_id, target: e.target_id, relation: e.relation,
      label: e.relation.replace("_", " "), colour: c.rel[e.relation] || c.muted } });
  }
  for (const [p, ids] of folded) {
    nodes.push({ data: { id: `fold:${p}`, label: `+${ids.length} more`, fold: p, count: ids.length, depth: t.byId.get(p).depth + 1 }, classes: "fold" });
    edges.push({ data: { id: `fold-edge:${p}`, source: p, target: `fold:${p}`, colour: c.muted }, classes: "fold-edge" });
  }
  const childrenOf = (id) => id.startsWith("fold:") ? [] : [...t.children.get(id), ...(folded.has(id) ? [`fold:${id}`] : [])];
  const parentOf = (id) => id.startsWith("fold:") ? id.slice("fold:".length) : t.parent.get(id);
  return { nodes, edges, childrenOf, parentOf, folded: [...folded.values()].reduce((n, ids) => n + ids.length, 0) };
}

// placeLabels shows the labels that fit: the selected memory's and its
// neighbours' first, then the centre, then by hops; a label that would cover
// another label or a node is left out (hovering or selecting shows it).
function placeLabels(cy) {
  cy.batch(() => cy.nodes().removeClass("nolabel"));
  const sel = cy.$("node:selected");
  const near = sel.closedNeighborhood().nodes();
  const rank = (n) => (sel.same(n) ? 0 : near.has(n) ? 1 : n.hasClass("origin") ? 2 : 3 + (n.data("depth") ?? 3));
  const bodies = cy.nodes().map((n) => ({ id: n.id(), box: n.boundingBox({ includeLabels: false, includeOverlays: false }) }));
  const placed = [];
  const hide = [];
  for (const n of cy.nodes().sort((a, b) => rank(a) - rank(b) || b.degree() - a.degree())) {
    if (n.hasClass("fold")) continue; // its label is its body
    const box = n.boundingBox({ includeNodes: false, includeEdges: false, includeLabels: true, includeOverlays: false });
    if (!box.w) continue;
    const hit = placed.some((p) => overlaps(p, box)) || bodies.some((b) => b.id !== n.id() && overlaps(b.box, box));
    if (hit) hide.push(n);
    else placed.push(box);
  }
  cy.batch(() => hide.forEach((n) => n.addClass("nolabel")));
  cy.container().dataset.labels = String(cy.nodes().length - hide.length);
}

// markNear gives the selected memory's edges their labels.
function markNear(cy) {
  cy.batch(() => {
    cy.edges().removeClass("near");
    cy.$("node:selected").connectedEdges().addClass("near");
  });
}

function counts(box, s, els) {
  box.dataset.nodes = String(s.g.nodes.length); // memories in the graph, folded ones too
  box.dataset.drawn = String(els.nodes.length); // nodes on the canvas
  box.dataset.folded = String(els.folded);
  box.dataset.edges = String(s.g.edges.length);
}

// draw makes the drawing: every node at its radial place, fitted to the canvas.
async function draw(s) {
  const cytoscape = await loadCytoscape();
  if (!document.getElementById(CYTOSCAPE_STYLE_ID)) document.head.append(el("meta", { id: CYTOSCAPE_STYLE_ID }));
  if (!s.canvas.isConnected || shown !== s) return; // another graph replaced this one meanwhile
  const c = colours();
  s.colours = c;
  const els = elements(s, c);
  const pos = radial(s.g.origin_id, new Set(els.nodes.map((n) => n.data.id)), els.childrenOf);
  for (const n of els.nodes) n.position = { ...pos.get(n.data.id) };
  s.cy?.destroy();
  const cy = cytoscape({
    container: s.canvas,
    elements: [...els.nodes, ...els.edges],
    layout: { name: "preset", fit: true, padding: 30 },
    style: stylesheet(c),
    selectionType: "single",
    boxSelectionEnabled: false,
    wheelSensitivity: 0.3,
    minZoom: 0.2,
    maxZoom: 3,
  });
  // A small graph fitted to the canvas would be drawn huge: no closer than 1.4.
  if (cy.zoom() > 1.4) { cy.zoom(1.4); cy.center(); }
  s.cy = cy;
  cy.on("tap", "node", (e) => {
    const n = e.target;
    if (n.hasClass("fold")) { unfold(s, n.data("fold")); return; }
    s.select(s.g.nodes.find((m) => m.id === n.id()));
  });
  cy.on("select unselect", "node", () => { markNear(cy); placeLabels(cy); });
  placeLabels(cy);
  // Said drawn once the first frame is on the canvas, ready for clicks.
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  counts(s.canvas, s, els);
}

// unfold shows the memories folded under one node, laid out afresh (the
// person asked for them), with a short animation.
function unfold(s, parentId) {
  s.unfolded.add(parentId);
  const els = elements(s, s.colours);
  const pos = radial(s.g.origin_id, new Set(els.nodes.map((n) => n.data.id)), els.childrenOf);
  const cy = s.cy;
  cy.batch(() => {
    cy.$id(`fold:${parentId}`).remove();
    const have = new Set(cy.elements().map((e) => e.id()));
    cy.add([...els.nodes.filter((n) => !have.has(n.data.id)).map((n) => ({ ...n, position: { ...cy.$id(parentId).position() } })),
      ...els.edges.filter((e) => !have.has(e.data.id))]);
  });
  cy.layout({ name: "preset", positions: (n) => pos.get(n.id()), animate: true, animationDuration: 250, fit: false,
    stop: () => placeLabels(cy) }).run();
  counts(s.canvas, s, els);
}

// update applies a new answer for the same graph to the drawing: removes
// what went, adds what came beside its parent, changes labels and colours;
// everything else keeps its place, and the zoom and pan stay.
function update(s) {
  const cy = s.cy;
  const els = elements(s, s.colours);
  const want = new Map([...els.nodes, ...els.edges].map((e) => [e.data.id, e]));
  const origin = cy.$id(s.g.origin_id).position();
  cy.batch(() => {
    cy.elements().filter((e) => !want.has(e.id())).remove();
    for (const n of els.nodes) {
      const cur = cy.$id(n.data.id);
      if (cur.nonempty()) { cur.data(n.data); continue; }
    }
    // New nodes in hop order, so a parent is placed before its children.
    const fresh = els.nodes.filter((n) => cy.$id(n.data.id).empty()).sort((a, b) => a.data.depth - b.data.depth);
    for (const n of fresh) {
      const parent = cy.$id(els.parentOf(n.data.id) ?? s.g.origin_id);
      const at = parent.nonempty() ? joinPosition(n.data.id, parent.position(), origin) : { ...origin };
      cy.add({ ...n, position: at });
    }
    cy.add(els.edges.filter((e) => cy.$id(e.data.id).empty()));
  });
  markNear(cy);
  placeLabels(cy);
  counts(s.canvas, s, els);
}

function legend(g) {
  const types = TYPES.filter((t) => g.nodes.some((n) => n.memory_type === t));
  const rels = RELATIONS.filter((r) => g.edges.some((e) => e.relation === r));
  return el("div", { class: "legend-box", id: "graph-legend" },
    el("ul", { class: "legend types", "aria-label": "Memory types" }, types.map((t) =>
      el("li", { class: `type-${t}` }, el("span", { class: t === "golden_rule" ? "dot star" : "dot" }), t.replace("_", " ")))),
    el("ul", { class: "legend", "aria-label": "Relations" }, rels.map((rel) =>
      el("li", { class: `rel-${rel}` }, el("span", { class: "swatch" }), rel.replace("_", " ")))));
}

// nodeList is the graph's memories as buttons, nearest first: what the canvas
// shows, reachable by keyboard and read by screen readers.
function nodeList(g, onSelect) {
  return el("ol", { id: "graph-nodes", "aria-label": "Memories in this graph" }, g.nodes.map((n) => {
    const b = el("button", { type: "button", class: `node-item${n.id === g.origin_id ? " origin" : ""}`, "data-id": n.id },
      el("span", { class: `badge ${n.memory_type}` }, n.memory_type === "golden_rule" ? "★ golden" : n.memory_type),
      " ", short(n.content_preview, 80),
      el("span", { class: "muted" }, n.id === g.origin_id ? " (centre)" : ` (${n.depth} hop${n.depth === 1 ? "" : "s"})`));
    b.addEventListener("click", () => onSelect(n));
    return el("li", {}, b);
  }));
}

function summary(g, depth) {
  return [`${plural(g.nodes.length, "memory", "memories")}, ${plural(g.edges.length, "edge", "edges")} within ${plural(depth, "hop", "hops")}`,
    g.truncated ? ` — showing the nearest ${g.nodes.length} of ${g.total_nodes}` : ""];
}

// graphHash is the URL of a memory's graph page.
export function graphHash(id, depth = 1) {
  return `#/g/${encodeURIComponent(id)}${depth > 1 ? `/${depth}` : ""}`;
}

// parseGraphHash reads #/g/<id>[/<depth>].
export function parseGraphHash(hash) {
  const m = /^#\/g\/([^/]+)(?:\/([1-3]))?$/.exec(hash);
  return m ? { id: decodeURIComponent(m[1]), depth: Number(m[2] || 1) } : null;
}

// loadGraph shows the graph around id; quiet (a live update) changes the
// drawing on screen in place when it is the same graph.
export async function loadGraph(box, { id, depth }, setStatus, { quiet = false } = {}) {
  if (!quiet) setStatus("Loading…");
  try {
    const g = await getGraph(id, depth);
    const key = `${id}/${depth}`;
    const sig = signature(g);
    const s0 = shown;
    if (quiet && s0 && s0.key === key && s0.cy && s0.canvas.isConnected && g.edges.length) {
      if (s0.sig !== sig) {
        s0.g = g;
        s0.sig = sig;
        s0.parts.summary.replaceChildren(...summary(g, depth), ". ", s0.parts.depths);
        s0.parts.legend.replaceWith(s0.parts.legend = legend(g));
        s0.parts.list.replaceWith(s0.parts.list = nodeList(g, s0.select));
        update(s0);
      }
      return;
    }
    const origin = g.nodes[0];
    const detail = el("div", { id: "graph-detail", class: "muted" }, "Click a node to select it; a “+N more” node shows the memories folded in it.");
    const s = { key, g, sig, unfolded: new Set(), cy: null };
    s.select = (n) => {
      if (!n) return;
      box.querySelectorAll(".node-item.selected").forEach((x) => x.classList.remove("selected"));
      box.querySelector(`.node-item[data-id="${CSS.escape(n.id)}"]`)?.classList.add("selected");
      const cy = s.cy;
      if (cy) {
        // A memory folded away is unfolded first, to be shown.
        if (cy.$id(n.id).empty()) {
          const t = tree(s.g);
          const p = t.parent.get(n.id);
          if (p && cy.$id(`fold:${p}`).nonempty()) unfold(s, p);
        }
        if (!cy.$id(n.id).selected()) {
          cy.$(":selected").unselect();
          cy.$id(n.id).select();
        }
      }
      detail.className = "";
      detail.replaceChildren(
        el("div", { class: "meta" }, el("span", { class: `badge ${n.memory_type}` }, n.memory_type), el("span", {}, n.namespace),
          el("span", {}, `confidence ${fmtNum(n.confidence)}`), el("span", {}, plural(n.depth, "hop", "hops"))),
        el("p", { class: "content" }, n.content_preview),
        el("div", { class: "actions" },
          el("a", { href: `#/m/${encodeURIComponent(n.id)}`, id: "graph-open" }, "Open memory"),
          n.id === s.g.origin_id ? null : el("a", { href: graphHash(n.id, depth), id: "graph-expand" }, "Centre the graph here")));
    };
    const depths = el("span", { class: "depths" }, "Hops: ", [1, 2, 3].map((d) =>
      d === depth ? el("strong", { "aria-current": "true" }, String(d)) : el("a", { href: graphHash(id, d) }, String(d))));
    s.canvas = el("div", { id: "graph-canvas", role: "img", "aria-label": "Memory graph (the list beside it holds the same memories)" });
    s.parts = { depths, summary: el("p", { class: "muted", id: "graph-summary" }, ...summary(g, depth), ". ", depths), legend: legend(g), list: nodeList(g, s.select) };
    shown?.cy?.destroy();
    shown = s;
    box.replaceChildren(
      el("p", {}, el("a", { href: `#/m/${encodeURIComponent(id)}` }, "← Back to the memory")),
      el("h1", {}, "Graph around: ", el("span", { class: "origin-title" }, origin.content_preview)),
      s.parts.summary,
      s.parts.legend,
      g.edges.length
        ? el("div", { class: "graph-layout" }, s.canvas, s.parts.list)
        : el("p", { class: "muted" }, "No edges: this memory is not linked to any other."),
      detail);
    if (g.edges.length) await draw(s);
    if (!quiet) setStatus("");
  } catch (err) {
    box.replaceChildren(el("p", { class: "error" }, err.message));
    setStatus("");
  }
}
