// confidenceChart draws a memory's confidence over time as a small SVG line:
// one point per validation event (its confidence after the event), starting
// from the confidence before the first one, evenly spaced in event order. Drawn here, with no library:
// a few dozen lines of SVG, whose points can be links with keyboard focus (a
// chart library draws on a canvas, which has neither).
import { svg } from "./dom.js";

const W = 560, H = 140, PAD = { left: 34, right: 10, top: 10, bottom: 22 };

// eventRowId is the id of an event's row in the memory page's event table.
export function eventRowId(id) {
  return `event-${id}`;
}

// showEvent scrolls to an event's row, focuses and marks it.
function showEvent(id) {
  const row = document.getElementById(eventRowId(id));
  if (!row) return;
  document.querySelectorAll("#events tr.target").forEach((r) => r.classList.remove("target"));
  row.classList.add("target");
  row.scrollIntoView({ block: "center" });
  row.focus({ preventScroll: true });
}

export function confidenceChart(events) {
  // In the order they were recorded: by id, as events within one millisecond
  // share their time and a sort by time would shuffle them.
  const ordered = [...events].sort((a, b) => a.id - b.id);
  if (!ordered.length) return null;
  const points = [{ t: new Date(ordered[0].created_at).getTime(), c: ordered[0].confidence_before }];
  for (const ev of ordered) points.push({ t: new Date(ev.created_at).getTime(), c: ev.confidence_after, type: ev.event_type, id: ev.id });
  const t0 = points[0].t, t1 = points[points.length - 1].t;
  const span = t1 - t0;
  // One step per event, not a time axis: events minutes apart after weeks of
  // quiet would otherwise pile up on one spot. The dates at the ends give the span.
  const x = (p, i) => PAD.left + (W - PAD.left - PAD.right) * (i / (points.length - 1));
  const y = (c) => PAD.top + (H - PAD.top - PAD.bottom) * (1 - Math.max(0, Math.min(1, c)));
  const xs = points.map(x);
  const grid = [0, 0.5, 0.9, 1].map((c) =>
    svg("g", { class: c === 0.9 ? "grid golden" : "grid" },
      svg("line", { x1: PAD.left, x2: W - PAD.right, y1: y(c), y2: y(c) }),
      svg("text", { x: PAD.left - 4, y: y(c) + 4, "text-anchor": "end" }, c.toFixed(1))));
  const line = svg("polyline", { class: "line", points: points.map((p, i) => `${xs[i].toFixed(1)},${y(p.c).toFixed(1)}`).join(" ") });
  const dots = points.map((p, i) => {
    const title = `${new Date(p.t).toLocaleString()}: ${p.c.toFixed(2)}${p.type ? ` (${p.type})` : " (before)"}`;
    const dot = svg("circle", { class: `dot ${p.type || "start"}`, cx: xs[i].toFixed(1), cy: y(p.c).toFixed(1), r: 3.5 }, svg("title", {}, title));
    if (p.id === undefined) return dot;
    // Each event's point leads to its row in the event table. Not an href:
    // the page's address is its route (#/m/<id>).
    const link = svg("g", { class: "event-link", role: "link", tabindex: 0, "data-event": p.id, "aria-label": `Event: ${title}` },
      svg("circle", { class: "hit", cx: xs[i].toFixed(1), cy: y(p.c).toFixed(1), r: 9 }), dot);
    link.addEventListener("click", () => showEvent(p.id));
    link.addEventListener("keydown", (e) => { if (e.key === "Enter") showEvent(p.id); });
    return link;
  });
  const label = (t, anchor, xPos) => svg("text", { x: xPos, y: H - 6, "text-anchor": anchor }, new Date(t).toLocaleDateString());
  return svg("svg", { id: "confidence-chart", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "Confidence over time" },
    svg("title", {}, "Confidence over time (0.9: golden rule)"),
    grid, line, dots, label(t0, "start", PAD.left), span > 0 ? label(t1, "end", W - PAD.right) : null);
}
