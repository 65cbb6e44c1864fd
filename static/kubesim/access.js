// The presenter switch "Class may write": the teacher lets everyone who watches change the cluster
// (POST /clusters/<c>/policy; cluster.access enforces it, with the quota and rate limits).

import { $, request, t, toast } from "./dom.js";

export function wireAccess() {
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
