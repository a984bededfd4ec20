// The viewer's page: a memory list with search and filters, and one memory's
// page, switched by the URL's hash (#/ and #/m/<id>).
import { el, fmtTime, fmtNum, searchWords, excerpt, highlight, showForm, redraw } from "./dom.js";
import { listMemories, getMemory, validateMemory, forgetMemory, editMemory, watchChanges, exportURL, listProjects, listAuthors, listSources } from "./api.js";
import { PAGE_SIZE, emptyListState, listHash, parseListHash, activeFilters } from "./listurl.js";
import { confidenceChart, eventRowId } from "./chart.js";
import { renderMarkdown } from "./markdown.js";
import { ReviewPage } from "./review.js";
import { loadHealth } from "./health.js";
import { loadGraph, graphHash, parseGraphHash } from "./graph.js";
import { loadGolden, goldenHash, parseGoldenHash } from "./golden.js";
import { loadFiles, parseFilesHash } from "./files.js";
import { Bulk } from "./bulk.js";
import { StaleReview, parseReviewHash } from "./stale.js";
import { loadTrash } from "./trash.js";
import { loadJournal, freshenJournal, parseJournalHash } from "./journal.js";
import { openCreate } from "./create.js";
import { removeButton, linkForm } from "./edges.js";
import { changeLog, promoteForm, PROMOTABLE, storedThrough, viaLabel, UNKNOWN_SOURCE } from "./changes.js";
import { applyAccess } from "./access.js";

const SEARCH_DELAY_MS = 200; // wait for a pause in typing before searching

const $ = (id) => document.getElementById(id);
const state = emptyListState(); // the list's search, filters and page, as in its URL (listurl.js)
// Where the list was scrolled, by its URL: Back from a memory's page returns
// to the same spot once the list is drawn again.
const listScroll = new Map();
let inflight = null; // the request a newer one replaces
let reloading = null; // the memory page's reload a person's action asked for, while it runs
let notice = ""; // a message to show once the next list has loaded
const fresh = new Set(); // ids written since the page opened, highlighted a while
const FRESH_MS = 8000;

function setStatus(text, isError = false) {
  $("status").textContent = text;
  $("status").className = isError ? "error" : "muted";
}

// fetchLatest aborts the previous request, so a slow answer to an old query
// never overwrites the answer to a newer one.
function fetchLatest(call) {
  if (inflight) inflight.abort();
  inflight = new AbortController();
  return call(inflight.signal);
}

let bulk; // the Bulk selection, made in init

// memoryItem is one memory of the list; a search's words are marked in its
// text, which starts near the first of them when that is far in.
function memoryItem(m, query) {
  const words = searchWords(query);
  return el("li", { "data-id": m.id, class: fresh.has(m.id) ? "fresh" : null },
    bulk.checkbox(m.id),
    el("a", { href: `#/m/${encodeURIComponent(m.id)}` },
      el("div", { class: "content" }, highlight(excerpt(m.content, words), words)),
      el("div", { class: "meta" },
        el("span", { class: `badge ${m.memory_type}` }, m.memory_type),
        el("span", {}, m.namespace),
        m.author ? el("span", { class: "author" }, `by ${m.author}`) : null,
        el("span", {}, `confidence ${fmtNum(m.confidence)}`),
        el("span", {}, `importance ${fmtNum(m.importance)}`),
        el("span", {}, fmtTime(m.created_at)))));
}

