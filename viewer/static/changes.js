// A memory's access and change log, a project's golden rules audit trail, and
// the promote form: changes read as sentences (when, what, from where, why,
// short fields before → after), never raw JSON.
import { el, fmtTime, fmtNum } from "./dom.js";
import { promoteMemory } from "./api.js";

// Types the automatic promotion turns into golden rules; a person may promote
// the same ones.
export const PROMOTABLE = ["preference", "decision", "pattern"];

const SHORT = 80; // longer text values are summarised by their length

const SOURCES = {
  viewer: "in the viewer",
  mcp: "through an MCP tool",
  cli: "from the CLI",
  hook: "by a hook",
  capture: "by session capture",
  import: "by an import",
  curation: "automatically",
};

// DOORS name the ways a memory comes in (its source), as the list's filter
// and the memory's page show them.
const DOORS = {
  mcp: "an agent's MCP tool",
  cli: "the CLI",
  viewer: "the viewer",
  capture: "session capture (hooks)",
  import: "an import",
  curation: "Recall's curation",
};

// UNKNOWN_SOURCE is the API's name for memories stored before Recall
// recorded their way in.
export const UNKNOWN_SOURCE = "(unknown)";

// VIA name the ways in shortly, for the list's filter.
const VIA = { mcp: "via MCP tools", cli: "via the CLI", viewer: "via the viewer", capture: "via session capture", import: "via imports", curation: "via curation" };

// viaLabel is the list filter's name of a way in.
export function viaLabel(source) {
  if (!source || source === UNKNOWN_SOURCE) return "source not recorded";
  return VIA[source] ?? `via ${source}`;
}

// storedThrough says in words how a memory came in (its source).
export function storedThrough(source) {
  if (!source || source === UNKNOWN_SOURCE) return "not recorded (stored before Recall kept it)";
  return DOORS[source] ?? source;
}

// fromWhere says where a change came from and, on a team server, who made it.
function fromWhere(source, author) {
  const where = SOURCES[source] ?? `by ${source}`;
  return author ? `${where}, by ${author}` : where;
}

function memoryLink(id, preview) {
  return el("a", { href: `#/m/${encodeURIComponent(id)}` }, preview || id);
}

function fieldFrom(c, name) {
  return (c.fields ?? []).find((f) => f.field === name);
}

// moveOnly: an edit that only moved the memory to another namespace.
function moveOnly(c) {
  return c.action === "edit" && c.fields?.length === 1 && c.fields[0].field === "namespace";
}

// what says in words what a change did.
function what(c) {
  const type = fieldFrom(c, "memory_type");
  const other = c.related_id ? memoryLink(c.related_id, c.related_preview) : "another memory";
  switch (c.action) {
    case "edit": if (moveOnly(c)) return `Moved from ${c.fields[0].before} to ${c.fields[0].after}`;
      return `Edited ${(c.fields ?? []).map((f) => f.field.replace("memory_", "")).join(", ") || "the memory"}`;
    case "promote": return `Promoted to golden rule${type?.before ? ` (was ${type.before})` : ""}`;
    case "demote": return `Demoted from golden rule${type?.after ? ` to ${type.after}` : ""}`;
    case "delete": return "Deleted (kept in the trash)";
    case "archive": return "Archived (kept in the trash until restored)";
    case "restore": return "Restored from the trash";
    case "supersede": return ["Contradiction resolved: this supersedes ", other];
    case "superseded_by": return ["Contradiction resolved: superseded by ", other];
    case "both_hold": return ["Contradiction with ", other, " resolved: both hold"];
    case "not_contradiction": return ["Judged not a contradiction with ", other];
    default: return c.action;
  }
}

function value(v) {
  if (v === undefined || v === null) return "?";
  if (typeof v === "number") return fmtNum(v);
  return String(v);
}

// fieldChange is one field before → after; long text says only its length.
function fieldChange(f) {
  const long = [f.before, f.after].some((v) => typeof v === "string" && v.length > SHORT);
  if (long) {
    const len = (v) => (typeof v === "string" ? `${v.length} characters` : "?");
    return el("li", {}, `${f.field}: rewritten (${len(f.before)} → ${len(f.after)})`);
  }
  return el("li", {}, `${f.field}: `, el("span", { class: "before" }, value(f.before)), " → ", el("span", { class: "after" }, value(f.after)));
}

// UNDOABLE are the fields an edit's Undo sets back.
const UNDOABLE = ["content", "memory_type", "importance", "namespace"];

