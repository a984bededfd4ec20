// The review page: the contradictions queue, one card per pair, A and B side
// by side with the words that differ marked, resolved with buttons or keys
// 1-4 on the selected card.
import { el, fmtNum, fmtTime, Loads, redraw } from "./dom.js";
import { listContradictions, resolveContradiction } from "./api.js";

export const RESOLUTIONS = [
  { key: "1", value: "a_supersedes_b", label: "A supersedes B" },
  { key: "2", value: "b_supersedes_a", label: "B supersedes A" },
  { key: "3", value: "both_hold", label: "Both hold" },
  { key: "4", value: "not_contradiction", label: "Not a contradiction" },
];

// MAX_DIFF_WORDS bounds the word diff (its table grows with both lengths).
const MAX_DIFF_WORDS = 400;

// wordDiff marks, in each of two texts, the words the other does not share
// (longest common subsequence of words): for each text a list of
// [piece, differs] where pieces keep their spacing. Null when too long.
export function wordDiff(a, b) {
  const wa = a.split(/(\s+)/), wb = b.split(/(\s+)/);
  if (wa.length > 2 * MAX_DIFF_WORDS || wb.length > 2 * MAX_DIFF_WORDS) return null;
  const n = wa.length, m = wb.length;
  const lcs = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = wa[i] === wb[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const outA = [], outB = [];
  let i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && wa[i] === wb[j]) { outA.push([wa[i++], false]); outB.push([wb[j++], false]); }
    else if (j < m && (i === n || lcs[i][j + 1] >= lcs[i + 1][j])) outB.push([wb[j], /\S/.test(wb[j++])]);
    else outA.push([wa[i], /\S/.test(wa[i++])]);
  }
  return [outA, outB];
}

// marked renders diff pieces, the differing words in a mark.
function marked(pieces, tag) {
  return pieces.map(([text, differs]) => (differs ? el(tag, { class: "diff" }, text) : text));
}

function side(label, m, pieces, tag) {
  return el("div", { class: "side" },
    el("div", { class: "side-head" },
      el("strong", {}, label), " ",
      el("span", { class: `badge ${m.memory_type}` }, m.memory_type),
      el("span", { class: "muted" }, ` ${m.namespace} · confidence ${fmtNum(m.confidence)} · ${fmtTime(m.created_at)}`)),
    el("div", { class: "content" }, pieces ? marked(pieces, tag) : m.content),
    el("a", { href: `#/m/${encodeURIComponent(m.id)}` }, "open"));
}

function card(p, onResolve) {
  const golden = p.a.memory_type === "golden_rule" || p.b.memory_type === "golden_rule";
  const force = golden ? el("input", { type: "checkbox", class: "force-box" }) : null;
  const diff = wordDiff(p.a.content, p.b.content); // what tells them apart, marked
  const li = el("li", { class: "pair", "data-edge": p.edge_id, tabindex: "-1" },
    el("div", { class: "sides" }, side("A", p.a, diff?.[0], "del"), side("B", p.b, diff?.[1], "ins")),
    p.reason ? el("p", { class: "muted reason" }, `Judged contradicting (${fmtNum(p.weight)}): ${p.reason}`) : null,
    golden ? el("label", { class: "force" }, force, " A golden rule is involved: allow superseding it (force)") : null,
    el("input", { type: "text", class: "reason-box", maxlength: 1000, "aria-label": "Reason",
      placeholder: "Why? (optional, recorded on both memories; type, then click a resolution)" }),
    el("div", { class: "actions" }, RESOLUTIONS.map((r) =>
      el("button", { type: "button", "data-resolution": r.value, title: `key ${r.key}` }, el("kbd", {}, r.key), " ", r.label))));
  li.querySelectorAll("button[data-resolution]").forEach((b) =>
    b.addEventListener("click", () => onResolve(li, b.dataset.resolution)));
  return li;
}