// loadList shows the list; quiet (a live update) leaves the status line
// alone; scrollTo, when given, is where to scroll once it is drawn.
async function loadList({ quiet = false, scrollTo } = {}) {
  if (!quiet) setStatus("Loading…");
  try {
    const page = await fetchLatest((signal) => listMemories({ ...state, limit: PAGE_SIZE }, signal));
    const selected = document.querySelector("#memories li.selected")?.dataset.id;
    // A live reload replaces only the memories that changed: the one a person
    // has focused (its tick box) or selected text in stays. Unmarked, an item
    // is the same as its new one when its memory is.
    for (const li of document.querySelectorAll("#memories li[class]")) {
      li.classList.remove("selected");
      if (!fresh.has(li.dataset.id)) li.classList.remove("fresh");
      if (!li.classList.length) li.removeAttribute("class");
    }
    redraw($("memories"), page.memories.map((m) => memoryItem(m, page.query)));
    // The first list on screen, for the time-to-first-render benchmark.
    if (!performance.getEntriesByName("list-rendered").length) performance.mark("list-rendered");
    // A live reload keeps the keyboard selection on the same memory.
    if (selected) document.querySelector(`#memories li[data-id="${CSS.escape(selected)}"]`)?.classList.add("selected");
    const first = page.memories.length ? page.offset + 1 : 0;
    const last = page.offset + page.memories.length;
    let summary;
    if (!page.query) summary = page.total ? `${first}–${last} of ${plural(page.total, "memory", "memories")}` : "No memories in this view.";
    else if (!page.total) summary = `Nothing matches “${page.query}”.`;
    else summary = `${first}–${last} of ${plural(page.total, "match", "matches")} for “${page.query}”, best first`;
    // How the search ran, said once: words and meaning, or words alone and why.
    if (page.query) summary += page.degraded ? ` (by keywords only: ${page.degraded_reason})` : page.search_mode === "keyword" ? " (by keywords)" : "";
    $("summary").textContent = summary;
    // The export holds every memory of this view, all pages.
    $("export-json").href = exportURL(state, "json");
    $("export-md").href = exportURL(state, "markdown");
    $("prev").disabled = page.offset === 0;
    $("next").disabled = !page.has_more;
    // One page: no pager. An empty view: nothing to export or delete; an
    // empty store: how memories get here.
    $("pager").hidden = page.offset === 0 && !page.has_more;
    $("view-actions").hidden = page.total === 0;
    const empty = page.total === 0 && !page.query && !activeFilters(state);
    $("welcome").hidden = !empty;
    $("summary").hidden = empty;
    if (!quiet || notice) setStatus(notice);
    notice = "";
    if (scrollTo !== undefined) window.scrollTo(0, scrollTo);
  } catch (err) {
    if (err.name === "AbortError") return;
    // A filter the server refuses: the list says so rather than keep showing
    // memories the filter would not.
    $("memories").replaceChildren();
    $("summary").textContent = "";
    setStatus(err.message, true);
  }
}

function plural(n, word, words = `${word}s`) {
  return `${n} ${n === 1 ? word : words}`;
}

function field(name, value) {
  return [el("dt", {}, name), el("dd", {}, value)];
}

function edgeRow(edge, selfId, neighbors, reload) {
  const outgoing = edge.source_id === selfId;
  const otherId = outgoing ? edge.target_id : edge.source_id;
  const other = neighbors.get(otherId);
  // Read as a sentence: "this supersedes <other>" or "<other> supersedes this".
  return el("tr", { class: `edge ${edge.relation}` },
    el("td", { class: "direction", title: outgoing ? "from this memory" : "to this memory" },
      outgoing ? `this ${edge.relation.replace("_", " ")} →` : `← ${edge.relation.replace("_", " ")} this`),
    el("td", {},
      el("a", { href: `#/m/${encodeURIComponent(otherId)}` }, other ? other.content_preview : otherId),
      other ? el("div", { class: "meta" }, el("span", { class: `badge ${other.memory_type}` }, other.memory_type), el("span", {}, other.namespace)) : null),
    el("td", { class: "num" }, fmtNum(edge.weight)),
    el("td", { class: "edge-actions" }, removeButton(edge, reload, setStatus)));
}

function eventRow(ev) {
  return el("tr", { id: eventRowId(ev.id), tabindex: -1 },
    el("td", {}, fmtTime(ev.created_at)),
    el("td", { class: ev.event_type }, ev.event_type),
    el("td", {}, `${fmtNum(ev.confidence_before)} → ${fmtNum(ev.confidence_after)}`),
    el("td", { class: "note" }, ev.context || ev.error_msg || ""));
}

// chainView shows the versions of a memory, oldest first, the one in force last.
function chainView(chain, selfId) {
  if (chain.length < 2) return el("p", { class: "muted" }, "No other versions: nothing supersedes this memory and it supersedes nothing.");
  const last = chain.length - 1;
  return el("ol", { id: "chain" }, chain.map((n, i) =>
    el("li", { class: n.id === selfId ? "self" : "" },
      el("span", { class: "badge" }, i === last ? "current" : `v${i + 1}`),
      n.id === selfId
        ? el("span", {}, n.content_preview, el("span", { class: "muted" }, " (this memory)"))
        : el("a", { href: `#/m/${encodeURIComponent(n.id)}` }, n.content_preview))));
}

// metadataView lists metadata keys and values as text.
function metadataView(meta) {
  const keys = Object.keys(meta ?? {});
  if (!keys.length) return "none";
  return el("dl", { class: "metadata" }, keys.sort().map((k) => {
    const v = meta[k];
    return [el("dt", {}, k), el("dd", {}, typeof v === "string" ? v : JSON.stringify(v))];
  }));
}

let shownMemory = ""; // the memory page's data as last drawn
let shownId = ""; // and the id of the memory it shows
// The memory page's boxes that hold a form a person may be filling in.
const FORM_BOXES = ["#edit-box", "#delete-box", "#promote-box"];

