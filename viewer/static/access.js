// The viewer's mode, from GET api/access: a viewer served to other machines
// is read-only unless started with --writable. The page then hides every
// control that would change something (style.css, body[data-read-only]) and
// says why; the server refuses such changes anyway.
import { el } from "./dom.js";

export async function applyAccess() {
  try {
    const res = await fetch("api/access", { headers: { Accept: "application/json" } });
    if (!res.ok) return;
    const acc = await res.json();
    if (!acc.read_only) return;
    document.body.dataset.readOnly = "";
    document.querySelector("header").after(el("div", { id: "read-only-note", class: "banner read-only", role: "note" },
      "Read-only: this viewer is served to other machines, so changes are off (start it with --writable to allow them)."));
  } catch {
    // The server is away: the live banner says so; the mode is read on the next load.
  }
}
