// The graph page: the neighbourhood of one memory (1 to 3 hops, at most the
// server's node cap), laid out by cytoscape.js's force-directed layout (cose)
// and drawn on its canvas, with the same memories as a list beside it for
// keyboards and screen readers. Clicking a node (or its list entry) selects
// it: open its page or centre the graph on it. cytoscape is loaded only when
// a graph is first shown, so the other pages stay light.
import { el, fmtNum } from "./dom.js";
import { getGraph } from "./api.js";

const RELATIONS = ["relates_to", "supersedes", "caused_by", "contradicts"];

// cytoscape prepends an inline <style> to the page unless an element with
// this id exists; the CSP blocks inline styles, and style.css gives the
// container what that style would (position: relative).
const CYTOSCAPE_STYLE_ID = "__________cytoscape_stylesheet";

let cytoscapeModule;
function loadCytoscape() {
  cytoscapeModule ??= import("./vendor/cytoscape/cytoscape.esm.min.mjs").then((m) => m.default);
  return cytoscapeModule;
}

let current; // the cytoscape instance shown, destroyed when the graph is redrawn

function short(text, n) {
  return text.length <= n ? text : text.slice(0, n - 1) + "…";
}

// colours reads the theme's colours from the page's CSS: cytoscape draws on
// a canvas, which CSS cannot reach.
function colours() {
  const root = getComputedStyle(document.documentElement);
  const v = (name) => root.getPropertyValue(name).trim();
  const rel = Object.fromEntries(RELATIONS.map((r) => {
    const probe = el("span", { class: `rel-${r}` });
    document.body.append(probe);
    const c = getComputedStyle(probe).getPropertyValue("--rel").trim();
    probe.remove();
    return [r, c];
  }));
  return { bg: v("--bg"), fg: v("--fg"), muted: v("--muted"), card: v("--card"), accent: v("--accent"), gold: v("--gold"), rel };
}

function stylesheet(c) {
  return [
    { selector: "node", style: {
      "background-color": c.bg, "border-width": 2, "border-color": c.muted, width: 30, height: 30,
      label: "data(label)", "font-size": 11, color: c.fg, "text-valign": "bottom", "text-margin-y": 4,
      // Fitted to the canvas, a big neighbourhood is drawn small: labels too
      // small to read are left out until the person zooms in.
      "min-zoomed-font-size": 8,
      "text-wrap": "ellipsis", "text-max-width": 130,
      "text-background-color": c.card, "text-background-opacity": 0.85, "text-background-padding": 2,
    } },
    { selector: "node[depth <= 1]", style: { "font-size": 18 } },
    { selector: "node[type = 'golden_rule']", style: { "border-color": c.gold, shape: "star" } },
    { selector: "node.origin", style: { "border-color": c.accent, "border-width": 5, width: 40, height: 40, "font-weight": "bold" } },
    { selector: "node:selected", style: { "background-color": c.accent } },
    { selector: "edge", style: {
      width: 2, "curve-style": "bezier", "target-arrow-shape": "triangle", "arrow-scale": 1.1,
      "line-color": "data(colour)", "target-arrow-color": "data(colour)",
      label: "data(label)", "font-size": 10, "min-zoomed-font-size": 7, color: c.muted, "text-rotation": "autorotate",
      "text-background-color": c.card, "text-background-opacity": 0.85, "text-background-padding": 1,
    } },
  ];
}

// drawGraph draws a graph answer into box and returns the cytoscape instance;
// onSelect(node) on a tap.
async function drawGraph(box, g, onSelect) {
  const cytoscape = await loadCytoscape();
  if (!document.getElementById(CYTOSCAPE_STYLE_ID)) document.head.append(el("meta", { id: CYTOSCAPE_STYLE_ID }));
  const c = colours();
  const byId = new Map(g.nodes.map((n) => [n.id, n]));
  const cy = cytoscape({
    container: box,
    elements: [
      ...g.nodes.map((n) => ({
        data: { id: n.id, label: short(n.content_preview, 40), type: n.memory_type, depth: n.depth },
        classes: n.id === g.origin_id ? "origin" : "",
      })),
      ...g.edges.map((e) => ({
        data: { id: `edge-${e.id}`, source: e.source_id, target: e.target_id, label: e.relation.replace("_", " "), colour: c.rel[e.relation] || c.muted },
      })),
    ],
    style: stylesheet(c),
    selectionType: "single",
    boxSelectionEnabled: false,
    wheelSensitivity: 0.3,
    minZoom: 0.2,
    maxZoom: 3,
  });
  // cose: nodes repel, edges pull. At 2-3 hops the repulsion and edge length
  // are what keep 60 labelled nodes apart.
  cy.layout({
    name: "cose", animate: false, randomize: true, padding: 30,
    nodeRepulsion: () => 6000, idealEdgeLength: () => 60, edgeElasticity: () => 80,
    nodeOverlap: 20, gravity: 0.25, numIter: 1500,
  }).run();
  cy.on("tap", "node", (e) => onSelect(byId.get(e.target.id())));
  // What was drawn, for people (the summary) and tests alike.
  box.dataset.nodes = String(cy.nodes().length);
  box.dataset.edges = String(cy.edges().length);
  return cy;
}