// keepStatus: a reload after the person's own change, whose message stays.
async function loadMemory(id, { quiet = false, keepStatus = false } = {}) {
  // A live refresh of a memory whose own reload is on its way (after Add, an
  // edit, Confirm) leaves it to that reload: it would abort it (fetchLatest),
  // then keep the page as it was while a link search is typed in it.
  if (quiet && reloading?.id === id) return;
  const load = quiet ? null : { id };
  if (load) reloading = load;
  if (!quiet && !keepStatus) setStatus("Loading…");
  const box = $("memory");
  // Another memory's page, still drawn while this one loads, takes no clicks:
  // a form opened on it would act on that memory, and vanish when this one
  // arrives.
  if (id !== shownId) box.inert = true;
  try {
    const d = await fetchLatest((signal) => getMemory(id, signal));
    // A redraw of this memory (a live refresh, the reload after Confirm or an
    // Undo) must not wipe what the person is typing: an open edit form,
    // delete confirmation or promote form moves over to the new page as it is.
    const kept = id === shownId ? FORM_BOXES.map((s) => [...(box.querySelector(s)?.childNodes ?? [])]) : [];
    const typing = document.activeElement;
    const [from, to] = [typing?.selectionStart, typing?.selectionEnd];
    // A live refresh leaves a search for a memory to link alone.
    if (quiet && box.querySelector("#edge-search")?.value) return;
    // A live refresh that finds the page as drawn (the person's own change,
    // already shown) leaves it alone: a click on its way still lands.
    const drawn = JSON.stringify(d);
    if (quiet && shownMemory === drawn) return;
    shownMemory = drawn;
    shownId = id;
    box.inert = false;
    const m = d.memory;
    const neighbors = new Map(d.neighbors.map((n) => [n.id, n]));
    const v = d.validation;
    const chain = d.supersession;
    const current = chain[chain.length - 1];
    box.replaceChildren(...[
      current.id !== m.id
        ? el("p", { class: "notice", id: "superseded-notice" }, "Superseded: the version in force is ",
          el("a", { href: `#/m/${encodeURIComponent(current.id)}` }, current.content_preview), ".")
        : null,
      el("div", { class: "meta top" },
        el("span", { class: `badge ${m.memory_type}` }, m.memory_type),
        el("span", {}, m.namespace),
        el("span", {}, `confidence ${fmtNum(m.confidence)}`)),
      // Agent-written text: Markdown rendered and sanitised (markdown.js), HTML
      // in it shown as text; "Plain text" shows it exactly as stored.
      el("div", { class: "content markdown", id: "memory-content" }, renderMarkdown(m.content)),
      el("div", { class: "content", id: "memory-raw", hidden: true }, m.content),
      el("button", { type: "button", id: "show-all", hidden: true, "aria-expanded": "false" }, "Show all"),
      el("div", { class: "actions", id: "memory-actions" },
        el("button", { type: "button", id: "confirm", title: "It held: confidence +0.1" }, "Confirm"),
        el("button", { type: "button", id: "refute", title: "It was wrong: confidence -0.15" }, "Refute"),
        el("button", { type: "button", id: "edit", title: "Change content, type, importance or namespace (e)" }, "Edit"),
        PROMOTABLE.includes(m.memory_type)
          ? el("button", { type: "button", id: "promote", title: "Make it a golden rule (asks why)" }, "Promote…")
          : null,
        el("button", { type: "button", id: "delete", class: "danger", title: "Delete this memory (asks first)" }, "Delete…"),
        el("a", { href: graphHash(m.id), id: "graph-link", class: "button", title: "The memories around this one (g)" }, "Graph"),
        el("button", { type: "button", id: "raw-toggle", "aria-pressed": "false", title: "Show the text exactly as stored" }, "Plain text")),
      el("div", { id: "delete-box" }),
      el("div", { id: "edit-box" }),
      el("div", { id: "promote-box" }),
      el("h2", {}, "Details"),
      el("dl", { class: "fields" },
        field("id", m.id),
        field("type", m.memory_type),
        field("namespace", m.namespace),
        m.author ? field("stored by", m.author) : null,
        field("stored through", storedThrough(m.source)),
        field("confidence", fmtNum(m.confidence)),
        field("importance", fmtNum(m.importance)),
        field("created", fmtTime(m.created_at)),
        field("updated", fmtTime(m.updated_at)),
        // Never read: its access time is only its creation time.
        field("last accessed", m.access_count ? `${fmtTime(m.accessed_at)} (${plural(m.access_count, "time")})` : "never"),
        field("metadata", metadataView(m.metadata))),
      el("h2", {}, "Access and changes"),
      changeLog(m, d.changes, async (fields) => {
        try {
          const res = await editMemory(m.id, fields);
          await loadMemory(m.id, { keepStatus: true });
          setStatus(`Undone: ${res.changed.join(", ")} set back.`);
        } catch (err) {
          setStatus(err.message, true);
        }
      }),
      el("h2", {}, "Versions"),
      chainView(chain, m.id),
      el("h2", {}, `Edges (${d.edges.length})`),
      d.edges.length
        ? el("table", { id: "edges" }, el("tbody", {}, d.edges.map((e) => edgeRow(e, m.id, neighbors, () => loadMemory(m.id, { keepStatus: true })))))
        : el("p", { class: "muted" }, "No edges."),
      linkForm(m, () => loadMemory(m.id, { keepStatus: true }), setStatus),
      el("h2", {}, `Validation (${plural(v.summary.total_events, "event")}, success rate ${fmtNum(v.summary.success_rate) || "n/a"})`),
      confidenceChart(v.events),
      v.events.length
        ? el("table", { id: "events" }, el("tbody", {}, v.events.map(eventRow)))
        : el("p", { class: "muted" }, "Never validated."),
    ].filter(Boolean));
    kept.forEach((nodes, i) => box.querySelector(FORM_BOXES[i]).append(...nodes));
    // Moved nodes lose the focus: give it back where the person was typing.
    if (kept.flat().some((n) => n.contains(typing))) {
      typing.focus({ preventScroll: true });
      try { typing.setSelectionRange(from, to); } catch { /* a number input has no selection */ }
    }
    $("confirm").addEventListener("click", () => validate(m.id, true));
    $("refute").addEventListener("click", () => validate(m.id, false));
    $("delete").addEventListener("click", () => askDelete(m, d.edges.length, v.summary.total_events));
    $("edit").addEventListener("click", () => openEdit(m));
    $("promote")?.addEventListener("click", () => {
      const pbox = $("promote-box");
      if (!pbox.childElementCount) pbox.replaceChildren(promoteForm(m, () => loadMemory(m.id, { quiet: true }), setStatus));
      $("promote-reason").focus();
    });
    $("raw-toggle").addEventListener("click", (e) => {
      const raw = $("memory-raw").hidden;
      $("memory-raw").hidden = !raw;
      $("memory-content").hidden = raw;
      e.currentTarget.setAttribute("aria-pressed", String(raw));
      fold(m.content.length);
    });
    fold(m.content.length, true);
    document.title = `${short(m.content, 60)} · Recall`;
    if (!quiet && !keepStatus) setStatus("");
  } catch (err) {
    if (err.name === "AbortError") return;
    box.replaceChildren(el("p", { class: "error" }, err.message));
    box.inert = false;
    shownMemory = "";
    shownId = "";
    setStatus("");
  } finally {
    if (load && reloading === load) reloading = null;
  }
}

