// The health page: what `recall stats` prints and what the health analysis
// finds, as text, then recall doctor's findings (loaded after: it asks Ollama).
import { el, fmtNum, fmtTime, Loads, redraw } from "./dom.js";
import { getDoctor, getHealth } from "./api.js";
import { viaLabel } from "./changes.js";

function row(name, value, id) {
  return [el("dt", {}, name), el("dd", id ? { id } : {}, String(value))];
}

function counts(obj) {
  const keys = Object.keys(obj ?? {}).sort();
  return keys.length ? keys.map((k) => `${k} ${obj[k]}`).join(", ") : "none";
}

function bytes(n) {
  const units = ["B", "KiB", "MiB", "GiB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return `${n.toFixed(i ? 1 : 0)} ${units[i]}`;
}

function briefs(title, list, total) {
  if (!total) return null;
  return [el("h2", {}, `${title} (${total})`),
    el("ul", { class: "briefs" }, list.map((b) => el("li", {},
      el("a", { href: `#/m/${encodeURIComponent(b.id)}` }, b.content_preview),
      el("span", { class: "muted" }, ` confidence ${fmtNum(b.confidence)}`))))];
}

const loads = new Loads();
let shown = ""; // the panel on the page, as JSON

// loadHealth draws the panel in box, then the doctor's findings under it. A
// live refresh that finds the panel as shown leaves the page alone (and asks
// the doctor nothing); one that finds it changed replaces only the parts
// that changed, so that a person's selection (a fix to copy) or focus stays.
export async function loadHealth(box, setStatus, { quiet = false } = {}) {
  if (!quiet) setStatus("Loading…");
  const load = loads.start();
  try {
    const panel = await getHealth();
    const found = JSON.stringify(panel);
    if (loads.stale(load) || (quiet && found === shown)) {
      if (!quiet) setStatus("");
      return;
    }
    shown = found;
    const { stats: s, report: r, vectors: v } = panel;
    // A live refresh keeps the findings shown until the new ones arrive.
    const doctorBox = box.querySelector("#doctor") ?? el("div", { id: "doctor" }, el("p", { class: "muted" }, "Checking the database, Ollama and the models…"));
    const backlog = s.pending_jobs
      ? `${s.pending_jobs} pending${s.retrying_jobs ? ` (${s.retrying_jobs} waiting to retry)` : ""}, oldest queued ${fmtTime(s.oldest_job_at)}`
      : "none pending";
    const stats = box.querySelector("#health-stats") ?? el("dl", { class: "fields", id: "health-stats" });
    redraw(stats, [
      row("memories", s.memories, "health-memories"),
      row("by type", counts(s.by_type)),
      row("by namespace", counts(s.by_namespace)),
      row("stored through", counts(Object.fromEntries(Object.entries(s.by_source ?? {}).map(([k, n]) => [viaLabel(k).replace(/^via /, ""), n])))),
      row("edges", s.edges),
      row("validation events", s.validation_events),
      row("embeddings", `${s.embedding_model || "none yet"} (dimension ${s.embedding_dimension}), ${s.pending_embeddings} pending`, "health-pending"),
      row("vector search", v.usable ? "usable" : `off: ${v.reason}`),
      row("curation jobs", backlog, "health-jobs"),
      s.last_job_error ? row("last job failure", s.last_job_error) : null,
      (s.model_health ?? []).map((h) => row(`${h.role} model`, `failing, ${h.failures} calls in a row: ${h.last_error}`)),
      row("session journal", `${s.journal_entries} entries (${s.trimmed_entries} trimmed), ${s.pending_summaries} summaries pending`),
      row("database", `${bytes(s.file_bytes)}, schema ${s.schema_version}`),
    ].flat().filter(Boolean));
    redraw(box, [
      stats,
      el("h2", {}, "Curation"),
      el("dl", { class: "fields" },
        row("golden rules", r.counts.golden_rules),
        row("superseded", r.counts.superseded),
        [el("dt", {}, "unresolved contradictions"), el("dd", {}, el("a", { href: "#/review" }, String(r.counts.unresolved_contradictions)))],
        row("low confidence", r.counts.low_confidence),
        row("stale", r.counts.stale)),
      r.recommendations.length ? el("ul", { class: "recommendations" }, r.recommendations.map((t) => el("li", {}, t))) : null,
      briefs("Weak golden rules", r.weak_golden_rules, r.weak_golden_rules.length),
      briefs("Low confidence", r.low_confidence, r.counts.low_confidence),
      briefs("Stale", r.stale, r.counts.stale),
      el("h2", {}, "Doctor"),
      doctorBox,
    ].flat().filter(Boolean));
    loadDoctor(doctorBox);
    if (!quiet) setStatus("");
  } catch (err) {
    if (!loads.stale(load)) setStatus(err.message, true);
  }
}

const MARKS = { ok: "ok", warn: "warn", fail: "FAIL" };

const doctorLoads = new Loads();

// loadDoctor fills box with recall doctor's findings, problems first; the
// findings that did not change stay as they are.
async function loadDoctor(box) {
  const load = doctorLoads.start();
  try {
    const { findings } = await getDoctor();
    if (doctorLoads.stale(load)) return;
    const order = { fail: 0, warn: 1, ok: 2 };
    const sorted = [...findings].sort((a, b) => order[a.level] - order[b.level]);
    const list = box.querySelector("ul.findings") ?? el("ul", { class: "findings" });
    redraw(list, sorted.map((f) => el("li", { class: `finding ${f.level}` },
      el("span", { class: `mark ${f.level}` }, MARKS[f.level] ?? f.level), " ", f.what,
      (f.fix ?? []).map((fix) => el("div", { class: "fix" }, "fix: ", el("code", {}, fix))))));
    redraw(box, [list]);
  } catch (err) {
    if (!doctorLoads.stale(load)) box.replaceChildren(el("p", { class: "muted" }, `recall doctor's checks are not available here: ${err.message}`));
  }
}
