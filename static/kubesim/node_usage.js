// What each node uses right now, beside what its pods request: the metrics API's NodeMetrics
// (metrics-server's figures, docs/metrics.md), read every scrape (15 s) while the page is shown.

import { request } from "./dom.js";
import { parseQuantity } from "./quantity.js";

const EVERY_MS = 15000;

export function watchNodeUsage(store, onChange) {
  let timer = null;
  async function poll() {
    timer = null;
    if (document.visibilityState === "visible") {
      try {
        const { ok, data } = await request("apis/metrics.k8s.io/v1beta1/nodes", { detail: "node usage" });
        if (ok && data && Array.isArray(data.items)) {
          store.nodeUsage = new Map(
            data.items.map((m) => [m.metadata.name, { cpu: parseQuantity(m.usage.cpu), memory: parseQuantity(m.usage.memory) }]),
          );
          onChange();
        }
      } catch {
        // the next scrape tries again
      }
    }
    timer = setTimeout(poll, EVERY_MS);
  }
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && timer !== null) {
      clearTimeout(timer);
      poll();
    }
  });
  poll();
}
