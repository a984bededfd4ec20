// The stale review, under the contradictions on the Review page: memories not
// validated for N days or trusted under a confidence, the longest unchecked
// first, each saying why it is listed; ticked ones are re-validated or
// archived together after a count of what would change (the list's Bulk).
import { el, fmtNum, fmtTime, Loads, redraw } from "./dom.js";
import { listStale, listProjects } from "./api.js";
import { Bulk } from "./bulk.js";
import { pageHash, pageParams } from "./listurl.js";

const $ = (id) => document.getElementById(id);

function why(m, rep) {
  const out = [];
  if (m.unvalidated) {
    out.push(m.last_validated
      ? `not validated for ${m.days_since_validation} days (last ${fmtTime(m.last_validated)})`
      : `never validated in ${m.days_since_validation} days`);
  }
  if (m.low_confidence) out.push(`confidence ${fmtNum(m.confidence)} under ${fmtNum(rep.below)}`);
  return out.join("; ");
}

// reviewHash is the Review page's address with the stale review's filters
// (days only when not the configured default), so a reload or a shared
// link shows the same queue.
export function reviewHash({ days = "", below = "", namespace = "" } = {}, defaultDays = "") {
  return pageHash("review", { days: days !== String(defaultDays) ? days : "", below, ns: namespace });
}

// parseReviewHash reads the Review page's address; null for another page's.
export function parseReviewHash(hash) {
  const params = pageParams("review", hash);
  return params && { days: params.get("days") || "", below: params.get("below") || "", namespace: params.get("ns") || "" };
}

export class StaleReview {
  constructor({ setStatus }) {
    this.setStatus = setStatus;
    this.loads = new Loads();
    this.filters = null; // the address's, once shown (see show)
    this.list = $("stale");
    this.bulk = new Bulk({
      bar: $("stale-bar"), box: $("stale-box"), list: this.list, setStatus, prefix: "stale",
      reload: () => this.load({ quiet: true }),
      actions: [{ action: "confirm", label: "Re-validate selected", verb: "Re-validate" }, { action: "archive", label: "Archive selected" }],
    });
    // Show puts the filters in the address (a history entry); the route
    // loads them from there.
    $("stale-filters").addEventListener("submit", (e) => {
      e.preventDefault();
      if (!$("stale-filters").reportValidity()) return;
      const next = reviewHash(this.query(), this.defaultDays);
      if (next === location.hash) {
        this.filters = this.query();
        this.load();
      } else location.hash = next;
    });
    $("stale-all").addEventListener("click", () => {
      for (const li of this.list.querySelectorAll("li[data-id]")) this.bulk.set(li.dataset.id, true);
    });
  }

  query() {
    return { days: $("stale-days").value, below: $("stale-below").value, namespace: $("stale-namespace").value };
  }

  // show puts filters read from the address into the form (days left empty
  // takes the configured default).
  show({ days, below, namespace }) {
    $("stale-days").value = days || (this.defaultDays ? String(this.defaultDays) : "");
    $("stale-below").value = below;
    const ns = $("stale-namespace");
    if (namespace && ![...ns.options].some((o) => o.value === namespace)) ns.append(el("option", { value: namespace }, namespace));
    ns.value = namespace;
    // The filters loads use, until the next Show: not what is half typed.
    this.filters = $("stale-filters").checkValidity() ? this.query() : null;
  }

  // namespaces offers the namespaces that hold memories, once.
  async namespaces() {
    if (this.offered) return;
    this.offered = true;
    try {
      const ns = $("stale-namespace");
      const keep = ns.value;
      for (const p of await listProjects()) {
        if (![...ns.options].some((o) => o.value === p.namespace)) ns.append(el("option", { value: p.namespace }, p.namespace));
      }
      ns.value = keep;
    } catch {
      this.offered = false; // every namespace still works; try again next time
    }
  }

  // load draws the queue of the filters shown (filters half typed in the
  // form wait for Show). A live reload (quiet) replaces only the items that
  // changed.
  async load({ quiet = false } = {}) {
    if (!this.filters) {
      $("stale-filters").reportValidity();
      return;
    }
    if (!quiet) this.setStatus("Loading…");
    const load = this.loads.start();
    try {
      const rep = await listStale(this.filters);
      if (this.loads.stale(load)) {
        if (!quiet) this.setStatus("");
        return;
      }
      this.defaultDays = rep.days; // the configured stale_days
      if (!$("stale-days").value) $("stale-days").value = String(rep.days);
      redraw(this.list, rep.memories.map((m) => el("li", { "data-id": m.id },
        this.bulk.checkbox(m.id),
        el("div", {},
          el("a", { href: `#/m/${encodeURIComponent(m.id)}`, class: "content" }, m.content_preview),
          el("div", { class: "meta" },
            el("span", { class: `badge ${m.memory_type}` }, m.memory_type),
            el("span", {}, m.namespace),
            el("span", {}, `confidence ${fmtNum(m.confidence)}`),
            el("span", { class: "why" }, why(m, rep)))))));
      const shown = rep.memories.length;
      const summary = rep.total
        ? `${rep.total} stale ${rep.total === 1 ? "memory" : "memories"}${rep.total > shown ? ` (the ${shown} longest unchecked shown)` : ""}`
        : `Nothing stale: every memory was validated in the last ${rep.days} days${rep.below ? ` and is trusted at least ${fmtNum(rep.below)}` : ""}.`;
      if ($("stale-summary").textContent !== summary) $("stale-summary").textContent = summary;
      $("stale-all").hidden = shown === 0;
      if (!quiet) this.setStatus("");
    } catch (err) {
      if (!this.loads.stale(load)) this.setStatus(err.message, true);
    }
  }
}
