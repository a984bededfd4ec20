// Calls of the viewer's JSON API. Paths are relative so the page also works
// when served under a prefix such as /ui/.

async function getJSON(path, signal) {
  const res = await fetch(path, { signal, headers: { Accept: "application/json" } });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(body.error || `${res.status} ${res.statusText}`);
  return body;
}

// listMemories returns one page of memories; with q, the ranked search hits.
export function listMemories({ q, namespace, type, limit, offset }, signal) {
  const params = new URLSearchParams();
  if (q) params.set("q", q);
  if (namespace) params.set("namespace", namespace);
  if (type) params.set("type", type);
  params.set("limit", String(limit));
  params.set("offset", String(offset));
  return getJSON(`api/memories?${params}`, signal);
}

export function getMemory(id, signal) {
  return getJSON(`api/memories/${encodeURIComponent(id)}`, signal);
}