// busy says whether a person is at work on a card: focus in it (typing its
// reason, on its buttons), a reason typed, force ticked or its resolution on
// its way.
function busy(card) {
  return card.contains(document.activeElement) || card.querySelector(".reason-box").value !== "" ||
    Boolean(card.querySelector(".force-box")?.checked) || Boolean(card.querySelector("button:disabled"));
}

// setText changes an element's text only when it differs: the same text
// written again would drop a selection in it.
function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

// ReviewPage keeps the selection and the keyboard handling of the queue.
export class ReviewPage {
  constructor({ list, summary, count, setStatus }) {
    Object.assign(this, { list, summary, count, setStatus });
    this.selected = 0;
    this.loads = new Loads();
  }

  cards() { return [...this.list.querySelectorAll("li.pair")]; }

  // select marks the i-th card, scrolled into view unless scroll is false.
  select(i, { scroll = true } = {}) {
    const cards = this.cards();
    if (!cards.length) return;
    this.selected = Math.max(0, Math.min(i, cards.length - 1));
    cards.forEach((c, j) => c.classList.toggle("selected", j === this.selected));
    if (scroll) cards[this.selected].scrollIntoView({ block: "nearest" });
  }

  // load draws the queue. A live reload (quiet) replaces only the cards whose
  // pair changed, and never one a person is busy with: the reason they are
  // typing keeps its focus, so that their next keys do not fall to the
  // page's 1-4 (resolve). The selected pair stays selected where it moved,
  // and the page does not scroll.
  async load({ quiet = false } = {}) {
    if (!quiet) this.setStatus("Loading…");
    const load = this.loads.start();
    try {
      const q = await listContradictions();
      if (this.loads.stale(load)) {
        if (!quiet) this.setStatus("");
        return;
      }
      const cards = new Map(this.cards().map((c) => [c.dataset.edge, c]));
      const selected = this.cards()[this.selected]?.dataset.edge;
      // Unmarked, a card is the same as its new one when its pair is.
      for (const c of cards.values()) c.classList.remove("selected");
      redraw(this.list, q.pairs.map((p) => {
        const c = cards.get(String(p.edge_id));
        return c && busy(c) ? c : card(p, (li, r) => this.resolve(li, r));
      }));
      this.show(q.total);
      const at = this.cards().findIndex((c) => c.dataset.edge === selected);
      this.select(at >= 0 ? at : this.selected, { scroll: !quiet });
      if (!quiet) this.setStatus("");
    } catch (err) {
      if (!this.loads.stale(load)) this.setStatus(err.message, true);
    }
  }

  show(total) {
    setText(this.count, total ? String(total) : "");
    setText(this.summary, total
      ? `${total} unresolved contradiction${total === 1 ? "" : "s"}${total > this.cards().length ? ` (first ${this.cards().length} shown)` : ""}`
      : "Nothing to review: no unresolved contradictions.");
  }

  async resolve(li, resolution) {
    const force = li.querySelector(".force-box")?.checked ?? false;
    const reason = li.querySelector(".reason-box").value.trim();
    li.querySelectorAll("button").forEach((b) => { b.disabled = true; });
    try {
      const res = await resolveContradiction(li.dataset.edge, resolution, force, reason);
      // A live reload that saw the resolution took the card and counted it already.
      if (li.isConnected) {
        li.remove();
        this.show(Math.max(0, Number(this.count.textContent || 0) - 1));
        this.select(this.selected);
      }
      this.setStatus(res.message);
    } catch (err) {
      li.querySelectorAll("button").forEach((b) => { b.disabled = false; });
      this.setStatus(err.message, true);
    }
  }

  // key handles j, k and 1-4; it returns whether the key was used.
  key(k) {
    if (k === "j") { this.select(this.selected + 1); return true; }
    if (k === "k") { this.select(this.selected - 1); return true; }
    const r = RESOLUTIONS.find((x) => x.key === k);
    const li = this.cards()[this.selected];
    if (r && li) { this.resolve(li, r.value); return true; }
    return false;
  }
}
