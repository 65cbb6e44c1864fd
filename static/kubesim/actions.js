// Quick actions, all through the Kubernetes REST API (the same front door kubectl uses):
// label/unlabel, cordon/uncordon, taint/untaint, add/remove node, scale, delete.

import { $, BASE, clear, failure, h, objectPath, request, setClockOffset, t, toast } from "./dom.js";

const MERGE = "application/merge-patch+json";

let openMenuEl = null;

export function closeMenu() {
  if (openMenuEl) openMenuEl.remove();
  openMenuEl = null;
}

// A small popover of actions under `anchor`; Escape or a click elsewhere closes it.
export function openMenu(anchor, title, items) {
  closeMenu();
  const menu = h("div", { class: "menu", role: "menu" }, h("div", { class: "menu-title", text: title }),
    items.filter(Boolean).map((item) => h("button", {
      type: "button",
      role: "menuitem",
      class: item.danger ? "menu-item is-danger" : "menu-item",
      text: item.label,
      onclick: () => { closeMenu(); item.run(); },
    })));
  document.body.append(menu);
  const rect = anchor.getBoundingClientRect();
  const left = Math.min(window.scrollX + rect.left, window.scrollX + document.documentElement.clientWidth - menu.offsetWidth - 8);
  menu.style.left = `${Math.max(8, left)}px`;
  menu.style.top = `${window.scrollY + rect.bottom + 4}px`;
  openMenuEl = menu;
  const buttons = [...menu.querySelectorAll("button")];
  buttons[0]?.focus();
  menu.addEventListener("keydown", (event) => {
    const i = buttons.indexOf(document.activeElement);
    if (event.key === "Escape") { closeMenu(); anchor.focus(); }
    if (event.key === "ArrowDown") { event.preventDefault(); buttons[(i + 1) % buttons.length].focus(); }
    if (event.key === "ArrowUp") { event.preventDefault(); buttons[(i - 1 + buttons.length) % buttons.length].focus(); }
  });
}

document.addEventListener("click", (event) => {
  if (openMenuEl && !openMenuEl.contains(event.target) && !event.target.closest(".node-menu, .pod, .workload")) closeMenu();
});

// A form in the shared <dialog> (with `note`, a sentence above its fields); resolves with
// {name: value} or null when cancelled.
export function ask(title, fields, validate = () => "", note = "") {
  const dialog = $("dialog");
  $("dialog-title").textContent = title;
  $("dialog-error").textContent = "";
  const box = clear($("dialog-fields"));
  if (note) box.append(h("p", { class: "dialog-note", text: note }));
  for (const f of fields) {
    const control = f.options
      ? h("select", { name: f.name }, f.options.map((o) => h("option", { value: o, text: o, selected: o === f.value })))
      : h("input", { name: f.name, value: f.value ?? "", required: f.optional ? null : true, autocomplete: "off", spellcheck: "false", inputmode: f.inputmode });
    box.append(h("label", { class: "field" }, h("span", { text: f.label }), control));
  }
  return new Promise((resolve) => {
    const form = $("dialog-form");
    const onSubmit = (event) => {
      if (event.submitter && event.submitter.value === "cancel") return;
      const values = Object.fromEntries(fields.map((f) => [f.name, form.elements[f.name].value.trim()]));
      const problem = validate(values);
      if (problem) {
        event.preventDefault();
        $("dialog-error").textContent = problem;
      }
    };
    form.addEventListener("submit", onSubmit);
    dialog.addEventListener("close", () => {
      form.removeEventListener("submit", onSubmit);
      if (dialog.returnValue !== "ok") return resolve(null);
      return resolve(Object.fromEntries(fields.map((f) => [f.name, form.elements[f.name].value.trim()])));
    }, { once: true });
    dialog.returnValue = "";
    dialog.showModal();
  });
}

async function call(method, path, body, type = "application/json") {
  const result = await request(path, { method, body, type, detail: "web quick action" });
  if (result.ok) toast(`✓ ${t("done")}`);
  else toast(failure(result), "error");
  return result;
}

const patchNode = (name, body) => call("PATCH", objectPath("Node", "", name), body, MERGE);

