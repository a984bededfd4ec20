// The golden rules page: a project's golden rules (and the global ones), the
// exact context memory_context_tool would inject for the project with each
// line's token estimate, promotion and demotion with a required reason, and
// the audit trail of both.
import { el, fmtNum, Loads } from "./dom.js";
import { getGolden, listProjects, demoteMemory } from "./api.js";
import { auditTrail, promoteForm } from "./changes.js";

// goldenHash is the URL of the page for a project ("" for global only).
export function goldenHash(project) {
  return project ? `#/golden/${encodeURIComponent(project)}` : "#/golden";
}

// parseGoldenHash reads #/golden[/<project>]; null when it is another page.
export function parseGoldenHash(hash) {
  const m = /^#\/golden(?:\/(.+))?$/.exec(hash);
  return m ? { project: m[1] ? decodeURIComponent(m[1]) : "" } : null;
}

function demoteForm(rule, onDone, setStatus) {
  const reason = el("textarea", { id: "demote-reason", rows: 2, required: true, placeholder: "Why is this no longer a golden rule? (required, recorded)", "aria-label": "Reason" });
  const go = el("button", { type: "submit", id: "demote-confirm", class: "danger", disabled: true }, "Demote");
  const cancel = el("button", { type: "button" }, "Cancel");
  const form = el("form", { class: "demote-form" }, reason, el("div", { class: "actions" }, go, cancel));
  reason.addEventListener("input", () => { go.disabled = reason.value.trim() === ""; });
  cancel.addEventListener("click", () => form.remove());
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    go.disabled = true;
    try {
      const m = await demoteMemory(rule.id, reason.value);
      form.remove();
      await onDone();
      setStatus(`Demoted to ${m.memory_type}.`);
    } catch (err) {
      go.disabled = false;
      setStatus(err.message, true);
    }
  });
  return form;
}

function ruleItem(rule, reload, setStatus) {
  return itemWithForm(rule, [
    el("span", {}, rule.namespace),
    el("span", {}, `confidence ${fmtNum(rule.confidence)}`),
    rule.metadata?.promoted_from ? el("span", {}, `promoted from ${rule.metadata.promoted_from}`) : null,
  ], el("button", { type: "button", class: "demote danger" }, "Demote…"), () => demoteForm(rule, reload, setStatus));
}

// candidateItem is a memory that may be promoted, with its Promote button.
function candidateItem(m, reload, setStatus) {
  return itemWithForm(m, [
    el("span", { class: `badge ${m.memory_type}` }, m.memory_type),
    el("span", {}, `confidence ${fmtNum(m.confidence)}`),
    m.metadata?.demoted_at ? el("span", {}, "demoted before") : null,
  ], el("button", { type: "button", class: "promote" }, "Promote…"), () => promoteForm(m, reload, setStatus));
}

// itemWithForm is a memory of the page with its meta line and a button that
// opens a form (form() makes it) under it, once.
function itemWithForm(m, meta, button, form) {
  const li = el("li", { "data-id": m.id },
    el("a", { href: `#/m/${encodeURIComponent(m.id)}`, class: "content" }, m.content),
    el("div", { class: "meta" }, ...meta, button));
  button.addEventListener("click", () => {
    if (li.querySelector("form")) return;
    li.append(form());
    li.querySelector("textarea").focus();
  });
  return li;
}

// loads numbers the page's loads; shown is what the page shows.
const loads = new Loads();
let shown = "";

export async function loadGolden(box, { project }, setStatus, { quiet = false } = {}) {
  if (!quiet) setStatus("Loading…");
  const load = loads.start();
  const reload = () => loadGolden(box, { project }, setStatus, { quiet: true });
  try {
    const [g, projects] = await Promise.all([getGolden(project), listProjects()]);
    // A load overtaken by a later one (the page's first by a live refresh)
    // draws nothing. A live refresh leaves a promote or demote form opened
    // while it loaded alone, with what is typed in it, and a page already
    // showing what it found (the person's own change): a click on its way
    // still lands.
    const found = JSON.stringify([project, g, projects]);
    if (loads.stale(load) || (quiet && (box.querySelector("form") || found === shown))) {
      if (!quiet) setStatus("");
      return;
    }
    shown = found;
    const names = projects.map((p) => p.namespace.replace(/^project:/, ""));
    if (project && !names.includes(project)) names.push(project);
    const picker = el("select", { id: "golden-project", "aria-label": "Project" },
      el("option", { value: "" }, "no project (global only)"),
      names.sort().map((n) => el("option", { value: n, selected: n === project }, n)));
    picker.addEventListener("change", () => { location.hash = goldenHash(picker.value); });
    const ctx = g.context;
    box.replaceChildren(
      el("h1", {}, "Golden rules"),
      el("p", {}, el("label", {}, "Project ", picker)),
      el("p", { class: "muted" }, "Golden rules are injected into every session of their project (and global ones into every session), whatever the token budget. Promoting or demoting one needs a reason, recorded in the audit trail below; a demoted memory is not promoted again automatically, only by a person."),
      g.rules.length
        ? el("ol", { id: "golden-rules" }, g.rules.map((r) => ruleItem(r, reload, setStatus)))
        : el("p", { class: "muted", id: "golden-rules-none" }, "No golden rules here."),
      el("h2", {}, "What a session starts with"),
      el("p", { class: "muted", id: "context-summary" },
        `memory_context_tool for ${project ? `project ${project}` : "no project"}: about ${ctx.token_estimate} tokens, ${ctx.memory_ids.length} memories (${ctx.golden_rules} golden rules)`,
        ctx.truncated ? ", some left out for the token budget" : "", "."),
      el("table", { id: "context-lines", class: "context" },
        el("thead", {}, el("tr", {}, el("th", {}, "line"), el("th", { class: "num" }, "tokens"))),
        el("tbody", {}, ctx.lines.map((l) =>
          el("tr", { class: l.text.startsWith("#") ? "heading" : "" }, el("td", { class: "text" }, l.text), el("td", { class: "num" }, l.text ? String(l.tokens) : ""))))),
      el("h2", {}, "Promote a memory"),
      el("p", { class: "muted" }, `The most trusted preferences, decisions and patterns of ${project ? `project ${project}` : "global"}; they become golden rules on their own at confidence 0.90.`),
      g.candidates.length
        ? el("ol", { id: "golden-candidates" }, g.candidates.map((m) => candidateItem(m, reload, setStatus)))
        : el("p", { class: "muted" }, "Nothing to promote here."),
      el("h2", {}, "Audit trail"),
      auditTrail(g.audit));
    if (!quiet) setStatus("");
  } catch (err) {
    if (loads.stale(load)) return;
    shown = "";
    box.replaceChildren(el("p", { class: "error" }, err.message));
    setStatus("");
  }
}