// fold keeps a long memory's text to a screen or so, with "Show all" under
// it, so the actions after it stay in reach; start folds it afresh.
function fold(chars, start = false) {
  const button = $("show-all");
  const texts = [$("memory-content"), $("memory-raw")];
  const shown = texts.find((t) => !t.hidden);
  if (start) {
    texts.forEach((t) => t.classList.add("folded"));
    // Short enough to show whole: no fold, no fade.
    if (shown.scrollHeight <= shown.clientHeight + 8) texts.forEach((t) => t.classList.remove("folded"));
  }
  const folded = shown.classList.contains("folded");
  button.hidden = !folded && shown.scrollHeight < 400; // nothing to fold back
  button.textContent = folded ? `Show all (${chars.toLocaleString()} characters)` : "Fold";
  button.setAttribute("aria-expanded", String(!folded));
  button.onclick = () => {
    texts.forEach((t) => t.classList.toggle("folded", !folded));
    fold(chars);
    if (!folded) shown.scrollIntoView({ block: "nearest" });
  };
}

function short(text, n) {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= n ? line : line.slice(0, n - 1) + "…";
}

const TYPES = ["preference", "decision", "pattern", "session", "file_context", "golden_rule"];

// openEdit shows the edit form on a memory's page. Only what differs from the
// memory is sent; the server records the change as made by the viewer. A
// golden rule's type is changed by demoting it, on the golden rules page.
function openEdit(m) {
  const box = $("edit-box");
  if (box.childElementCount) { $("edit-content")?.focus(); return; }
  const golden = m.memory_type === "golden_rule";
  const content = el("textarea", { id: "edit-content", rows: 8, "aria-label": "Content" });
  content.value = m.content;
  const type = el("select", { id: "edit-type", "aria-label": "Type", disabled: golden },
    TYPES.filter((t) => golden || t !== "golden_rule").map((t) => el("option", { value: t, selected: t === m.memory_type }, t)));
  const importance = el("input", { id: "edit-importance", type: "number", min: 0, max: 1, step: 0.05, value: m.importance, "aria-label": "Importance" });
  // Moving: any namespace by name, the ones that hold memories offered.
  const namespace = el("input", { id: "edit-namespace", value: m.namespace, list: "edit-namespaces", autocomplete: "off", spellcheck: "false",
    "aria-label": "Namespace", title: "global, project:<name>, or private (your own, with a person's token)" });
  const namespaces = el("datalist", { id: "edit-namespaces" },
    [...$("namespace").options].filter((o) => o.value).map((o) => el("option", { value: o.value })));
  const save = el("button", { type: "submit", id: "edit-save" }, "Save");
  const cancel = el("button", { type: "button", id: "edit-cancel" }, "Cancel");
  const form = el("form", { class: "edit-form", id: "edit-form" },
    el("label", {}, "Content", content),
    el("div", { class: "row" },
      el("label", {}, "Type ", type),
      el("label", {}, "Importance ", importance),
      el("label", {}, "Namespace ", namespace, namespaces)),
    golden ? el("p", { class: "muted" }, "A golden rule's type changes by demoting it, with a reason, on the ", el("a", { href: goldenHash(m.namespace.replace(/^project:/, "").replace(/^global$/, "")) }, "golden rules page"), ".") : null,
    el("p", { class: "muted" }, "Changed content is searched by its new words at once and embedded again. A new namespace moves the memory there, with its edges and history. The change is recorded in the memory's change log, where it can be undone."),
    el("div", { class: "actions" }, save, cancel));
  showForm(box, form, cancel, async () => {
    const fields = {};
    if (content.value.trim() !== m.content) fields.content = content.value;
    if (!golden && type.value !== m.memory_type) fields.memory_type = type.value;
    const imp = Number(importance.value);
    if (importance.value !== "" && imp !== m.importance) fields.importance = imp;
    if (namespace.value.trim() !== m.namespace) fields.namespace = namespace.value.trim();
    if (!Object.keys(fields).length) { form.remove(); setStatus("Nothing changed."); return; }
    save.disabled = true;
    try {
      const res = await editMemory(m.id, fields);
      form.remove(); // wherever a live refresh moved it meanwhile
      await loadMemory(m.id);
      const moved = res.changed.includes("namespace") ? ` (now in ${res.memory.namespace})` : "";
      setStatus(`Saved: ${res.changed.join(", ") || "nothing changed"}${moved}.`);
    } catch (err) {
      save.disabled = false;
      setStatus(err.message, true);
    }
  });
  content.focus();
}

