// The files page: what agents read and changed lately, per project root, as
// memory_recent_files_tool reports it.
import { el, fmtTime } from "./dom.js";
import { getFiles, listProjects } from "./api.js";
import { pageHash, pageParams } from "./listurl.js";

// filesHash is the URL of the page for a project root ("" for every project).
export function filesHash(root, days) {
  return pageHash("files", { root, days: days && days !== 14 ? String(days) : "" });
}

export function parseFilesHash(hash) {
  const params = pageParams("files", hash);
  return params && { root: params.get("root") || "", days: Number(params.get("days")) || 14 };
}

function actions(counts) {
  return Object.keys(counts ?? {}).sort().map((a) => `${a} ${counts[a]}`).join(", ");
}

export async function loadFiles(box, { root, days }, setStatus, { quiet = false } = {}) {
  if (!quiet) setStatus("Loading…");
  try {
    const [files, projects] = await Promise.all([getFiles(root, days), listProjects()]);
    const roots = [...new Set(projects.flatMap((p) => p.roots.map((r) => ({ root: r, ns: p.namespace }))).map((x) => JSON.stringify(x)))].map((s) => JSON.parse(s));
    if (root && !roots.some((r) => r.root === root)) roots.push({ root, ns: "" });
    const picker = el("select", { id: "files-root", "aria-label": "Project" },
      el("option", { value: "" }, "every project"),
      roots.map((r) => el("option", { value: r.root, selected: r.root === root }, r.ns ? `${r.ns.replace(/^project:/, "")} (${r.root})` : r.root)));
    const span = el("select", { id: "files-days", "aria-label": "Days" },
      [1, 7, 14, 30, 90, 365].map((d) => el("option", { value: d, selected: d === days }, `last ${d} day${d === 1 ? "" : "s"}`)));
    const go = () => { location.hash = filesHash(picker.value, Number(span.value)); };
    picker.addEventListener("change", go);
    span.addEventListener("change", go);
    box.replaceChildren(
      el("h1", {}, "Files"),
      el("p", { class: "pickers" }, picker, " ", span),
      el("p", { class: "muted", id: "files-summary" }, `${files.length} file${files.length === 1 ? "" : "s"} touched, most recent first.`),
      files.length
        ? el("table", { id: "files" },
          el("thead", {}, el("tr", {}, ["file", "type", "touches", "last", "when", "actions"].map((h) => el("th", {}, h)))),
          el("tbody", {}, files.map((f) => el("tr", {},
            el("td", { class: "path" }, f.file_path),
            el("td", {}, f.file_type || ""),
            el("td", { class: "num" }, String(f.access_count)),
            el("td", {}, f.last_action),
            el("td", {}, fmtTime(f.last_accessed)),
            el("td", { class: "muted" }, actions(f.actions))))))
        : el("p", { class: "muted" }, "No file activity in this span."));
    if (!quiet) setStatus("");
  } catch (err) {
    box.replaceChildren(el("p", { class: "error" }, err.message));
    setStatus("");
  }
}
