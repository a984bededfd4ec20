// The graph page: the neighbourhood of one memory (1 to 3 hops, at most the
// server's node cap), laid out here with a small radial-then-force layout and
// drawn as SVG. Clicking a node selects it: open its page or centre the graph
// on it. No library.
import { el, svg, fmtNum } from "./dom.js";
import { getGraph } from "./api.js";

const W = 900, H = 620, R = 24; // drawing size, node radius
const RELATIONS = ["relates_to", "supersedes", "caused_by", "contradicts"];

// layout places the origin in the middle and each hop on a ring around it,
// children near their parent's angle, then relaxes the drawing: nodes repel,
// edges pull, every node is held near its ring.
function layout(nodes, edges, originId) {
  const pos = new Map();
  const byDepth = new Map();
  for (const n of nodes) {
    if (!byDepth.has(n.depth)) byDepth.set(n.depth, []);
    byDepth.get(n.depth).push(n);
  }
  const ring = (Math.min(W, H) / 2 - 50) / Math.max(1, ...byDepth.keys());
  for (const [d, ring0] of [...byDepth].sort((a, b) => a[0] - b[0])) {
    ring0.forEach((n, i) => {
      const a = (2 * Math.PI * i) / ring0.length + d * 0.5;
      pos.set(n.id, { x: W / 2 + d * ring * Math.cos(a), y: H / 2 + d * ring * Math.sin(a), d });
    });
  }
  const links = edges.filter((e) => pos.has(e.source_id) && pos.has(e.target_id));
  for (let step = 0; step < 250; step++) {
    const cool = 1 - step / 250;
    const force = new Map(nodes.map((n) => [n.id, { x: 0, y: 0 }]));
    for (let i = 0; i < nodes.length; i++) {
      for (let j = i + 1; j < nodes.length; j++) {
        const a = pos.get(nodes[i].id), b = pos.get(nodes[j].id);
        let dx = a.x - b.x, dy = a.y - b.y;
        const dist2 = Math.max(dx * dx + dy * dy, 1);
        const f = 15000 / dist2;
        const dist = Math.sqrt(dist2);
        dx /= dist; dy /= dist;
        force.get(nodes[i].id).x += dx * f; force.get(nodes[i].id).y += dy * f;
        force.get(nodes[j].id).x -= dx * f; force.get(nodes[j].id).y -= dy * f;
      }
    }
    for (const e of links) {
      const a = pos.get(e.source_id), b = pos.get(e.target_id);
      const dx = b.x - a.x, dy = b.y - a.y;
      const f = 0.01;
      force.get(e.source_id).x += dx * f; force.get(e.source_id).y += dy * f;
      force.get(e.target_id).x -= dx * f; force.get(e.target_id).y -= dy * f;
    }
    for (const n of nodes) {
      if (n.id === originId) continue;
      const p = pos.get(n.id), f = force.get(n.id);
      // Hold the node near its ring.
      const rx = p.x - W / 2, ry = p.y - H / 2;
      const r = Math.sqrt(rx * rx + ry * ry) || 1;
      const pull = (p.d * ring - r) * 0.1;
      f.x += (rx / r) * pull; f.y += (ry / r) * pull;
      const len = Math.sqrt(f.x * f.x + f.y * f.y) || 1;
      const move = Math.min(len, 12 * cool + 0.5);
      p.x = Math.max(R + 4, Math.min(W - R - 4, p.x + (f.x / len) * move));
      p.y = Math.max(R + 4, Math.min(H - R - 4, p.y + (f.y / len) * move));
    }
  }
  return pos;
}

function short(text, n) {
  return text.length <= n ? text : text.slice(0, n - 1) + "…";
}

