// Edges on a memory's page: remove one (a second click confirms; both
// memories stay), or link the memory to another found by a search, as
// memory_relate_tool and memory_edge_forget_tool do.
import { el } from "./dom.js";
import { addEdge, removeEdge, listMemories } from "./api.js";

const RELATIONS = ["relates_to", "supersedes", "caused_by", "contradicts"];

// removeButton is an edge row's Remove: the first click asks, the second
// removes; after a few seconds it asks again.
export function removeButton(edge, done, setStatus) {
  const b = el("button", { type: "button", class: "edge-remove", "data-edge": edge.id, title: "Remove this edge (both memories stay)" }, "Remove");
  let armed = 0;
  b.addEventListener("click", async () => {
    if (!armed) {
      b.textContent = "Remove it?";
      b.classList.add("danger");
      armed = setTimeout(() => { armed = 0; b.textContent = "Remove"; b.classList.remove("danger"); }, 5000);
      return;
    }
    clearTimeout(armed);
    b.disabled = true;
    try {
      await removeEdge(edge.id);
      setStatus(`removed the ${edge.relation.replace("_", " ")} edge`);
      done();
    } catch (err) {
      b.disabled = false;
      setStatus(err.message, true);
    }
  });
  return b;
}

// linkForm links memory m to another: type to search, pick one, choose the relation.
export function linkForm(m, done, setStatus) {
  const search = el("input", { id: "edge-search", type: "search", placeholder: "Search the memory to link…", "aria-label": "Memory to link", autocomplete: "off" });
  const hits = el("ol", { id: "edge-hits", class: "edge-hits" });
  const relation = el("select", { id: "edge-relation", "aria-label": "Relation" }, RELATIONS.map((r) => el("option", { value: r }, `this ${r.replace("_", " ")} →`)));
  const add = el("button", { type: "submit", id: "edge-add", disabled: true }, "Add edge");
  // Superseding a golden rule needs the force box ticked, as
  // memory_relate_tool needs force.
  const force = el("input", { type: "checkbox", id: "edge-force" });
  const forceBox = el("label", { class: "force", hidden: true }, force, " It is a golden rule: supersede it anyway (force)");
  let target = null;
  let targetGolden = false;
  let timer = 0;
  let inflight = null;
  const update = () => {
    const needsForce = targetGolden && relation.value === "supersedes";
    forceBox.hidden = !needsForce;
    add.disabled = !target || (needsForce && !force.checked);
  };
  relation.addEventListener("change", update);
  force.addEventListener("change", update);
  search.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const q = search.value.trim();
      if (!q) {
        inflight?.abort();
        target = null;
        targetGolden = false;
        update();
        delete hits.dataset.q;
        hits.replaceChildren();
        return;
      }
      inflight?.abort();
      inflight = new AbortController();
      try {
        const page = await listMemories({ q, limit: 6, offset: 0 }, inflight.signal);
        const found = page.memories.filter((x) => x.id !== m.id).slice(0, 5);
        // A memory picked among the hits of the words typed so far stays
        // picked when the hits of the whole search still show it: on a busy
        // machine those arrive after the click.
        if (!found.some((x) => x.id === target)) {
          target = null;
          targetGolden = false;
        }
        update();
        hits.dataset.q = q; // the words the hits answer
        hits.replaceChildren(...found.map((x) => {
          const pick = el("button", { type: "button", class: x.id === target ? "edge-hit selected" : "edge-hit", "data-id": x.id },
            el("span", { class: `badge ${x.memory_type}` }, x.memory_type), " ", x.content.length > 120 ? x.content.slice(0, 119) + "…" : x.content);
          pick.addEventListener("click", () => {
            target = x.id;
            targetGolden = x.memory_type === "golden_rule";
            hits.querySelectorAll(".edge-hit").forEach((h) => h.classList.toggle("selected", h === pick));
            update();
          });
          return el("li", {}, pick);
        }));
      } catch (err) {
        if (err.name !== "AbortError") setStatus(err.message, true);
      }
    }, 200);
  });
  const form = el("form", { class: "link-form", id: "edge-add-box" }, el("div", { class: "row" }, relation, search), hits, forceBox, add);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!target) return;
    add.disabled = true;
    try {
      await addEdge(m.id, target, relation.value, !forceBox.hidden && force.checked);
      setStatus(`added: this ${relation.value.replace("_", " ")} the chosen memory`);
      done();
    } catch (err) {
      update();
      setStatus(err.message, true);
    }
  });
  return form;
}
