// The Trash page: deleted memories that can still be restored, each with what
// comes back with it (its edges and validation events) and when it is purged,
// and archived ones, kept until restored.
import { el, fmtTime, Loads, redraw } from "./dom.js";
import { getTrash, restoreMemory } from "./api.js";

// untilDate says when a purge will happen: "in 29 days (12/25/2026)".
function untilDate(iso) {
  const days = Math.ceil((new Date(iso) - Date.now()) / 86400000);
  const when = new Date(iso).toLocaleDateString();
  if (days <= 0) return `at the next purge (due ${when})`;
  return `in ${days} day${days === 1 ? "" : "s"} (${when})`;
}

const loads = new Loads();

// loadTrash draws the trash in root. A live refresh replaces only the items
// that changed: the one a person has focused or selected text in stays.
export async function loadTrash(root, setStatus, { quiet = false } = {}) {
  if (!quiet) setStatus("Loading…");
  const load = loads.start();
  try {
    const res = await getTrash();
    if (loads.stale(load)) {
      if (!quiet) setStatus("");
      return;
    }
    const items = res.memories.map((it) => {
      const m = it.memory;
      const restore = el("button", { type: "button", class: "restore" }, "Restore");
      restore.addEventListener("click", async () => {
        restore.disabled = true;
        try {
          const res = await restoreMemory(m.id);
          setStatus(res.restored_id && res.restored_id !== m.id
            ? `the same text was stored again since: ${m.id}'s history joined ${res.restored_id}`
            : `restored ${m.id}`);
          await loadTrash(root, setStatus, { quiet: true });
        } catch (err) {
          restore.disabled = false;
          setStatus(err.message, true);
        }
      });
      return el("li", { "data-id": m.id },
        el("div", { class: "content" }, m.content),
        el("div", { class: "meta" },
          el("span", { class: `badge ${m.memory_type}` }, m.memory_type),
          el("span", {}, m.namespace),
          el("span", {}, `${it.edges.length} edge${it.edges.length === 1 ? "" : "s"}, ${it.validation_events.length} validation event${it.validation_events.length === 1 ? "" : "s"}`),
          it.archived
            ? el("span", { class: "archived" }, `archived ${fmtTime(it.deleted_at)}, kept until restored`)
            : el("span", {}, `deleted ${fmtTime(it.deleted_at)}, gone for good ${untilDate(it.purge_at)}`)),
        el("div", { class: "actions" }, restore));
    });
    const list = items.length ? root.querySelector("ol#trash") ?? el("ol", { id: "trash" }) : el("p", { id: "trash-empty" }, "The trash is empty.");
    if (items.length) redraw(list, items);
    redraw(root, [
      el("h1", {}, "Trash"),
      el("p", { class: "muted" }, `Deleted memories are kept ${res.keep_days} days, archived ones until you restore them. Restore brings one back with its id, its edges to memories that still exist and its validation events.`),
      list]);
    if (!quiet) setStatus("");
  } catch (err) {
    if (!loads.stale(load)) setStatus(err.message, true);
  }
}