function legend() {
  return el("ul", { class: "legend" }, RELATIONS.map((rel) =>
    el("li", { class: `rel-${rel}` }, el("span", { class: "swatch" }), rel.replace("_", " "))));
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

// graphHash is the URL of a memory's graph page.
export function graphHash(id, depth = 1) {
  return `#/g/${encodeURIComponent(id)}${depth > 1 ? `/${depth}` : ""}`;
}

// parseGraphHash reads #/g/<id>[/<depth>].
export function parseGraphHash(hash) {
  const m = /^#\/g\/([^/]+)(?:\/([1-3]))?$/.exec(hash);
  return m ? { id: decodeURIComponent(m[1]), depth: Number(m[2] || 1) } : null;
}

export async function loadGraph(box, { id, depth }, setStatus, { quiet = false } = {}) {
  if (!quiet) setStatus("Loading…");
  try {
    const g = await getGraph(id, depth);
    const origin = g.nodes[0];
    const detail = el("div", { id: "graph-detail", class: "muted" }, "Click a node to select it.");
    const select = (n) => {
      box.querySelectorAll(".node-item.selected").forEach((x) => x.classList.remove("selected"));
      box.querySelector(`.node-item[data-id="${CSS.escape(n.id)}"]`)?.classList.add("selected");
      if (current && !current.$id(n.id).selected()) {
        current.$(":selected").unselect();
        current.$id(n.id).select();
      }
      detail.className = "";
      detail.replaceChildren(
        el("div", { class: "meta" }, el("span", { class: `badge ${n.memory_type}` }, n.memory_type), el("span", {}, n.namespace),
          el("span", {}, `confidence ${fmtNum(n.confidence)}`), el("span", {}, `${n.depth} hop${n.depth === 1 ? "" : "s"}`)),
        el("p", { class: "content" }, n.content_preview),
        el("div", { class: "actions" },
          el("a", { href: `#/m/${encodeURIComponent(n.id)}`, id: "graph-open" }, "Open memory"),
          n.id === g.origin_id ? null : el("a", { href: graphHash(n.id, depth), id: "graph-expand" }, "Centre the graph here")));
    };
    const depths = el("span", { class: "depths" }, "Hops: ", [1, 2, 3].map((d) =>
      d === depth ? el("strong", { "aria-current": "true" }, String(d)) : el("a", { href: graphHash(id, d) }, String(d))));
    const canvas = el("div", { id: "graph-canvas", role: "img", "aria-label": "Memory graph (the list beside it holds the same memories)" });
    current?.destroy();
    current = null;
    box.replaceChildren(
      el("p", {}, el("a", { href: `#/m/${encodeURIComponent(id)}` }, "← Back to the memory")),
      el("h1", {}, "Graph around: ", el("span", { class: "origin-title" }, origin.content_preview)),
      el("p", { class: "muted", id: "graph-summary" },
        `${g.nodes.length} memor${g.nodes.length === 1 ? "y" : "ies"}, ${g.edges.length} edge${g.edges.length === 1 ? "" : "s"} within ${depth} hop${depth === 1 ? "" : "s"}`,
        g.truncated ? ` — showing the nearest ${g.nodes.length} of ${g.total_nodes}` : "", ". ", depths),
      legend(),
      g.edges.length
        ? el("div", { class: "graph-layout" }, canvas, nodeList(g, select))
        : el("p", { class: "muted" }, "No edges: this memory is not linked to any other."),
      detail);
    if (g.edges.length) {
      const cy = await drawGraph(canvas, g, select);
      // A live refresh may have redrawn the page while cytoscape loaded.
      if (canvas.isConnected) current = cy;
      else cy.destroy();
    }
    if (!quiet) setStatus("");
  } catch (err) {
    box.replaceChildren(el("p", { class: "error" }, err.message));
    setStatus("");
  }
}
