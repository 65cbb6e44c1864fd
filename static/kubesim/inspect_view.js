// Describe, Events and Logs for any object, as kubectl prints them; refreshed when it changes.

import { $, BASE, h, request, t } from "./dom.js";
import { LogsView } from "./logs_view.js";

export class InspectView {
  constructor(store) {
    this.store = store;
    this.target = null; // {kind, namespace, name}
    this.view = "describe";
    this.timer = 0;
    this.shown = false; // the Inspect tab is the one on screen (a followed log streams only then)
    this.logs = new LogsView($("inspect-out"));
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
      const itself = change.kind === target.kind && meta.name === target.name && (meta.namespace || "") === target.namespace;
      if (this.view === "logs") {
        if (itself && this.shown) this.logs.podChanged(); // a new run, an init container done
        return;
      }
      if (itself) this.refreshSoon();
      if (target.kind === "Pod" || target.kind === "Node") this.refreshSoon(1200); // new events
    });
  }

  open(kind, namespace, name) {
    this.target = { kind, namespace: namespace || "", name };
    this.load();
  }

  // The tab was shown or hidden: a followed log stops while nobody sees it.
  setShown(shown) {
    if (shown === this.shown) return;
    this.shown = shown;
    if (!shown) this.logs.hide();
    else if (this.view === "logs" && this.target) this.load();
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
    if (this.view === "logs") {
      if (target.kind !== "Pod") {
        this.logs.hide();
        $("inspect-out").textContent = t("logs_pods_only");
      } else if (this.shown) {
        this.logs.show(target);
      }
      return;
    }
    this.logs.hide();
    const path = `${BASE}/ui/${this.view}/${encodeURIComponent(target.kind)}/${encodeURIComponent(ns)}/${encodeURIComponent(target.name)}`;
    const result = await request(path);
    if (this.target !== target || this.view === "logs") return;
    const data = result.data;
    $("inspect-out").textContent = typeof data === "string" ? data : data.message || JSON.stringify(data, null, 2);
  }
}
