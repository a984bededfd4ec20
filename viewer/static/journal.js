// The journal page: what the hooks captured of sessions (prompts, tool
// calls and their outcome, session summaries), newest first, by project and
// kind. An entry's id (j42) is what recall_details takes.
import { el, fmtTime } from "./dom.js";
import { getJournal, listProjects } from "./api.js";
import { pageHash, pageParams } from "./listurl.js";

const KINDS = ["prompt", "observation", "summary"];
const FRESH_MS = 8000; // how long a newly captured entry stays marked

// journalHash is the address of the page with its filters.
export function journalHash({ namespace = "", kind = "" } = {}) {
  return pageHash("journal", { ns: namespace, kind });
}

export function parseJournalHash(hash) {
  const params = pageParams("journal", hash);
  return params && { namespace: params.get("ns") || "", kind: params.get("kind") || "" };
}

function entryItem(e) {
  return el("li", { class: `entry ${e.kind}`, "data-id": e.id },
    el("div", { class: "meta" },
      el("span", { class: `badge ${e.kind}` }, e.kind),
      e.tool_name ? el("span", { class: "tool" }, e.tool_name) : null,
      el("span", {}, e.namespace),
      el("time", { datetime: e.created_at }, fmtTime(e.created_at)),
      el("span", { class: "muted", title: "recall_details takes this id" }, e.id)),
    el("div", { class: "title" }, e.title),
    e.body ? el("details", {}, el("summary", {}, "what was captured"), el("div", { class: "content" }, e.body),
      e.trimmed_bytes ? el("p", { class: "muted" }, `${e.trimmed_bytes.toLocaleString()} bytes trimmed; recall_details ${e.id} reads them from the transcript`) : null) : null,
    e.files?.length ? el("ul", { class: "files" }, e.files.map((f) => el("li", {}, f))) : null);
}

// freshenJournal follows a change of the journal (a live update): the
// entries captured since the page was drawn join its list in their place by
// time, marked a while, and what the person was reading (older pages, open
// details) stays as it is. When entries went (forgotten), or the page had
// none, it is drawn again.
export async function freshenJournal(box, filters, setStatus) {
  const list = box.querySelector("#journal");
  if (!list) return loadJournal(box, filters, setStatus, { quiet: true });
  try {
    const page = await getJournal(filters);
    const shown = [...list.children];
    const ids = new Set(shown.map((li) => li.dataset.id));
    const onPage = new Set(page.entries.map((e) => e.id));
    const oldest = page.entries.at(-1)?.created_at ?? "";
    // A shown entry as new as the newest page's oldest, missing from it: forgotten.
    if (shown.some((li) => li.querySelector("time").dateTime >= oldest && !onPage.has(li.dataset.id))) {
      return loadJournal(box, filters, setStatus, { quiet: true });
    }
    for (const e of page.entries.filter((x) => !ids.has(x.id)).reverse()) {
      if (e.created_at < oldest) continue;
      const li = entryItem(e);
      li.classList.add("fresh");
      setTimeout(() => li.classList.remove("fresh"), FRESH_MS);
      // Newest first: before the first entry older than it (a hook's write
      // applied late keeps the time it was captured).
      const next = [...list.children].find((x) => x.querySelector("time").dateTime < e.created_at);
      list.insertBefore(li, next ?? null);
    }
  } catch (err) {
    setStatus(err.message, true);
  }
}

export async function loadJournal(box, { namespace, kind }, setStatus, { quiet = false } = {}) {
  if (!quiet) setStatus("Loading…");
  try {
    const [page, projects] = await Promise.all([getJournal({ namespace, kind }), listProjects().catch(() => [])]);
    const ns = el("select", { id: "journal-namespace", "aria-label": "Project" },
      el("option", { value: "" }, "every project"),
      el("option", { value: "global", selected: namespace === "global" }, "global"),
      projects.map((p) => el("option", { value: p.namespace, selected: p.namespace === namespace }, p.namespace)),
      namespace && namespace !== "global" && !projects.some((p) => p.namespace === namespace) ? el("option", { value: namespace, selected: true }, namespace) : null);
    const kinds = el("select", { id: "journal-kind", "aria-label": "Kind" },
      el("option", { value: "" }, "everything"),
      KINDS.map((k) => el("option", { value: k, selected: k === kind }, `${k}s`)));
    const go = () => { location.hash = journalHash({ namespace: ns.value, kind: kinds.value }); };
    ns.addEventListener("change", go);
    kinds.addEventListener("change", go);
    const list = el("ol", { id: "journal" }, page.entries.map(entryItem));
    const older = el("button", { type: "button", id: "journal-older", hidden: !page.has_more }, "Older");
    let before = page.before;
    older.addEventListener("click", async () => {
      older.disabled = true;
      try {
        const next = await getJournal({ namespace, kind, before });
        list.append(...next.entries.map(entryItem));
        before = next.before;
        older.hidden = !next.has_more;
      } catch (err) {
        setStatus(err.message, true);
      }
      older.disabled = false;
    });
    box.replaceChildren(
      el("h1", {}, "Journal"),
      el("p", { class: "muted" }, "What the hooks captured of sessions, newest first: prompts, tool calls and how they ended, session summaries. ",
        "Agents read it in three steps (recall_search, recall_timeline, recall_details); curated memories are on the Memories page."),
      el("p", { class: "pickers" }, ns, " ", kinds),
      page.entries.length ? list : el("p", { id: "journal-empty", class: "muted" }, "Nothing captured here yet: the hooks write the journal when capture is on (RECALL_CAPTURE)."),
      el("p", {}, older));
    if (!quiet) setStatus("");
  } catch (err) {
    box.replaceChildren(el("p", { class: "error" }, err.message));
    setStatus("");
  }
}
