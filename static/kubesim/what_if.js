// What if…: edit a copy of the pod, of a node (labels, taints, capacity) or of the profile and see
// the scheduler's explanation for the copy beside the real one, what changed highlighted. Nothing
// is written: POST /clusters/<c>/scheduling/what-if only answers (docs/scheduler.md §6).

import { $, BASE, clear, failure, h, objectPath, request, t } from "./dom.js";
import { byNode } from "./scheduler_compact.js";

const EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

// What differs node by node between two explanations (scheduler/comparison.py's rules).
export function compare(before, after) {
  const first = (n) => (n && n.firstFailure ? `${n.firstFailure.plugin}: ${(n.firstFailure.reasons || []).join(", ")}` : null);
  const nodes = {};
  for (const name of new Set([...Object.keys(before.nodes || {}), ...Object.keys(after.nodes || {})])) {
    const a = (before.nodes || {})[name] || {};
    const b = (after.nodes || {})[name] || {};
    const changed = {};
    if (a.feasible !== b.feasible) changed.feasible = [a.feasible, b.feasible];
    if ((a.total ?? null) !== (b.total ?? null)) changed.total = [a.total ?? null, b.total ?? null];
    if (first(a) !== first(b)) changed.firstFailure = [first(a), first(b)];
    if (Object.keys(changed).length) nodes[name] = changed;
  }
  return {
    selected: before.selected === after.selected ? null : [before.selected, after.selected],
    profile: before.profile === after.profile ? null : [before.profile, after.profile],
    nodes,
  };
}

function shown(value) {
  if (value === null || value === undefined) return "—";
  if (value === true) return t("feasible");
  if (value === false) return t("whatif_filtered");
  return String(value);
}

// "key=value" per line → {key: value}; "key" alone is an empty value.
function parseLabels(text) {
  const labels = {};
  for (const line of text.split("\n").map((l) => l.trim()).filter(Boolean)) {
    const at = line.indexOf("=");
    labels[at < 0 ? line : line.slice(0, at).trim()] = at < 0 ? "" : line.slice(at + 1).trim();
  }
  return labels;
}

// kubectl taint's form, one per line: key=value:Effect or key:Effect.
function parseTaints(text) {
  return text.split("\n").map((l) => l.trim()).filter(Boolean).map((line) => {
    const colon = line.lastIndexOf(":");
    const effect = colon < 0 ? "" : line.slice(colon + 1);
    if (!EFFECTS.includes(effect)) throw new Error(t("whatif_taint_form", { line }));
    const pair = line.slice(0, colon);
    const at = pair.indexOf("=");
    return at < 0 ? { key: pair, effect } : { key: pair.slice(0, at), value: pair.slice(at + 1), effect };
  });
}

function labelsText(node) {
  return Object.entries((node.metadata || {}).labels || {}).map(([k, v]) => (v ? `${k}=${v}` : k)).join("\n");
}

function taintsText(node) {
  return ((node.spec || {}).taints || []).map((x) => `${x.key}${x.value ? `=${x.value}` : ""}:${x.effect}`).join("\n");
}

// The pod as a student edits it: what they wrote, not what the server added.
function podCopy(pod) {
  const meta = pod.metadata || {};
  const spec = { ...(pod.spec || {}) };
  delete spec.nodeName; // the copy is scheduled again
  delete spec.priority; // Priority admission computes it again from priorityClassName
  const metadata = { name: meta.name, namespace: meta.namespace || "default" };
  if (meta.labels) metadata.labels = meta.labels;
  return JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata, spec }, null, 2);
}

function verdict(d) {
  return h("div", { class: `whatif-verdict ${d.selected ? "is-ok" : "is-fail"}` },
    h("strong", { text: d.selected ? `✓ ${t("scheduled_to", { node: d.selected })}` : `✗ ${t("unschedulable")}` }),
    h("span", { class: "whatif-profile", text: `${t("whatif_profile")}: ${d.profile || "default-scheduler"}` }),
    d.message ? h("p", { class: "whatif-message", text: d.message }) : null);
}

export class WhatIfDialog {
  constructor(store) {
    this.store = store;
    this.dialog = null;
  }

