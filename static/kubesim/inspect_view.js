// Describe, Events and Logs for any object, as kubectl prints them; refreshed when it changes.

import { $, BASE, h, request, t } from "./dom.js";

export class InspectView {
  constructor(store) {
    this.store = store;
    this.target = null; // {kind, namespace, name}
    this.view = "describe";
    this.timer = 0;
    for (const button of document.querySelectorAll("#pane-inspect .seg button")) {
      button.addEventListener("click", () => {
        this.view = button.dataset.view;
        this.load();
      });
    }
    $("inspect-out").textContent = t("pick_object");
    store.subscribe((change) => {
      const target = this.target;
      if (!target || change.type !== "object") return;
      const meta = change.object.metadata || {};
      if (change.kind === target.kind && meta.name === target.name) this.refreshSoon();
      if (target.kind === "Pod" || target.kind === "Node") this.refreshSoon(1200); // new events
    });
  }

  open(kind, namespace, name) {
    this.target = { kind, namespace: namespace || "", name };
    this.load();
  }

  refreshSoon(delay = 300) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.load(), delay);
  }

  async load() {
    for (const button of document.querySelectorAll("#pane-inspect .seg button")) {
      button.setAttribute("aria-pressed", String(button.dataset.view === this.view));
    }
    const target = this.target;
    if (!target) return;
    const ns = target.namespace || "-";
    const title = $("inspect-title");
    title.textContent = "";
    title.append(h("span", { class: "muted", text: `${target.kind} ` }), target.namespace ? `${target.namespace}/${target.name}` : target.name);
    let path = `${BASE}/ui/${this.view}/${encodeURIComponent(target.kind)}/${encodeURIComponent(ns)}/${encodeURIComponent(target.name)}`;
    if (this.view === "logs") {
      if (target.kind !== "Pod") {
        $("inspect-out").textContent = t("logs_pods_only");
        return;
      }
      path = `${BASE}/api/v1/namespaces/${encodeURIComponent(target.namespace)}/pods/${encodeURIComponent(target.name)}/log`;
    }
    const result = await request(path);
    if (this.target !== target) return;
    const data = result.data;
    const text = typeof data === "string" ? data : data.message || JSON.stringify(data, null, 2);
    // An empty log is a real answer (nginx before 1.19 writes nothing): say so rather than show a blank.
    $("inspect-out").textContent = this.view === "logs" && result.ok && text === "" ? t("logs_empty") : text;
  }
}
