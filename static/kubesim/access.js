// Who may change the cluster, live: the teacher's "Class may write" switch (POST …/policy) reaches
// every open page at once (the `access` message), and each page shows it: the viewers' banner,
// the controls that write, the switch itself on the teacher's other tabs. The server enforces it
// (cluster.auth.access); the page only says so. And the teacher's "Reset demo".

import { $, BASE, BOOT, request, t, toast } from "./dom.js";
import { ask } from "./actions.js";

// The controls that change the shared cluster or its flow (pace, step mode, a new node, an
// apply): disabled with the reason as their tooltip while the page may not write.
const WRITING_CONTROLS = ["pace", "step-mode", "add-node", "yaml-apply"];

function mayWrite(classMayWrite) {
  const access = BOOT.access || {};
  return Boolean(access.always || (access.public && classMayWrite));
}

function showAccess(classMayWrite) {
  const may = mayWrite(classMayWrite);
  document.body.classList.toggle("is-read-only", !may);
  const note = $("readonly-note");
  if (note) note.dataset.classMayWrite = classMayWrite ? "1" : "0";
  for (const id of WRITING_CONTROLS) {
    const control = $(id);
    if (!control) continue;
    if (!("title0" in control.dataset)) control.dataset.title0 = control.title;
    control.disabled = !may;
    control.title = may ? control.dataset.title0 : t("read_only");
  }
  const box = $("class-may-write");
  if (box) box.checked = classMayWrite;
}

async function resetDemo() {
  const sure = await ask(t("reset_confirm"), [], () => "", t("reset_what"));
  if (!sure) return;
  const result = await request(`${BASE}/reset`, { method: "POST", body: {}, detail: "Reset demo" });
  if (!result.ok) {
    toast((result.data && result.data.message) || `HTTP ${result.status}`, "error");
    return;
  }
  toast(t("reset_done"));
}

export function wireAccess(store) {
  showAccess(store.classMayWrite);
  store.subscribe((change) => {
    if (change.type === "access" || change.type === "snapshot") showAccess(store.classMayWrite);
  });
  const reset = $("reset-demo");
  if (reset) reset.addEventListener("click", resetDemo);
  const box = $("class-may-write");
  if (!box) return;
  box.addEventListener("change", async () => {
    const wanted = box.checked;
    const result = await request("policy", { method: "POST", body: { class_may_write: wanted } });
    if (!result.ok) {
      box.checked = !wanted;
      toast((result.data && result.data.message) || String(result.status), "error");
      return;
    }
    toast(t(wanted ? "class_may_write_on" : "class_may_write_off"));
  });
}