  build() {
    const field = (id, label, attrs = {}) => h("label", { class: "whatif-field" }, h("span", { text: label }), h(attrs.rows ? "textarea" : "input", { id, spellcheck: "false", autocomplete: "off", ...attrs }));
    this.dialog = h("dialog", { class: "dialog tool-dialog", id: "whatif-dialog", "aria-labelledby": "whatif-title" },
      h("header", { class: "tool-head" },
        h("h3", { id: "whatif-title" }),
        h("span", { class: "tool-note", id: "whatif-note", text: t("whatif_note") }),
        h("button", { type: "button", class: "btn btn-small", id: "whatif-close", text: t("close"), onclick: () => this.dialog.close() })),
      h("div", { class: "tool-grid" },
        h("form", { class: "whatif-form", id: "whatif-form", onsubmit: (e) => { e.preventDefault(); this.run(); } },
          h("fieldset", null, h("legend", { text: t("whatif_pod") }), field("whatif-pod", t("whatif_pod_hint"), { rows: "10" })),
          h("fieldset", null, h("legend", { text: t("whatif_node") }),
            h("label", { class: "whatif-field" }, h("span", { text: t("node") }), h("select", { id: "whatif-node", onchange: () => this.fillNode() })),
            field("whatif-labels", t("whatif_labels"), { rows: "3" }),
            field("whatif-taints", t("whatif_taints"), { rows: "2" }),
            h("div", { class: "whatif-capacity" }, field("whatif-cpu", t("cpu")), field("whatif-memory", t("memory")), field("whatif-pods", t("pods")))),
          h("fieldset", null, h("legend", { text: t("whatif_profile") }),
            h("label", { class: "whatif-field" }, h("span", { text: t("whatif_profile_pick") }), h("select", { id: "whatif-profile" })),
            field("whatif-profile-text", t("whatif_profile_hint"), { rows: "4", placeholder: "pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy: {type: MostAllocated}" })),
          h("label", { class: "whatif-field" }, h("span", { text: t("whatif_compare") }), h("select", { id: "whatif-left", onchange: () => this.run() })),
          h("div", { class: "tool-actions" }, h("button", { type: "submit", class: "btn btn-primary", id: "whatif-run", text: t("whatif_run") })),
          h("p", { class: "dialog-error", id: "whatif-error", role: "alert" })),
        h("div", { class: "whatif-result" },
          h("ul", { class: "whatif-changes", id: "whatif-changes", "aria-live": "polite" }),
          h("div", { class: "whatif-cols" },
            h("section", { class: "whatif-col", id: "whatif-real" }),
            h("section", { class: "whatif-col is-copy", id: "whatif-copy" })))));
    document.body.append(this.dialog);
  }

  async open(key, attempts) {
    if (!this.dialog) this.build();
    const [namespace, name] = key.split("/");
    // The page keeps a summary of each pod; the copy starts from the whole stored object.
    const fetched = await request(objectPath("Pod", namespace, name));
    if (!fetched.ok) return;
    const pod = fetched.data;
    this.key = key;
    this.pod = pod;
    this.real = attempts.length ? attempts[0].decision : null;
    $("whatif-title").textContent = `${t("whatif_title")} — ${key}`;
    $("whatif-pod").value = podCopy(pod);
    this.original = $("whatif-pod").value;
    const nodes = [...this.store.nodes.values()].map((n) => n.metadata.name);
    $("whatif-node").replaceChildren(...nodes.map((n) => h("option", { value: n, text: n })));
    this.fillNode();
    $("whatif-profile-text").value = "";
    clear($("whatif-error"));
    clear($("whatif-changes"));
    clear($("whatif-real"));
    clear($("whatif-copy"));
    const config = await this.profiles();
    const names = config.map((p) => p.schedulerName);
    const own = (pod.spec || {}).schedulerName || "default-scheduler";
    $("whatif-profile").replaceChildren(...names.map((n) => h("option", { value: n, text: n })));
    $("whatif-profile").value = names.includes(own) ? own : names[0] || "";
    $("whatif-left").replaceChildren(
      h("option", { value: "", text: this.real ? t("whatif_real") : t("whatif_as_is") }),
      ...names.map((n) => h("option", { value: n, text: t("whatif_under_profile", { name: n }) })));
    if (!this.dialog.open) this.dialog.showModal();
    this.run();
  }

  async profiles() {
    const result = await this.requestJson(`${BASE}/scheduling/config`);
    return result.ok && result.data.profiles ? result.data.profiles : [{ schedulerName: "default-scheduler" }];
  }

