// Bulk actions on the list: memories ticked (checkbox or "x") are kept across
// pages and searches; "Confirm selected" and "Delete selected" first ask the
// server what they would touch, show the exact count and each memory's
// preview, and act only when that is confirmed. A golden rule in a delete
// needs the force box ticked.
import { el } from "./dom.js";
import { bulkMemories } from "./api.js";

export class Bulk {
  constructor({ bar, box, setStatus, reload }) {
    this.ids = new Set();
    this.bar = bar;
    this.box = box;
    this.setStatus = setStatus;
    this.reload = reload;
    this.render();
  }

  // checkbox is the tick box of one list item.
  checkbox(id) {
    const box = el("input", { type: "checkbox", class: "pick", "aria-label": "Select this memory", checked: this.ids.has(id) });
    box.addEventListener("change", () => this.set(id, box.checked));
    return box;
  }

  set(id, on) {
    if (on) this.ids.add(id); else this.ids.delete(id);
    const box = document.querySelector(`#memories li[data-id="${CSS.escape(id)}"] input.pick`);
    if (box) box.checked = on;
    this.box.replaceChildren(); // a confirmation shown is for the old selection
    this.render();
  }

  toggle(id) { this.set(id, !this.ids.has(id)); }

  render() {
    const n = this.ids.size;
    this.bar.hidden = n === 0;
    if (!n) { this.bar.replaceChildren(); return; }
    const confirm = el("button", { type: "button", id: "bulk-confirm" }, "Confirm selected");
    const del = el("button", { type: "button", id: "bulk-delete", class: "danger" }, "Delete selected");
    const clear = el("button", { type: "button", id: "bulk-clear" }, "Clear selection");
    confirm.addEventListener("click", () => this.ask("confirm"));
    del.addEventListener("click", () => this.ask("delete"));
    clear.addEventListener("click", () => { this.ids.clear(); this.box.replaceChildren(); document.querySelectorAll("#memories input.pick").forEach((b) => { b.checked = false; }); this.render(); });
    this.bar.replaceChildren(el("span", { id: "bulk-count" }, `${n} selected`), confirm, del, clear);
  }

  async ask(action) {
    const ids = [...this.ids];
    let dry;
    try {
      dry = await bulkMemories(action, ids, { dryRun: true });
    } catch (err) {
      this.setStatus(err.message, true);
      return;
    }
    const n = dry.count;
    const noun = `${n} ${n === 1 ? "memory" : "memories"}`;
    const deleting = action === "delete";
    const needForce = deleting && dry.golden_rules > 0;
    const force = needForce ? el("input", { type: "checkbox", id: "bulk-force" }) : null;
    const go = el("button", { type: "button", id: "bulk-go", class: deleting ? "danger" : null, disabled: needForce },
      deleting ? `Delete ${noun}` : `Confirm ${noun}`);
    const cancel = el("button", { type: "button", id: "bulk-cancel" }, "Cancel");
    this.box.replaceChildren(el("div", { class: deleting ? "confirm-delete" : "confirm-bulk", role: "alertdialog", "aria-labelledby": "bulk-title" },
      el("p", { id: "bulk-title" }, el("strong", {}, deleting ? `Delete ${noun}?` : `Confirm ${noun}?`),
        deleting ? " Each goes with its edges and validation events, and can be restored from the Trash for 30 days."
          : " Each gets a successful validation, as memory_validate_tool records it: its confidence rises."),
      el("ol", { id: "bulk-preview" }, dry.items.map((it) =>
        el("li", {}, el("span", { class: `badge ${it.memory_type}` }, it.memory_type), " ", el("span", { class: "muted" }, it.namespace), " ", it.preview))),
      needForce ? el("label", { class: "force" }, force,
        ` ${dry.golden_rules === 1 ? "1 of them is a golden rule" : `${dry.golden_rules} of them are golden rules`}: delete anyway (force)`) : null,
      el("div", { class: "actions" }, go, cancel)));
    if (force) force.addEventListener("change", () => { go.disabled = !force.checked; });
    cancel.addEventListener("click", () => this.box.replaceChildren());
    go.addEventListener("click", async () => {
      go.disabled = true;
      try {
        const res = await bulkMemories(action, ids, { force: Boolean(force && force.checked) });
        for (const it of res.items) if (it.done) this.ids.delete(it.id);
        this.box.replaceChildren();
        this.render();
        await this.reload();
        this.setStatus(res.message, res.failed > 0);
      } catch (err) {
        go.disabled = needForce && !(force && force.checked);
        this.setStatus(err.message, true);
      }
    });
    (force || go).focus();
  }
}