// drawGraph returns the SVG of a graph answer; onSelect(node) on a click or Enter.
export function drawGraph(g, onSelect) {
  const pos = layout(g.nodes, g.edges, g.origin_id);
  const markers = svg("defs", {}, RELATIONS.map((rel) =>
    svg("marker", { id: `arrow-${rel}`, class: `rel-${rel}`, viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
      svg("path", { d: "M 0 0 L 10 5 L 0 10 z" }))));
  const edges = g.edges.map((e) => {
    const a = pos.get(e.source_id), b = pos.get(e.target_id);
    const dx = b.x - a.x, dy = b.y - a.y;
    const len = Math.sqrt(dx * dx + dy * dy) || 1;
    // From circle edge to circle edge, so the arrow head shows.
    const x1 = a.x + (dx / len) * R, y1 = a.y + (dy / len) * R;
    const x2 = b.x - (dx / len) * (R + 2), y2 = b.y - (dy / len) * (R + 2);
    return svg("g", { class: `edge rel-${e.relation}`, "data-edge": e.id },
      svg("line", { x1: x1.toFixed(1), y1: y1.toFixed(1), x2: x2.toFixed(1), y2: y2.toFixed(1), "marker-end": `url(#arrow-${e.relation})` }),
      svg("text", { x: ((a.x + b.x) / 2).toFixed(1), y: ((a.y + b.y) / 2 - 4).toFixed(1), "text-anchor": "middle" }, e.relation.replace("_", " ")),
      svg("title", {}, `${e.relation} (weight ${fmtNum(e.weight)})`));
  });
  const nodes = g.nodes.map((n) => {
    const p = pos.get(n.id);
    const node = svg("g", {
      class: `node ${n.memory_type}${n.id === g.origin_id ? " origin" : ""}`, "data-id": n.id,
      transform: `translate(${p.x.toFixed(1)},${p.y.toFixed(1)})`, tabindex: 0, role: "button",
      "aria-label": n.content_preview,
    },
    svg("circle", { r: R }),
    svg("text", { y: 4, "text-anchor": "middle", class: "type" }, n.memory_type === "golden_rule" ? "★" : n.memory_type.slice(0, 3)),
    svg("text", { y: R + 13, "text-anchor": "middle", class: "label" }, short(n.content_preview, 28)),
    svg("title", {}, n.content_preview));
    node.addEventListener("click", () => onSelect(n));
    node.addEventListener("keydown", (e) => { if (e.key === "Enter") onSelect(n); });
    return node;
  });
  return svg("svg", { id: "graph-svg", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "Memory graph" },
    markers, svg("g", { class: "edges" }, edges), svg("g", { class: "nodes" }, nodes));
}

function legend() {
  return el("ul", { class: "legend" }, RELATIONS.map((rel) =>
    el("li", { class: `rel-${rel}` }, el("span", { class: "swatch" }), rel.replace("_", " "))));
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
      box.querySelectorAll(".node.selected").forEach((x) => x.classList.remove("selected"));
      box.querySelector(`.node[data-id="${CSS.escape(n.id)}"]`)?.classList.add("selected");
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
    box.replaceChildren(
      el("p", {}, el("a", { href: `#/m/${encodeURIComponent(id)}` }, "← Back to the memory")),
      el("h1", {}, "Graph around: ", el("span", { class: "origin-title" }, origin.content_preview)),
      el("p", { class: "muted", id: "graph-summary" },
        `${g.nodes.length} memor${g.nodes.length === 1 ? "y" : "ies"}, ${g.edges.length} edge${g.edges.length === 1 ? "" : "s"} within ${depth} hop${depth === 1 ? "" : "s"}`,
        g.truncated ? ` — showing the nearest ${g.nodes.length} of ${g.total_nodes}` : "", ". ", depths),
      legend(),
      g.edges.length ? drawGraph(g, select) : el("p", { class: "muted" }, "No edges: this memory is not linked to any other."),
      detail);
    if (!quiet) setStatus("");
  } catch (err) {
    box.replaceChildren(el("p", { class: "error" }, err.message));
    setStatus("");
  }
}