  requestJson(path, body) {
    return request(path, body === undefined ? {} : { method: "POST", body });
  }

  fillNode() {
    const node = this.store.nodes.get($("whatif-node").value);
    if (!node) return;
    this.nodeOriginal = { labels: labelsText(node), taints: taintsText(node), capacity: { ...((node.status || {}).capacity || {}) } };
    $("whatif-labels").value = this.nodeOriginal.labels;
    $("whatif-taints").value = this.nodeOriginal.taints;
    for (const resource of ["cpu", "memory", "pods"]) $(`whatif-${resource}`).value = this.nodeOriginal.capacity[resource] || "";
  }

  // The node override, only with what was edited.
  nodeOverride() {
    const override = {};
    if ($("whatif-labels").value.trim() !== this.nodeOriginal.labels.trim()) override.labels = parseLabels($("whatif-labels").value);
    if ($("whatif-taints").value.trim() !== this.nodeOriginal.taints.trim()) override.taints = parseTaints($("whatif-taints").value);
    const capacity = {};
    for (const resource of ["cpu", "memory", "pods"]) {
      const value = $(`whatif-${resource}`).value.trim();
      if (value && value !== (this.nodeOriginal.capacity[resource] || "")) capacity[resource] = value;
    }
    if (Object.keys(capacity).length) override.capacity = capacity;
    return Object.keys(override).length ? { [$("whatif-node").value]: override } : null;
  }

  async run() {
    const error = clear($("whatif-error"));
    let nodes;
    try {
      nodes = this.nodeOverride();
    } catch (err) {
      error.textContent = err.message;
      return;
    }
    const body = { pod: $("whatif-pod").value, schedulerName: $("whatif-profile").value };
    if (nodes) body.nodes = nodes;
    if ($("whatif-profile-text").value.trim()) body.profile = $("whatif-profile-text").value;
    const left = $("whatif-left").value;
    const [copy, base] = await Promise.all([
      this.requestJson(`${BASE}/scheduling/what-if`, body),
      left || !this.real ? this.requestJson(`${BASE}/scheduling/what-if`, { pod: this.original, ...(left ? { schedulerName: left } : {}) }) : null,
    ]);
    if (!copy.ok) {
      error.textContent = failure(copy);
      return;
    }
    if (base && !base.ok) {
      error.textContent = failure(base);
      return;
    }
    const before = base ? base.data : this.real;
    const after = copy.data;
    const leftTitle = left ? t("whatif_under_profile", { name: left }) : this.real ? t("whatif_real") : t("whatif_as_is");
    this.render($("whatif-real"), leftTitle, before);
    this.render($("whatif-copy"), t("whatif_copy"), after);
    $("whatif-note").textContent = t("whatif_written_nothing", { revision: after.whatIf ? after.whatIf.revision : "" });
    this.highlight(compare(before, after));
  }

  render(column, title, d) {
    clear(column).append(h("h4", { text: title }), verdict(d), byNode(d, Object.keys(d.nodes || {})));
  }

  highlight(changes) {
    const list = clear($("whatif-changes"));
    if (changes.profile) list.append(h("li", { text: `${t("whatif_profile")}: ${changes.profile[0]} → ${changes.profile[1]}` }));
    if (changes.selected) list.append(h("li", { class: "is-selected-change", text: `${t("whatif_selected")}: ${shown(changes.selected[0])} → ${shown(changes.selected[1])}` }));
    for (const [node, fields] of Object.entries(changes.nodes)) {
      // "filtered out → feasible · total: — → 398 · first failure: NodeAffinity: … → —"
      const text = Object.entries(fields).map(([field, [a, b]]) => `${field === "feasible" ? "" : `${t(`whatif_${field}`)}: `}${shown(a)} → ${shown(b)}`).join(" · ");
      list.append(h("li", { "data-node": node }, h("strong", { text: `${node}: ` }), text));
      for (const item of $("whatif-copy").querySelectorAll(`.compact-node[data-node="${CSS.escape(node)}"]`)) {
        item.classList.add("is-changed");
        item.querySelector(".compact-head").append(h("span", { class: "changed-flag", text: t("whatif_changed") }));
      }
    }
    if (!list.children.length) list.append(h("li", { class: "muted", text: t("whatif_same") }));
  }
}
