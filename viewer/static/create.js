// "New memory": a memory a person writes, stored as memory_store_tool stores
// one (cleaned of secrets, deduplicated, embedded, related to its
// neighbours). Golden rules are made by promoting, with a reason.
import { el, showForm } from "./dom.js";
import { createMemory } from "./api.js";

const TYPES = ["decision", "preference", "pattern", "session", "file_context"];

// openCreate shows the form in box; namespaces are offered to choose from
// (any other name can be typed: a new project's, say).
export function openCreate(box, { namespaces, namespace, setStatus }) {
  if (box.childElementCount) { box.querySelector("#create-content")?.focus(); return; }
  const content = el("textarea", { id: "create-content", rows: 5, required: true, "aria-label": "Content", placeholder: "What should agents know? Markdown is fine." });
  const type = el("select", { id: "create-type", "aria-label": "Type" }, TYPES.map((t) => el("option", { value: t }, t)));
  const ns = el("input", { id: "create-namespace", list: "create-namespaces", value: namespace || "global", "aria-label": "Namespace", autocomplete: "off" });
  const options = el("datalist", { id: "create-namespaces" }, ["global", ...namespaces].map((n) => el("option", { value: n })));
  const importance = el("input", { id: "create-importance", type: "number", min: 0, max: 1, step: 0.05, value: 0.5, "aria-label": "Importance" });
  const save = el("button", { type: "submit", id: "create-save" }, "Store");
  const cancel = el("button", { type: "button", id: "create-cancel" }, "Cancel");
  const form = el("form", { class: "edit-form", id: "create-form" },
    el("label", {}, "Content", content),
    el("div", { class: "row" }, el("label", {}, "Type ", type), el("label", {}, "Namespace ", ns, options), el("label", {}, "Importance ", importance)),
    el("p", { class: "muted" }, "Stored as an agent's memory would be: secrets are redacted, the same text again is the memory already stored. It is recorded as written in the viewer."),
    el("div", { class: "actions" }, save, cancel));
  showForm(box, form, cancel, async () => {
    save.disabled = true;
    try {
      const res = await createMemory({ content: content.value, memory_type: type.value, namespace: ns.value.trim(), importance: Number(importance.value) });
      form.remove();
      location.hash = `#/m/${encodeURIComponent(res.id)}`;
      setStatus(res.duplicate ? "Already stored: this is the memory with that text." : `Stored in ${res.namespace}.`);
    } catch (err) {
      save.disabled = false;
      setStatus(err.message, true);
    }
  });
  content.focus();
}
