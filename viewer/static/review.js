// The review page: the contradictions queue, one card per pair, A and B side
// by side with the words that differ marked, resolved with buttons or keys
// 1-4 on the selected card.
import { el, fmtNum, fmtTime } from "./dom.js";
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

// ReviewPage keeps the selection and the keyboard handling of the queue.
export class ReviewPage {
  constructor({ list, summary, count, setStatus }) {
    Object.assign(this, { list, summary, count, setStatus });
    this.selected = 0;
  }

  cards() { return [...this.list.querySelectorAll("li.pair")]; }

  select(i) {
    const cards = this.cards();
    if (!cards.length) return;
    this.selected = Math.max(0, Math.min(i, cards.length - 1));
    cards.forEach((c, j) => c.classList.toggle("selected", j === this.selected));
    cards[this.selected].scrollIntoView({ block: "nearest" });
  }

  async load({ quiet = false } = {}) {
    if (!quiet) this.setStatus("Loading…");
    try {
      const q = await listContradictions();
      // A live reload leaves the cards alone when the queue is the same, and
      // keeps ticked force boxes and typed reasons when it is not.
      const shown = this.cards().map((c) => c.dataset.edge).join();
      if (shown !== q.pairs.map((p) => String(p.edge_id)).join()) {
        const forced = new Set(this.cards().filter((c) => c.querySelector(".force-box")?.checked).map((c) => c.dataset.edge));
        const reasons = new Map(this.cards().map((c) => [c.dataset.edge, c.querySelector(".reason-box").value]));
        this.list.replaceChildren(...q.pairs.map((p) => card(p, (li, r) => this.resolve(li, r))));
        for (const c of this.cards()) {
          const box = c.querySelector(".force-box");
          if (box && forced.has(c.dataset.edge)) box.checked = true;
          c.querySelector(".reason-box").value = reasons.get(c.dataset.edge) ?? "";
        }
      }
      this.show(q.total);
      this.select(this.selected);
      if (!quiet) this.setStatus("");
    } catch (err) {
      this.setStatus(err.message, true);
    }
  }

  show(total) {
    this.count.textContent = total ? String(total) : "";
    this.summary.textContent = total
      ? `${total} unresolved contradiction${total === 1 ? "" : "s"}${total > this.cards().length ? ` (first ${this.cards().length} shown)` : ""}`
      : "Nothing to review: no unresolved contradictions.";
  }

  async resolve(li, resolution) {
    const force = li.querySelector(".force-box")?.checked ?? false;
    const reason = li.querySelector(".reason-box").value.trim();
    li.querySelectorAll("button").forEach((b) => { b.disabled = true; });
    try {
      const res = await resolveContradiction(li.dataset.edge, resolution, force, reason);
      li.remove();
      this.show(Math.max(0, Number(this.count.textContent || 0) - 1));
      this.select(this.selected);
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
