// Bulk actions on a list of memories: memories ticked (checkbox or "x") are
// kept across pages and searches; each action first asks the server what it
// would touch, shows the exact count and each memory's preview, and acts only
// when that is confirmed. A golden rule in a delete or archive needs the force
// box ticked. The memory list and the stale review each have one, told apart
// by the prefix of their element ids.
import { el } from "./dom.js";
import { bulkMemories } from "./api.js";

// ACTIONS say what each action does, for the confirmation.
const ACTIONS = {
  confirm: { verb: "Confirm", what: " Each gets a successful validation, as memory_validate_tool records it: its confidence rises." },
  delete: { verb: "Delete", danger: true, what: " Each goes with its edges and validation events, and can be restored from the Trash for 30 days." },
  archive: { verb: "Archive", danger: true, what: " Each leaves the store (no longer recalled, searched or injected) and is kept whole in the Trash until you restore it." },
};

export class Bulk {
  // actions: [{ action, label, verb }] in the order of their buttons (verb,
  // optional, names the action in its confirmation); list: the element whose
  // items (data-id) hold the tick boxes.
  constructor({ bar, box, list, setStatus, reload, prefix = "bulk",
    actions = [{ action: "confirm", label: "Confirm selected" }, { action: "delete", label: "Delete selected" }] }) {
    Object.assign(this, { bar, box, list, setStatus, reload, prefix, actions });
    this.ids = new Set();
    this.render();
  }

  id(name) { return `${this.prefix}-${name}`; }

  // checkbox is the tick box of one list item. Ticked is its state, not an
  // attribute: an item drawn again the same (see dom.js redraw) is kept with
  // its box, which set keeps up to date.
  checkbox(id) {
    const box = el("input", { type: "checkbox", class: "pick", "aria-label": "Select this memory" });
    box.checked = this.ids.has(id);
    box.addEventListener("change", () => this.set(id, box.checked));
    return box;
  }

  set(id, on) {
    if (on) this.ids.add(id); else this.ids.delete(id);
    const box = this.list.querySelector(`li[data-id="${CSS.escape(id)}"] input.pick`);
    if (box) box.checked = on;
    this.box.replaceChildren(); // a confirmation shown is for the old selection
    this.render();
  }

  toggle(id) { this.set(id, !this.ids.has(id)); }

  clear() {
    this.ids.clear();
    this.box.replaceChildren();
    this.list.querySelectorAll("input.pick").forEach((b) => { b.checked = false; });
    this.render();
  }

  render() {
    const n = this.ids.size;
    this.bar.hidden = n === 0;
    if (!n) { this.bar.replaceChildren(); return; }
    const buttons = this.actions.map(({ action, label }) => {
      const b = el("button", { type: "button", id: this.id(action), class: ACTIONS[action].danger ? "danger" : null }, label);
      b.addEventListener("click", () => this.ask(action));
      return b;
    });
    const clear = el("button", { type: "button", id: this.id("clear") }, "Clear selection");
    clear.addEventListener("click", () => this.clear());
    this.bar.replaceChildren(el("span", { id: this.id("count") }, `${n} selected`), ...buttons, clear);
  }

  // ask confirms an action on the ticked memories or, given view (a list
  // view's state), on every memory of that view.
  async ask(action, view = null) {
    const ids = view ? null : [...this.ids];
    let dry;
    try {
      dry = await bulkMemories(action, ids, { dryRun: true, view });
    } catch (err) {
      this.setStatus(err.message, true);
      return;
    }
    const { danger, what } = ACTIONS[action];
    const verb = this.actions.find((a) => a.action === action)?.verb ?? ACTIONS[action].verb;
    const n = dry.count;
    const noun = `${n} ${n === 1 ? "memory" : "memories"}`;
    const needForce = action !== "confirm" && dry.golden_rules > 0;
    const force = needForce ? el("input", { type: "checkbox", id: this.id("force") }) : null;
    const go = el("button", { type: "button", id: this.id("go"), class: danger ? "danger" : null, disabled: needForce }, `${verb} ${noun}`);
    const cancel = el("button", { type: "button", id: this.id("cancel") }, "Cancel");
    this.box.replaceChildren(el("div", { class: danger ? "confirm-delete" : "confirm-bulk", role: "alertdialog", "aria-labelledby": this.id("title") },
      el("p", { id: this.id("title") }, el("strong", {}, `${verb} ${noun}${view ? " of this view" : ""}?`), what),
      el("ol", { id: this.id("preview"), class: "bulk-preview" }, dry.items.map((it) =>
        el("li", {}, el("span", { class: `badge ${it.memory_type}` }, it.memory_type), " ", el("span", { class: "muted" }, it.namespace), " ", it.preview))),
      needForce ? el("label", { class: "force" }, force,
        ` ${dry.golden_rules === 1 ? "1 of them is a golden rule" : `${dry.golden_rules} of them are golden rules`}: ${action} anyway (force)`) : null,
      el("div", { class: "actions" }, go, cancel)));
    if (force) force.addEventListener("change", () => { go.disabled = !force.checked; });
    cancel.addEventListener("click", () => this.box.replaceChildren());
    go.addEventListener("click", async () => {
      go.disabled = true;
      try {
        const res = await bulkMemories(action, ids, { force: Boolean(force && force.checked), view });
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