// undoFields are the values that undo an edit, or null when it cannot be
// undone as it is: a later change moved a field on since, or it changed
// something else (metadata), or it changed the type of what is a golden
// rule now (a golden rule's type changes by demoting it).
function undoFields(c, m) {
  if (c.action !== "edit") return null;
  const fields = c.fields ?? [];
  if (m.memory_type === "golden_rule" && fields.some((f) => f.field === "memory_type")) return null;
  if (!fields.length || fields.some((f) => !UNDOABLE.includes(f.field) || f.before === undefined || f.before === null)) return null;
  if (fields.some((f) => m[f.field] !== f.after)) return null;
  return Object.fromEntries(fields.map((f) => [f.field, f.before]));
}

function changeItem(c, preview, undo) {
  // A promotion or demotion repeats its type change in the headline, a move
  // its namespaces.
  const fields = moveOnly(c) ? [] : (c.fields ?? []).filter((f) => c.action === "edit" || f.field !== "memory_type");
  return el("li", { class: `change ${c.action}`, "data-action": c.action },
    el("div", {},
      el("time", { datetime: c.at }, fmtTime(c.at)), " ",
      el("strong", {}, what(c)), " ", el("span", { class: "muted" }, fromWhere(c.source, c.author)),
      preview !== undefined ? [": ", memoryLink(c.memory_id, preview || "(deleted since)")] : null),
    c.reason ? el("div", { class: "reason" }, "Why: ", el("q", {}, c.reason)) : null,
    fields.length ? el("ul", { class: "fields" }, fields.map(fieldChange)) : null,
    undo ? el("p", { class: "actions" }, undo) : null);
}

// changeLog is a memory's access and change log, newest change first. An
// edit still in effect has an Undo, which edits the fields back (recorded as
// an edit in turn); onUndo(fields) makes that edit.
export function changeLog(m, changes, onUndo) {
  const access = m.access_count
    ? `Read ${m.access_count === 1 ? "once" : `${m.access_count} times`} by agents, last on ${fmtTime(m.accessed_at)}.`
    : "Never read by an agent yet.";
  return el("div", { id: "change-log" },
    el("p", { id: "access-summary" }, access),
    changes.length
      ? el("ol", { class: "changes", id: "changes" }, changes.map((c) => {
        const back = onUndo ? undoFields(c, m) : null;
        let button = null;
        if (back) {
          button = moveOnly(c)
            ? el("button", { type: "button", class: "undo", "data-change": c.id, title: `Move it back to ${fieldFrom(c, "namespace").before}` }, "Undo this move")
            : el("button", { type: "button", class: "undo", "data-change": c.id, title: "Set these fields back to what they were before this edit" }, "Undo this edit");
          button.addEventListener("click", () => { button.disabled = true; onUndo(back).finally(() => { button.disabled = false; }); });
        }
        return changeItem(c, undefined, button);
      }))
      : el("p", { class: "muted" }, "No changes since it was stored."));
}

// auditTrail lists the promotions and demotions of a project, newest first,
// each with the memory it concerns.
export function auditTrail(entries) {
  return entries.length
    ? el("ol", { class: "changes", id: "golden-audit" }, entries.map((e) => changeItem(e, e.preview)))
    : el("p", { class: "muted", id: "golden-audit-none" }, "No promotion or demotion yet.");
}

// promoteForm asks for the reason a memory becomes a golden rule.
export function promoteForm(m, onDone, setStatus) {
  const reason = el("textarea", { id: "promote-reason", rows: 2, required: true, placeholder: "Why should every session follow this? (required, recorded)", "aria-label": "Reason" });
  const go = el("button", { type: "submit", id: "promote-confirm", disabled: true }, "Promote");
  const cancel = el("button", { type: "button" }, "Cancel");
  const form = el("form", { class: "promote-form" },
    el("p", { class: "muted" }, `This ${m.memory_type} becomes a golden rule: injected into every session of ${m.namespace === "global" ? "every project" : m.namespace}, whatever the token budget, and protected from deletion without force.`),
    reason, el("div", { class: "actions" }, go, cancel));
  reason.addEventListener("input", () => { go.disabled = reason.value.trim() === ""; });
  cancel.addEventListener("click", () => form.remove());
  form.addEventListener("keydown", (e) => { if (e.key === "Escape") form.remove(); });
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    go.disabled = true;
    try {
      await promoteMemory(m.id, reason.value);
      form.remove();
      await onDone();
      setStatus("Promoted to golden rule.");
    } catch (err) {
      go.disabled = false;
      setStatus(err.message, true);
    }
  });
  return form;
}