// askDelete shows exactly what a delete removes and asks before doing it: the
// memory's full text, its edges and validation events (they go with it). A
// golden rule needs the force box ticked, as memory_forget_tool needs force.
function askDelete(m, edges, events) {
  const box = $("delete-box");
  const golden = m.memory_type === "golden_rule";
  const force = golden ? el("input", { type: "checkbox", id: "delete-force" }) : null;
  const go = el("button", { type: "button", id: "delete-confirm", class: "danger", disabled: golden }, "Delete");
  const cancel = el("button", { type: "button", id: "delete-cancel" }, "Cancel");
  const dialog = el("div", { class: "confirm-delete", role: "alertdialog", "aria-labelledby": "delete-title" },
    el("p", { id: "delete-title" }, el("strong", {}, "Delete this memory?"), " It can be restored from the Trash for 30 days."),
    el("ul", {},
      el("li", {}, `memory ${m.id} (${m.memory_type}, ${m.namespace}):`),
      el("li", { class: "content", id: "delete-content" }, m.content),
      el("li", {}, `${plural(edges, "edge")} to other memories (those memories stay)`),
      el("li", {}, `${plural(events, "validation event")}`)),
    golden ? el("label", { class: "force" }, force, " It is a golden rule: delete it anyway (force)") : null,
    el("div", { class: "actions" }, go, cancel));
  box.replaceChildren(dialog);
  if (force) force.addEventListener("change", () => { go.disabled = !force.checked; });
  cancel.addEventListener("click", () => dialog.remove()); // wherever a live refresh moved it
  go.addEventListener("click", async () => {
    go.disabled = true;
    try {
      const res = await forgetMemory(m.id, Boolean(force && force.checked));
      notice = res.message;
      location.hash = "#/";
    } catch (err) {
      go.disabled = golden && !(force && force.checked);
      setStatus(err.message, true);
    }
  });
  (force || go).focus();
}

async function validate(id, success) {
  try {
    const res = await validateMemory(id, success);
    await loadMemory(id); // clears the status: say what changed after it
    const promoted = res.promoted ? ", promoted to golden rule" : "";
    setStatus(`confidence ${fmtNum(res.old_confidence)} → ${fmtNum(res.new_confidence)}${promoted}`);
  } catch (err) {
    setStatus(err.message, true);
  }
}

let review; // the ReviewPage, made in init
let stale; // the StaleReview under it

