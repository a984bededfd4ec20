// Calls of the viewer's JSON API. Paths are relative so the page also works
// when served under a prefix such as /ui/.

async function call(path, init = {}) {
  const res = await fetch(path, { ...init, headers: { Accept: "application/json", ...init.headers } });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(body.error || `${res.status} ${res.statusText}`);
  return body;
}

const getJSON = (path, signal) => call(path, { signal });

// sendJSON sends body as JSON with method (POST, PATCH, DELETE).
const sendJSON = (method, path, body) =>
  call(path, { method, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

// listMemories returns one page of memories; with q, the ranked search hits.
// The first page's URL is preloaded by index.html: keep the two the same.
// viewParams are a view's filters as query parameters, left out when empty.
function viewParams({ q, namespace, type, author, source, order, minConfidence, maxConfidence, since, until, superseded }, params = new URLSearchParams()) {
  if (q) params.set("q", q);
  if (namespace) params.set("namespace", namespace);
  if (type) params.set("type", type);
  if (author) params.set("author", author);
  if (source) params.set("source", source);
  if (order && !q) params.set("order_by", order); // a search is ranked by relevance
  if (minConfidence) params.set("min_confidence", minConfidence);
  if (maxConfidence) params.set("max_confidence", maxConfidence);
  if (since) params.set("since", since);
  if (until) params.set("until", until);
  if (superseded) params.set("include_superseded", "true");
  return params;
}

export function listMemories({ limit, offset, ...view }, signal) {
  const params = viewParams(view);
  params.set("limit", String(limit));
  params.set("offset", String(offset));
  return getJSON(`api/memories?${params}`, signal);
}

// listAuthors lists who stored the memories, most first ("(none)": this
// machine's own processes).
export function listAuthors(signal) {
  return getJSON("api/authors", signal);
}

// listSources lists the doors the memories came in through (mcp, cli,
// viewer, capture, import), most first ("(unknown)": stored before Recall
// recorded it).
export function listSources(signal) {
  return getJSON("api/sources", signal);
}

export function getMemory(id, signal) {
  return getJSON(`api/memories/${encodeURIComponent(id)}`, signal);
}

// validateMemory confirms (success true) or refutes a memory, as
// memory_validate_tool does: its confidence moves and an event is recorded.
export function validateMemory(id, success) {
  return sendJSON("POST", `api/memories/${encodeURIComponent(id)}/validate`, { success });
}

// forgetMemory deletes one memory by id, as memory_forget_tool does: a golden
// rule needs force.
export function forgetMemory(id, force) {
  return sendJSON("DELETE", `api/memories/${encodeURIComponent(id)}`, { force });
}

// watchChanges follows GET api/events. A broken stream is reopened after a
// jittered, growing delay (0.5 s doubling to 30 s, times 0.5 to 1.5), from the
// last event seen, so the server replays what was missed or says reset.
// onState gets "live" or "reconnecting".
//
// The stream is closed when the page is hidden for good or put in the
// back/forward cache (pagehide): a cached page keeps its connections open,
// and with a browser's six connections per host over HTTP/1.1 a few full
// loads would leave the next page waiting for one. A page shown again from
// the cache (pageshow) reconnects from the last event it saw.
export function watchChanges({ onChange, onReset, onState }) {
  let lastId = "";
  let attempt = 0;
  let es = null;
  let retry = 0;
  window.addEventListener("pagehide", () => {
    clearTimeout(retry);
    es?.close();
    es = null;
  });
  window.addEventListener("pageshow", (e) => { if (e.persisted && !es) connect(); });
  const connect = () => {
    const source = new EventSource(lastId ? `api/events?last_event_id=${encodeURIComponent(lastId)}` : "api/events");
    es = source;
    source.onopen = () => { attempt = 0; onState("live"); };
    // position: where the stream stood when this page connected, so a page
    // that has seen no change yet still reconnects from somewhere and hears
    // what it missed across a restart of the server.
    source.addEventListener("position", (e) => { lastId = e.lastEventId; });
    source.addEventListener("change", (e) => { lastId = e.lastEventId; onChange(JSON.parse(e.data)); });
    source.addEventListener("reset", (e) => { lastId = e.lastEventId; onReset(); });
    source.onerror = () => {
      source.close();
      es = null;
      onState("reconnecting");
      const delay = Math.min(30000, 500 * 2 ** attempt) * (0.5 + Math.random());
      attempt = Math.min(attempt + 1, 10);
      retry = setTimeout(connect, delay);
    };
  };
  connect();
}

export function listContradictions(signal) {
  return getJSON("api/review/contradictions", signal);
}

// resolveContradiction records a verdict on a contradicts edge: a_supersedes_b,
// b_supersedes_a, both_hold or not_contradiction (force: supersede a golden
// rule), with the person's optional reason, recorded on both memories.
export function resolveContradiction(edgeId, resolution, force, reason = "") {
  return sendJSON("POST", `api/review/contradictions/${encodeURIComponent(edgeId)}`, { resolution, force, reason });
}

// listStale returns the memories not validated for `days` or, with `below`,
// trusted less than that confidence, the longest unchecked first.
export function listStale({ days, below, namespace }, signal) {
  const params = new URLSearchParams();
  if (days) params.set("days", days);
  if (below) params.set("below", below);
  if (namespace) params.set("namespace", namespace);
  return getJSON(`api/review/stale?${params}`, signal);
}

export function getHealth(signal) {
  return getJSON("api/health", signal);
}

// getDoctor returns recall doctor's findings (it asks Ollama: slower).
export function getDoctor(signal) {
  return getJSON("api/doctor", signal);
}

// getGraph returns the neighbourhood of a memory, depth 1 to 3 hops, capped.
export function getGraph(id, depth, signal) {
  return getJSON(`api/memories/${encodeURIComponent(id)}/graph?depth=${depth}`, signal);
}

// editMemory changes a memory's content, type, importance or namespace
// (fields left out stay); the change is recorded in its change log.
export function editMemory(id, fields) {
  return sendJSON("PATCH", `api/memories/${encodeURIComponent(id)}`, fields);
}

// demoteMemory turns a golden rule back into an ordinary memory; reason required.
export function demoteMemory(id, reason) {
  return sendJSON("POST", `api/memories/${encodeURIComponent(id)}/demote`, { reason });
}

// promoteMemory makes a preference, decision or pattern a golden rule; reason
// required.
export function promoteMemory(id, reason) {
  return sendJSON("POST", `api/memories/${encodeURIComponent(id)}/promote`, { reason });
}

// getGolden returns a project's golden rules and the context a session of it
// would start with ("" for no project: global only).
export function getGolden(project, signal) {
  return getJSON(project ? `api/golden?project=${encodeURIComponent(project)}` : "api/golden", signal);
}

export function listProjects(signal) {
  return getJSON("api/projects", signal);
}

// getFiles lists recent file activity, for one project root or all.
export function getFiles(root, days, signal) {
  const params = new URLSearchParams({ days: String(days) });
  if (root) params.set("project_root", root);
  return getJSON(`api/files?${params}`, signal);
}

// exportURL downloads every memory of a list view (all pages) as JSON or Markdown.
export function exportURL(view, format) {
  return `api/export?${viewParams(view, new URLSearchParams({ format }))}`;
}

// bulkMemories deletes or confirms the selected memories one by one on the
// server; dryRun only counts and previews them.
// With view (a list view's state) instead of ids, the action takes every
// memory of that view, at most 200.
export function bulkMemories(action, ids, { force = false, dryRun = false, view = null } = {}) {
  const body = view ? { action, view: Object.fromEntries(viewParams(view)), force, dry_run: dryRun } : { action, ids, force, dry_run: dryRun };
  return sendJSON("POST", "api/memories/bulk", body);
}

// getTrash lists the deleted memories that can still be restored.
export function getTrash(signal) {
  return getJSON("api/trash", signal);
}

// restoreMemory puts a deleted memory back with its id, edges and events.
export function restoreMemory(id) {
  return call(`api/trash/${encodeURIComponent(id)}/restore`, { method: "POST" });
}

// getJournal reads the session journal, newest first: a namespace's or all,
// one kind or all, before a moment (the page before's "before").
export function getJournal({ namespace, kind, before }, signal) {
  const params = new URLSearchParams();
  if (namespace) params.set("namespace", namespace);
  if (kind) params.set("kind", kind);
  if (before) params.set("before", before);
  return getJSON(`api/journal?${params}`, signal);
}

// createMemory stores a memory a person wrote, as memory_store_tool does
// (the same text again answers the memory already stored: duplicate).
export function createMemory(fields) {
  return sendJSON("POST", "api/memories", fields);
}

// addEdge links memory id to target with a relation, as memory_relate_tool
// does (force: supersede a golden rule).
export function addEdge(id, target, relation, force = false) {
  return sendJSON("POST", `api/memories/${encodeURIComponent(id)}/edges`, { target_id: target, relation, force });
}

// removeEdge removes one edge by id; both memories stay.
export function removeEdge(edgeId) {
  return call(`api/edges/${encodeURIComponent(edgeId)}`, { method: "DELETE" });
}
