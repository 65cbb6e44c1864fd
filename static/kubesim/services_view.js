// The Services strip under the workloads: each Service with its ClusterIP and ports and how many
// of its endpoints are ready (from its Endpoints, kept by the endpoints controller); the
// endpoints' addresses in the tooltip. A click describes the Service.

import { $, clear, h, t } from "./dom.js";

const collator = new Intl.Collator(undefined, { numeric: true });

function portsText(spec) {
  return (spec.ports || []).map((p) => (p.nodePort ? `${p.port}:${p.nodePort}/${p.protocol || "TCP"}` : `${p.port}/${p.protocol || "TCP"}`)).join(",");
}

export function endpointsOf(endpoints) {
  const ready = [];
  const notReady = [];
  for (const subset of (endpoints && endpoints.subsets) || []) {
    const ports = (subset.ports || []).map((p) => p.port);
    const suffix = ports.length ? `:${ports[0]}` : "";
    for (const a of subset.addresses || []) ready.push(`${a.ip}${suffix}`);
    for (const a of subset.notReadyAddresses || []) notReady.push(`${a.ip}${suffix}`);
  }
  return { ready, notReady };
}

export class ServicesView {
  constructor(store, hooks) {
    this.store = store;
    this.hooks = hooks;
    this.frame = 0;
    store.subscribe((change) => {
      if (change.type === "snapshot" || change.kind === "Service" || change.kind === "Endpoints") this.schedule();
    });
  }

  schedule() {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.render());
  }

  render() {
    this.frame = 0;
    const box = clear($("services"));
    const items = [...this.store.services.entries()].sort((a, b) => collator.compare(a[0], b[0]));
    box.append(h("h3", { class: "lane-title", text: t("services") }));
    if (!items.length) {
      box.append(h("p", { class: "lane-empty", text: t("no_services") }));
      return;
    }
    box.append(h("div", { class: "service-list" }, items.map(([key, svc]) => {
      const spec = svc.spec || {};
      const { ready, notReady } = endpointsOf(this.store.endpoints.get(key));
      const selector = Object.keys(spec.selector || {}).length > 0;
      const lines = [`${key} · ${spec.type || "ClusterIP"} ${spec.clusterIP || ""} ${portsText(spec)}`];
      lines.push(`${t("endpoints")}: ${ready.join(", ") || t("none")}`);
      if (notReady.length) lines.push(`${t("ep_not_ready")}: ${notReady.join(", ")}`);
      const count = selector || ready.length ? `${ready.length}/${ready.length + notReady.length}` : "–";
      const ns = (svc.metadata || {}).namespace || "default";
      return h("button", {
        type: "button",
        class: `service${ready.length ? " is-ready" : ""}`,
        title: lines.join("\n"),
        "data-service": key,
        onclick: () => this.hooks.onService(ns, svc.metadata.name),
      }, h("span", { class: "wl-kind", text: "svc" }), h("span", { class: "wl-name", text: svc.metadata.name }),
      h("span", { class: "svc-ip", text: `${spec.clusterIP || ""}:${(spec.ports || [])[0]?.port ?? ""}` }),
      h("span", { class: "svc-eps", text: `→ ${count}` }));
    })));
  }
}