// view names the page the URL's hash asks for.
function view() {
  const h = location.hash;
  if (/^#\/m\/.+$/.test(h)) return "memory";
  if (parseReviewHash(h)) return "review";
  if (h === "#/health") return "health";
  if (h === "#/trash") return "trash";
  if (parseGraphHash(h)) return "graph";
  if (parseGoldenHash(h)) return "golden";
  if (parseFilesHash(h)) return "files";
  if (parseJournalHash(h)) return "journal";
  return "list";
}

// TITLES name each page in the browser's tab and history.
const TITLES = { list: "Memories", memory: "Memory", review: "Review", health: "Health", graph: "Graph", golden: "Golden rules", files: "Files", journal: "Journal", trash: "Trash" };

let shown = null; // the view on screen, and the list's URL when it is the list
let listURL = "#/";

function route() {
  const v = view();
  const cameBack = v === "list" && shown !== "list";
  // Another page starts at its top; the list returns to where it was.
  if (v !== "list" && shown !== null) window.scrollTo(0, 0);
  shown = v;
  if (v !== "memory") document.title = `${TITLES[v]} · Recall`; // a memory's page names the memory
  for (const name of ["list", "memory", "review", "health", "graph", "golden", "files", "journal", "trash"]) $(`${name}-view`).hidden = name !== v;
  document.querySelectorAll("#nav a").forEach((a) => {
    if (a.dataset.view === v) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  });
  if (v === "memory") loadMemory(decodeURIComponent(location.hash.slice("#/m/".length)));
  else if (v === "review") {
    // The nav's Review keeps the queue's filters, as Memories keeps the list's.
    document.querySelector('#nav a[data-view="review"]').href = location.hash;
    stale.show(parseReviewHash(location.hash));
    stale.namespaces();
    review.load();
    stale.load({ quiet: true });
  }
  else if (v === "health") loadHealth($("health"), setStatus);
  else if (v === "graph") loadGraph($("graph-view"), parseGraphHash(location.hash), setStatus);
  else if (v === "golden") loadGolden($("golden-view"), parseGoldenHash(location.hash), setStatus);
  else if (v === "files") loadFiles($("files-view"), parseFilesHash(location.hash), setStatus);
  else if (v === "trash") loadTrash($("trash-view"), setStatus);
  else if (v === "journal") loadJournal($("journal-view"), parseJournalHash(location.hash), setStatus);
  else {
    Object.assign(state, parseListHash(location.hash) ?? emptyListState());
    showListState();
    loadList({ scrollTo: cameBack ? listScroll.get(listURL) ?? 0 : 0 });
  }
}

// showListState puts the list's state (from its URL) into the controls, and
// keeps the way back to it: the nav's Memories and the memory page's back link.
function showListState() {
  $("q").value = state.q;
  const ns = $("namespace");
  if (state.namespace && ![...ns.options].some((o) => o.value === state.namespace)) ns.append(el("option", { value: state.namespace }, state.namespace));
  ns.value = state.namespace;
  $("type").value = state.type;
  const by = $("author");
  if (state.author && ![...by.options].some((o) => o.value === state.author)) by.append(el("option", { value: state.author }, state.author));
  by.value = state.author;
  by.hidden = by.options.length < 3 && !state.author; // one author: nothing to choose
  const via = $("source");
  if (state.source && ![...via.options].some((o) => o.value === state.source)) via.append(el("option", { value: state.source }, state.source));
  via.value = state.source;
  via.hidden = via.options.length < 3 && !state.source; // one way in: nothing to choose
  $("order").value = state.order;
  $("min-confidence").value = state.minConfidence;
  $("max-confidence").value = state.maxConfidence;
  $("since").value = state.since;
  $("until").value = state.until;
  $("superseded").checked = Boolean(state.superseded);
  const n = activeFilters(state);
  $("filters-toggle").textContent = n ? `Filters (${n})` : "Filters";
  listURL = listHash(state);
  document.querySelector('#nav a[data-view="list"]').href = listURL;
  $("back-to-list").href = listURL;
}

// namespaceOptions offers the namespaces that hold memories: global and the
// projects' (with their counts).
async function namespaceOptions() {
  try {
    const projects = await listProjects();
    const ns = $("namespace");
    const keep = ns.value;
    for (const p of projects) {
      if ([...ns.options].some((o) => o.value === p.namespace)) continue;
      ns.append(el("option", { value: p.namespace }, `${p.namespace} (${p.memories})`));
    }
    ns.value = keep;
  } catch {
    // the list still works with every namespace
  }
}

// authorOptions offers who stored the memories (people on a team server),
// with their counts; with one author (a store of one person) the filter
// stays hidden.
function authorOptions() {
  const none = (a) => a === "(none)";
  return facetOptions("author", listAuthors, "author", (a) => (none(a) ? "no author" : a),
    (a) => (none(a) ? "Stored by this server's own processes (its CLI, hooks, agents over stdio), or before it had people" : null));
}

// sourceOptions offers the ways the memories came in (MCP tools, the CLI,
// the viewer, session capture, imports), with their counts; with one the
// filter stays hidden.
function sourceOptions() {
  return facetOptions("source", listSources, "source", viaLabel,
    (s) => (s === UNKNOWN_SOURCE ? "Stored before Recall recorded how a memory came in" : null));
}

// facetOptions fills the filter select id with the values of a facet of the
// memories (load lists them, each with its count under key), labelled and
// titled by value; with one value the filter stays hidden.
async function facetOptions(id, load, key, label, title) {
  try {
    const values = await load();
    const select = $(id);
    const keep = select.value;
    for (const v of values) {
      const text = `${label(v[key])} (${v.memories})`;
      const have = [...select.options].find((o) => o.value === v[key]);
      if (have) have.textContent = text;
      else select.append(el("option", { value: v[key], title: title(v[key]) }, text));
    }
    select.value = keep;
    select.hidden = values.length < 2 && !keep;
  } catch {
    // the list still works without the filter
  }
}

// moveSelection moves the list's keyboard selection (j/k) by step.
function moveSelection(step) {
  const items = [...document.querySelectorAll("#memories li")];
  if (!items.length) return;
  const cur = items.findIndex((li) => li.classList.contains("selected"));
  const next = cur < 0 ? 0 : Math.max(0, Math.min(items.length - 1, cur + step));
  items.forEach((li, i) => li.classList.toggle("selected", i === next));
  items[next].scrollIntoView({ block: "nearest" });
}

function debounce(fn, ms) {
  let timer;
  return (...args) => { clearTimeout(timer); timer = setTimeout(() => fn(...args), ms); };
}

// live applies a change from the server (this page's own writes, an agent's,
// a hook's in another process) to what is on screen.
let lastTotal = null;
function live(ev) {
  // How many changes the page has heard of, for anyone checking it is live.
  document.body.dataset.changes = String(Number(document.body.dataset.changes || 0) + 1);
  // The first change the page hears has no total to compare with: it may be
  // a deletion (no changed row, the total down), so it counts as one.
  const dropped = lastTotal === null || ev.total < lastTotal;
  // A hook's journal entry alone changes nothing the memory pages show.
  const memories = ev.changed.length > 0 || ev.edges || ev.total !== lastTotal;
  lastTotal = ev.total;
  for (const c of ev.changed) {
    fresh.add(c.id);
    setTimeout(() => { fresh.delete(c.id); document.querySelector(`#memories li[data-id="${CSS.escape(c.id)}"]`)?.classList.remove("fresh"); }, FRESH_MS);
  }
  const v = view();
  if (v === "journal") {
    if (ev.journal) freshenJournal($("journal-view"), parseJournalHash(location.hash), setStatus);
    return;
  }
  if (!memories) return;
  if (v === "review") { review.load({ quiet: true }); stale.load({ quiet: true }); return; }
  if (v === "list") { loadList({ quiet: true }); return; }
  if (v === "health") { loadHealth($("health"), setStatus, { quiet: true }); return; }
  if (v === "trash") { loadTrash($("trash-view"), setStatus, { quiet: true }); return; }
  if (v === "golden") {
    if (!document.querySelector("#golden-view form")) loadGolden($("golden-view"), parseGoldenHash(location.hash), setStatus, { quiet: true });
    return;
  }
  if (v === "graph") {
    if (dropped || ev.edges || ev.changed.length) loadGraph($("graph-view"), parseGraphHash(location.hash), setStatus, { quiet: true });
    return;
  }
  if (v !== "memory") return;
  const id = decodeURIComponent(location.hash.slice("#/m/".length));
  // loadMemory leaves an open edit form or delete confirmation alone.
  if (dropped || ev.edges || ev.changed.some((c) => c.id === id)) loadMemory(id, { quiet: true });
}

// The theme: "system" (the default), "light" or "dark", kept in this browser.
const THEMES = ["system", "light", "dark"];
function applyTheme(theme) {
  if (theme === "system") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  $("theme").textContent = `Theme: ${theme}`;
}
function savedTheme() {
  try { return THEMES.includes(localStorage.getItem("recall-theme")) ? localStorage.getItem("recall-theme") : "system"; } catch { return "system"; }
}

function toggleHelp(show = $("help").hidden) {
  $("help").hidden = !show;
  if (show) $("help-close").focus();
}

function init() {
  applyAccess();
  applyTheme(savedTheme());
  $("theme").addEventListener("click", () => {
    const next = THEMES[(THEMES.indexOf(savedTheme()) + 1) % THEMES.length];
    try { localStorage.setItem("recall-theme", next); } catch { /* private mode: this page only */ }
    applyTheme(next);
  });
  $("help-link").addEventListener("click", () => toggleHelp(true));
  $("help-close").addEventListener("click", () => toggleHelp(false));
  $("help").addEventListener("click", (e) => { if (e.target === $("help")) toggleHelp(false); });
  // A change of filter replaces the list's URL (no new history entry per
  // keystroke) and loads the first page.
  const refilter = () => {
    state.q = $("q").value.trim();
    state.namespace = $("namespace").value;
    state.type = $("type").value;
    state.author = $("author").value;
    state.source = $("source").value;
    state.order = $("order").value;
    state.minConfidence = $("min-confidence").value;
    state.maxConfidence = $("max-confidence").value;
    state.since = $("since").value;
    state.until = $("until").value;
    state.superseded = $("superseded").checked ? "1" : "";
    state.offset = 0;
    history.replaceState(null, "", listHash(state));
    showListState();
    loadList();
  };
  const later = debounce(refilter, SEARCH_DELAY_MS);
  $("q").addEventListener("input", later);
  for (const id of ["namespace", "type", "author", "source", "order", "min-confidence", "max-confidence", "since", "until", "superseded"]) $(id).addEventListener("change", refilter);
  $("filters-toggle").addEventListener("click", () => {
    const open = $("more-filters").classList.toggle("open");
    $("filters-toggle").setAttribute("aria-expanded", String(open));
  });
  // The list's scroll position, kept for Back from a memory's page.
  history.scrollRestoration = "manual";
  window.addEventListener("scroll", () => { if (shown === "list") listScroll.set(listURL, window.scrollY); }, { passive: true });
  namespaceOptions();
  authorOptions();
  sourceOptions();
  const create = () => openCreate($("create-box"), {
    namespaces: [...$("namespace").options].map((o) => o.value).filter((v) => v && v !== "global"),
    namespace: state.namespace, setStatus,
  });
  $("new-memory").addEventListener("click", create);
  $("delete-view").addEventListener("click", () => bulk.ask("delete", { ...state }));
  bulk = new Bulk({ bar: $("bulk-bar"), box: $("bulk-box"), list: $("memories"), setStatus, reload: () => loadList({ quiet: true }) });
  review = new ReviewPage({ list: $("pairs"), summary: $("review-summary"), count: $("review-count"), setStatus });
  stale = new StaleReview({ setStatus });
  // Keys: "/" jumps to the search box; j/k move through the list or the
  // review queue, Enter opens the selected memory; 1-4 resolve a contradiction.
  document.addEventListener("keydown", (e) => {
    const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement || e.target instanceof HTMLTextAreaElement;
    if (!$("help").hidden && e.key === "Escape") { toggleHelp(false); return; }
    if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
    const v = view();
    if (e.key === "?") {
      e.preventDefault();
      toggleHelp();
    } else if (!$("help").hidden) {
      return; // the help is open: other keys wait
    } else if (e.key === "/") {
      e.preventDefault();
      if (v !== "list") location.hash = listURL;
      $("q").focus();
    } else if (v === "list" && (e.key === "j" || e.key === "k")) {
      moveSelection(e.key === "j" ? 1 : -1);
    } else if (v === "list" && e.key === "x") {
      const id = document.querySelector("#memories li.selected")?.dataset.id;
      if (id) bulk.toggle(id);
    } else if (v === "list" && e.key === "Enter") {
      const a = document.querySelector("#memories li.selected a");
      if (a) { e.preventDefault(); a.click(); }
    } else if (v === "list" && e.key === "n" && !document.body.hasAttribute("data-read-only")) {
      e.preventDefault(); // the key must not land in the form it opens
      create();
    } else if (v === "memory" && e.key === "e") {
      e.preventDefault(); // the key must not land in the form it opens
      $("edit")?.click();
    } else if (v === "memory" && e.key === "g") {
      location.hash = graphHash(decodeURIComponent(location.hash.slice("#/m/".length)));
    } else if (v === "graph" && e.key === "g") {
      location.hash = `#/m/${encodeURIComponent(parseGraphHash(location.hash).id)}`;
    } else if (v === "review" && review.key(e.key)) {
      e.preventDefault();
    }
  });
  $("filters").addEventListener("submit", (e) => { e.preventDefault(); refilter(); });
  // Pages are history entries: Back returns to the page before.
  $("prev").addEventListener("click", () => { location.hash = listHash({ ...state, offset: Math.max(0, state.offset - PAGE_SIZE) }); });
  $("next").addEventListener("click", () => { location.hash = listHash({ ...state, offset: state.offset + PAGE_SIZE }); });
  window.addEventListener("hashchange", route);
  route();
  if (view() !== "review") review.load({ quiet: true }); // the count in the nav
  watchChanges({
    onChange: live,
    onReset: () => route(), // changes were missed: reload what is shown
    onState: (st) => { $("live-banner").hidden = st === "live"; document.body.dataset.live = st; },
  });
}

init();
