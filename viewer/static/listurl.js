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

// listHash is the address of a list view.
export function listHash(state) {
  const params = new URLSearchParams();
  for (const [key, name] of Object.entries(FIELDS)) if (state[key]) params.set(name, state[key]);
  const page = Math.floor((state.offset || 0) / PAGE_SIZE) + 1;
  if (page > 1) params.set("page", String(page));
  const q = params.toString();
  return q ? `#/?${q}` : "#/";
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
