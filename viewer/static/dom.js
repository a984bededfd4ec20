// el builds an element. Children that are strings become text nodes, never
// HTML: memories are written by agents and are shown exactly as text.
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function fmtTime(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "" : d.toLocaleString();
}

export function fmtNum(x) {
  return typeof x === "number" ? x.toFixed(2) : "";
}

const SVG_NS = "http://www.w3.org/2000/svg";

// svg builds an SVG element; like el, children that are strings become text.
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null) node.setAttribute(name, String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// searchWords are the words of a search worth marking in its hits.
export function searchWords(query) {
  return [...new Set((query || "").toLowerCase().split(/[^\p{L}\p{N}_]+/u).filter((w) => w.length > 1))];
}

function wordsPattern(words) {
  return new RegExp(words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "giu");
}

// excerpt starts a long text shortly before the first of words, so that the
// lines a list shows hold a hit.
export function excerpt(text, words, lead = 40) {
  if (!words.length) return text;
  const at = text.search(wordsPattern(words));
  if (at < 100) return text;
  const from = text.lastIndexOf(" ", at - lead);
  return "…" + text.slice(from > 0 ? from + 1 : at - lead);
}

// highlight returns text as nodes with each of words in a <mark>: text
// nodes and elements made here, never parsed HTML.
export function highlight(text, words) {
  if (!words.length) return [text];
  const out = [];
  let last = 0;
  for (const m of text.matchAll(wordsPattern(words))) {
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(el("mark", {}, m[0]));
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

// showForm puts an inline form in box: Cancel or Escape closes it, and a
// submit runs onSubmit (the page does not reload).
export function showForm(box, form, cancel, onSubmit) {
  box.replaceChildren(form);
  // The form itself goes, not box's children: a live refresh of the page may
  // have moved the open form into the new page's box.
  cancel.addEventListener("click", () => form.remove());
  form.addEventListener("keydown", (e) => { if (e.key === "Escape") form.remove(); });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    onSubmit();
  });
}

// Loads numbers a page's loads. One that finishes after a later one has
// finished is stale and draws nothing: older data must not cover newer (the
// page's first load overtaken by a live refresh, a refresh by the reload
// after a person's own change).
export class Loads {
  #started = 0;
  #finished = 0;

  start() { return ++this.#started; }

  // stale says whether load finished after a later one; if not, it is now
  // the latest.
  stale(load) {
    if (load < this.#finished) return true;
    this.#finished = load;
    return false;
  }
}

// redraw makes nodes (elements) the children of parent, keeping in place each
// child that is the same as a node that would replace it (the same HTML), and
// any node that is already parent's child: a live refresh must not take from
// under a person what has not changed, the text they selected, the button they
// focused or typed in. Only what changed is replaced.
export function redraw(parent, nodes) {
  const wanted = new Set(nodes);
  const spare = new Map(); // children not asked for, by their HTML
  for (const c of parent.children) {
    if (wanted.has(c)) continue;
    spare.set(c.outerHTML, [...(spare.get(c.outerHTML) ?? []), c]);
  }
  const next = nodes.map((n) => (n.parentNode === parent ? n : spare.get(n.outerHTML)?.shift() ?? n));
  const keep = new Set(next);
  for (const c of [...parent.childNodes]) if (!keep.has(c)) c.remove();
  // What stays is in order but for moved items; only those move (a node
  // moved loses focus), new ones go in their place.
  let at = parent.firstChild;
  for (const n of next) {
    if (n === at) at = at.nextSibling;
    else parent.insertBefore(n, at);
  }
}
