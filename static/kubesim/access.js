// The presenter switch "Class may write": the teacher lets everyone who watches change the cluster
// (POST /clusters/<c>/policy; cluster.auth.access enforces it, with the quota and rate limits).

import { $, BOOT, request, t, toast } from "./dom.js";

// A viewer may not change the shared flow (pace, step mode) or add nodes: those controls are
// disabled, with the reason as their tooltip; replay and the trace picker stay theirs.
function readOnlyControls() {
  if (BOOT.access && BOOT.access.may_write) return;
  for (const id of ["pace", "step-mode", "add-node"]) {
    const control = $(id);
    if (!control) continue;
    control.disabled = true;
    control.title = t("read_only");
  }
}

export function wireAccess() {
  readOnlyControls();
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
