// The memory list's address: its search, filters and page live in the URL's
// hash (#/?q=…&ns=…&page=2), so a reload keeps them, the address can be
// shared, and Back returns to the same view.

export const PAGE_SIZE = 50;

// FIELDS maps the list's state to the hash's parameter names.
const FIELDS = {
  q: "q", namespace: "ns", type: "type", author: "by", source: "via", order: "order", minConfidence: "min", maxConfidence: "max",
  since: "since", until: "until", superseded: "superseded",
};

export function emptyListState() {
  return { q: "", namespace: "", type: "", author: "", source: "", order: "", minConfidence: "", maxConfidence: "", since: "", until: "", superseded: "", offset: 0 };
}

// pageHash is the address of a page ("" for the list, "journal", ...) with
// those of params that are set, in their order.
export function pageHash(page, params) {
  const set = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value) set.set(name, value);
  const q = set.toString();
  return q ? `#/${page}?${q}` : `#/${page}`;
}

// pageParams reads the parameters of a page's address; null when the hash is
// another page's.
export function pageParams(page, hash) {
  const m = new RegExp(`^#/${page}(?:\\?(.*))?$`).exec(hash);
  return m ? new URLSearchParams(m[1] || "") : null;
}

// listHash is the address of a list view.
export function listHash(state) {
  const params = {};
  for (const [key, name] of Object.entries(FIELDS)) params[name] = state[key];
  const page = Math.floor((state.offset || 0) / PAGE_SIZE) + 1;
  params.page = page > 1 ? String(page) : "";
  return pageHash("", params);
}

// parseListHash reads a list view's address; null when the hash is another page's.
export function parseListHash(hash) {
  const m = /^(?:#\/?)?(?:\?(.*))?$/.exec(hash);
  if (!m) return null;
  const params = new URLSearchParams(m[1] || "");
  const state = emptyListState();
  for (const [key, name] of Object.entries(FIELDS)) state[key] = params.get(name) ?? "";
  const page = Number.parseInt(params.get("page") ?? "1", 10);
  state.offset = Number.isFinite(page) && page > 1 ? (page - 1) * PAGE_SIZE : 0;
  return state;
}

// activeFilters counts the filters set besides the search words, for the
// phone's folded "Filters" button.
export function activeFilters(state) {
  return ["namespace", "type", "author", "source", "order", "minConfidence", "maxConfidence", "since", "until", "superseded"].filter((k) => state[k]).length;
}