export function nodeActions(node) {
  const name = node.metadata.name;
  const system = (key) => /kubernetes\.io\//.test(key);
  const labels = Object.keys(node.metadata.labels || {}).sort((a, b) => system(a) - system(b) || a.localeCompare(b));
  const taints = (node.spec || {}).taints || [];
  const taintText = (x) => `${x.key}${x.value ? `=${x.value}` : ""}:${x.effect}`;
  return [
    { label: t("label"), run: async () => {
      const v = await ask(`${t("label")} node/${name}`, [{ name: "key", label: t("key"), value: "zz" }, { name: "value", label: t("value"), value: "cxk", optional: true }]);
      if (v) patchNode(name, { metadata: { labels: { [v.key]: v.value } } });
    } },
    labels.length && { label: t("unlabel"), run: async () => {
      const v = await ask(`${t("unlabel")} node/${name}`, [{ name: "key", label: t("key"), options: labels }]);
      if (v) patchNode(name, { metadata: { labels: { [v.key]: null } } });
    } },
    (node.spec || {}).unschedulable
      ? { label: t("uncordon"), run: () => patchNode(name, { spec: { unschedulable: null } }) }
      : { label: t("cordon"), run: () => patchNode(name, { spec: { unschedulable: true } }) },
    { label: t("taint"), run: async () => {
      const v = await ask(`${t("taint")} node/${name}`, [{ name: "key", label: t("key"), value: "dedicated" }, { name: "value", label: t("value"), value: "gpu", optional: true },
        { name: "effect", label: t("effect"), options: ["NoSchedule", "PreferNoSchedule", "NoExecute"], value: "NoSchedule" }]);
      if (!v) return;
      const rest = taints.filter((x) => !(x.key === v.key && x.effect === v.effect));
      const added = { key: v.key, effect: v.effect, ...(v.value ? { value: v.value } : {}) };
      patchNode(name, { spec: { taints: [...rest, added] } });
    } },
    taints.length && { label: t("untaint"), run: async () => {
      const v = await ask(`${t("untaint")} node/${name}`, [{ name: "taint", label: t("taint"), options: taints.map(taintText) }]);
      if (!v) return;
      const rest = taints.filter((x) => taintText(x) !== v.taint);
      patchNode(name, { spec: { taints: rest.length ? rest : null } });
    } },
    { label: t("remove_node"), danger: true, run: () => {
      if (window.confirm(t("confirm_delete", { what: `node/${name}` }))) call("DELETE", objectPath("Node", "", name));
    } },
  ];
}

export function deleteObject(kind, namespace, name) {
  if (window.confirm(t("confirm_delete", { what: `${kind.toLowerCase()}/${name}` }))) call("DELETE", objectPath(kind, namespace, name));
}

export async function scaleWorkload(w) {
  const v = await ask(`${t("scale")} ${w.kind.toLowerCase()}/${w.metadata.name}`,
    [{ name: "replicas", label: t("replicas"), value: String((w.spec || {}).replicas ?? 1), inputmode: "numeric" }],
    (values) => (/^\d+$/.test(values.replicas) ? "" : "0, 1, 2, …"));
  if (v) call("PATCH", `${objectPath(w.kind, w.metadata.namespace, w.metadata.name)}/scale`, { spec: { replicas: Number(v.replicas) } }, MERGE);
}

// The teacher's jump of the cluster's clock to a CronJob's next scheduled run (POST …/clock):
// the run starts at once instead of a minute, or an hour, later.
export async function jumpToNextRun(w) {
  const cronJob = { namespace: w.metadata.namespace || "default", name: w.metadata.name };
  const result = await request(`${BASE}/clock`, { method: "POST", body: { to: "next-schedule", cronJob } });
  if (!result.ok) {
    toast(failure(result), "error");
    return;
  }
  setClockOffset(result.data.clockOffset);
  toast(t("clock_jumped", { seconds: Math.round(result.data.jumpedSeconds), name: w.metadata.name }));
}

// The teacher's node failure (POST …/kubelets/<node>): kubectl cannot stop a kubelet.
export async function setKubelet(name, running) {
  const result = await request(`${BASE}/kubelets/${encodeURIComponent(name)}`, { method: "POST", body: { running } });
  if (!result.ok) {
    toast(failure(result), "error");
    return;
  }
  toast(t(running ? "kubelet_started_toast" : "kubelet_stopped_toast", { node: name }));
}

// The teacher's jump of the cluster's clock (POST …/clock): a node's 50 s grace period and its
// pods' 300 s tolerations need not be waited for.
export async function moveClock(seconds) {
  const result = await request(`${BASE}/clock`, { method: "POST", body: { seconds } });
  if (!result.ok) {
    toast(failure(result), "error");
    return;
  }
  setClockOffset(result.data.clockOffset);
  toast(t("clock_moved", { seconds: Math.round(result.data.jumpedSeconds || seconds) }));
}

export async function addNode(existing) {
  let n = existing.size;
  while (existing.has(`node${n}`)) n += 1;
  const v = await ask(t("add_node"), [{ name: "name", label: t("node_name"), value: `node${n}` },
    { name: "cpu", label: t("cpu_cores"), value: "2" }, { name: "memory", label: t("memory_gi"), value: "4Gi" }]);
  if (!v) return;
  const resources = { cpu: v.cpu, memory: v.memory, pods: "110" };
  call("POST", `${BASE}/api/v1/nodes`, {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: v.name, labels: { "kubernetes.io/hostname": v.name, "kubernetes.io/os": "linux" } },
    status: { capacity: resources, allocatable: resources },
  });
}
