// The graph's layout, without a drawing library: a radial tree around the
// memory the graph is centred on. Each memory sits on the ring of its hop
// count, inside the slice of the circle its parent (the memory it was reached
// from) owns, a slice as wide as the leaves below it. The same graph always
// gets the same places (no randomness), so a reload or a live update moves
// nothing; a memory that joins later is placed in its parent's slice while
// every other memory keeps its place.

// RING is the distance between two rings; SPACING the least arc between two
// memories of one ring.
const RING = 150;
const SPACING = 70;

// FOLD_AT: a memory with more leaves than this (neighbours reached only
// through it) shows KEEP of them and folds the others into one "+N more" node.
export const FOLD_AT = 8;
const KEEP = 5;

// tree reads the graph answer as a tree from its origin: each memory's parent
// is the first neighbour one hop nearer, in the walk's order.
export function tree(g) {
  const byId = new Map(g.nodes.map((n) => [n.id, n]));
  const neighbours = new Map(g.nodes.map((n) => [n.id, []]));
  for (const e of g.edges) {
    if (!byId.has(e.source_id) || !byId.has(e.target_id)) continue;
    neighbours.get(e.source_id).push(e.target_id);
    neighbours.get(e.target_id).push(e.source_id);
  }
  const parent = new Map();
  const children = new Map(g.nodes.map((n) => [n.id, []]));
  for (const n of g.nodes) {
    if (n.id === g.origin_id) continue;
    const p = neighbours.get(n.id).find((m) => byId.get(m).depth === n.depth - 1) ?? g.origin_id;
    parent.set(n.id, p);
    children.get(p).push(n.id);
  }
  return { byId, neighbours, parent, children };
}

// folds returns, for each memory with too many leaves, the leaves folded away
// (all but the first KEEP), unless the person unfolded it.
export function folds(g, t, unfolded) {
  const out = new Map();
  for (const [id, kids] of t.children) {
    if (unfolded.has(id)) continue;
    const leaves = kids.filter((k) => t.children.get(k).length === 0 && t.neighbours.get(k).length === 1);
    if (leaves.length > FOLD_AT) out.set(id, leaves.slice(KEEP));
  }
  return out;
}

// hash is a small stable number for a string (FNV-1a), to order siblings
// the same way every time.
function hash(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

// radial places the visible ids (a Set: memories and fold nodes, whose
// parents are given by parentOf) on rings around the origin.
export function radial(origin, visible, childrenOf) {
  const pos = new Map([[origin, { x: 0, y: 0 }]]);
  const kids = (id) => childrenOf(id).filter((k) => visible.has(k)).sort((a, b) => hash(a) - hash(b));
  const weight = new Map();
  const leaves = (id) => {
    if (weight.has(id)) return weight.get(id);
    const k = kids(id);
    const w = k.length ? k.reduce((s, c) => s + leaves(c), 0) : 1;
    weight.set(id, w);
    return w;
  };
  // How many memories each ring holds sets its radius: room for all of them.
  const ringCount = [];
  const depthOf = new Map([[origin, 0]]);
  const walk = [origin];
  while (walk.length) {
    const id = walk.shift();
    for (const k of kids(id)) {
      depthOf.set(k, depthOf.get(id) + 1);
      ringCount[depthOf.get(k)] = (ringCount[depthOf.get(k)] ?? 0) + 1;
      walk.push(k);
    }
  }
  const radius = [0];
  for (let d = 1; d < ringCount.length; d++) radius[d] = Math.max(radius[d - 1] + RING, (ringCount[d] * SPACING) / (2 * Math.PI));
  const place = (id, from, to) => {
    const k = kids(id);
    const total = k.reduce((s, c) => s + leaves(c), 0);
    let at = from;
    for (const c of k) {
      const span = ((to - from) * leaves(c)) / total;
      const angle = at + span / 2;
      const r = radius[depthOf.get(c)];
      pos.set(c, { x: r * Math.cos(angle), y: r * Math.sin(angle) });
      place(c, at, at + span);
      at += span;
    }
  };
  place(origin, -Math.PI / 2, (3 * Math.PI) / 2);
  return pos;
}

// joinPosition is where a memory that joins a drawn graph goes: beside its
// parent, away from the origin, turned by its id so that several joining
// memories do not land on one spot.
export function joinPosition(id, parentPos, originPos) {
  const dx = parentPos.x - originPos.x, dy = parentPos.y - originPos.y;
  const base = dx || dy ? Math.atan2(dy, dx) : 0;
  const angle = base + ((hash(id) % 120) - 60) * (Math.PI / 180);
  return { x: parentPos.x + RING * 0.6 * Math.cos(angle), y: parentPos.y + RING * 0.6 * Math.sin(angle) };
}

// overlaps reports whether two boxes ({x1, y1, x2, y2}) overlap.
export function overlaps(a, b) {
  return a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;
}
