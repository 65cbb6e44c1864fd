// A pod's container log in the Inspect view, read through the API's pods/NAME/log as kubectl
// reads it: a container picker (init containers, sidecars and ephemeral ones too), --previous,
// --timestamps, the last N lines, and -f while the view is open (one streamed request, aborted
// when the view closes or changes: the page never polls). The kubectl command it matches is shown.

import { BASE, h, t } from "./dom.js";

const TAILS = [100, 500, 2000];
const MAX_LINES = 2000; // what a followed log keeps on the page: the oldest lines go first
const DEFAULT_CONTAINER = "kubectl.kubernetes.io/default-container";

function encode(text) {
  return encodeURIComponent(text);
}

// The pod's containers as kubectl names them: [{name, kind}] with kind init, sidecar, ephemeral or "".
export function containersOf(pod) {
  const spec = pod.spec || {};
  const list = [];
  for (const c of spec.initContainers || []) list.push({ name: c.name, kind: c.restartPolicy === "Always" ? "sidecar" : "init" });
  for (const c of spec.containers || []) list.push({ name: c.name, kind: "" });
  for (const c of spec.ephemeralContainers || []) list.push({ name: c.name, kind: "ephemeral" });
  return list;
}

// kubectl's default container: the annotation when it names one, else the first app container.
function defaultContainer(pod) {
  const wanted = ((pod.metadata || {}).annotations || {})[DEFAULT_CONTAINER];
  const names = containersOf(pod).map((c) => c.name);
  if (wanted && names.includes(wanted)) return wanted;
  return (((pod.spec || {}).containers || [])[0] || {}).name || names[0] || "";
}

export class LogsView {
  constructor(out) {
    this.out = out; // the Inspect view's <pre>
    this.bar = h("div", { class: "logs-bar", id: "logs-bar", hidden: true });
    out.before(this.bar);
    this.options = { container: "", previous: false, timestamps: false, follow: true, tail: 500 };
    this.target = null;
    this.pod = null;
    this.stream = null; // the AbortController of the request in flight
    this.ended = false; // the followed run ended: the next run is read when the pod changes
    this.seq = 0;
  }

  // Show the log of the pod `target` ({namespace, name}), keeping the options for the same pod.
  async show(target) {
    const samePod = this.target && this.target.namespace === target.namespace && this.target.name === target.name;
    this.target = target;
    this.bar.hidden = false;
    const seq = ++this.seq;
    const response = await fetch(`${BASE}/api/v1/namespaces/${encode(target.namespace)}/pods/${encode(target.name)}`, {
      headers: { Accept: "application/json", "X-KubeSim-Client": "web", "X-KubeSim-Detail": "logs" },
      credentials: "same-origin",
    });
    const pod = await response.json().catch(() => ({}));
    if (seq !== this.seq) return;
    if (!response.ok) {
      this.stop();
      this.bar.replaceChildren();
      this.out.textContent = pod.message || `${response.status}`;
      return;
    }
    const names = containersOf(pod).map((c) => c.name);
    if (!samePod || !names.includes(this.options.container)) {
      this.options = { ...this.options, container: defaultContainer(pod), previous: false };
    }
    this.pod = pod;
    this.drawBar();
    this.read();
  }

  hide() {
    this.stop();
    this.seq += 1;
    this.target = null;
    this.bar.hidden = true;
  }

  // The inspected pod changed (a restart, an init container done): a followed run that ended
  // goes on with the next one; a log that is not followed is read again.
  podChanged() {
    if (!this.target) return;
    if (!this.options.follow || this.ended || !this.stream) this.show(this.target);
  }

  stop() {
    if (this.stream) this.stream.abort();
    this.stream = null;
  }

  drawBar() {
    const o = this.options;
    const select = h("select", { id: "logs-container", "aria-label": t("log_container") });
    for (const c of containersOf(this.pod)) {
      const label = c.kind ? `${c.name} (${t(`log_kind_${c.kind}`)})` : c.name;
      select.append(h("option", { value: c.name, text: label, selected: c.name === o.container }));
    }
    select.addEventListener("change", () => this.set({ container: select.value }));
    const tail = h("select", { id: "logs-tail", "aria-label": t("log_tail_label") });
    for (const n of TAILS) tail.append(h("option", { value: String(n), text: t("log_tail", { n }), selected: n === o.tail }));
    tail.addEventListener("change", () => this.set({ tail: Number(tail.value) }));
    const toggle = (id, key, label) => {
      const box = h("input", { type: "checkbox", id });
      box.checked = o[key];
      box.addEventListener("change", () => this.set({ [key]: box.checked }));
      return h("label", { class: "logs-toggle" }, box, ` ${label}`);
    };
    const status = this.containerStatus(o.container);
    const restarts = status ? status.restartCount || 0 : 0;
    const previous = toggle("logs-previous", "previous", t("log_previous"));
    if (!restarts && !o.previous) {
      previous.classList.add("is-dim");
      previous.title = t("log_no_previous");
    }
    this.bar.replaceChildren(
      h("label", null, `${t("log_container")} `, select),
      tail,
      previous,
      toggle("logs-timestamps", "timestamps", t("log_timestamps")),
      toggle("logs-follow", "follow", t("log_follow")),
      h("code", { class: "logs-command", id: "logs-command", text: this.command() }),
    );
  }

  containerStatus(name) {
    const status = this.pod.status || {};
    const all = [...(status.initContainerStatuses || []), ...(status.containerStatuses || []), ...(status.ephemeralContainerStatuses || [])];
    return all.find((s) => s.name === name) || null;
  }

  set(change) {
    this.options = { ...this.options, ...change };
    if (this.options.previous) this.options.follow = false; // kubectl: a finished run has nothing to follow
    this.drawBar();
    this.read();
  }

  // The kubectl command that prints what the view shows.
  command() {
    const o = this.options;
    const target = this.target;
    const parts = ["kubectl logs", target.name];
    if (target.namespace && target.namespace !== "default") parts.push(`-n ${target.namespace}`);
    parts.push(`-c ${o.container}`);
    if (o.previous) parts.push("--previous");
    if (o.timestamps) parts.push("--timestamps");
    parts.push(`--tail=${o.tail}`);
    if (o.follow) parts.push("-f");
    return parts.join(" ");
  }

  path() {
    const o = this.options;
    const query = new URLSearchParams({ container: o.container, tailLines: String(o.tail) });
    if (o.previous) query.set("previous", "true");
    if (o.timestamps) query.set("timestamps", "true");
    if (o.follow) query.set("follow", "true");
    return `${BASE}/api/v1/namespaces/${encode(this.target.namespace)}/pods/${encode(this.target.name)}/log?${query}`;
  }

  async read() {
    this.stop();
    this.ended = false;
    const controller = new AbortController();
    this.stream = controller;
    const out = this.out;
    let response;
    try {
      response = await fetch(this.path(), {
        headers: { "X-KubeSim-Client": "web", "X-KubeSim-Detail": "logs" },
        credentials: "same-origin",
        signal: controller.signal,
      });
    } catch {
      return; // aborted: another read took over
    }
    if (this.stream !== controller) return;
    if (!response.ok) {
      // kube-apiserver's Status: "previous terminated container … not found", "… is waiting to start: …"
      const text = await response.text();
      let message = text;
      try {
        message = JSON.parse(text).message || text;
      } catch {
        /* plain text */
      }
      out.replaceChildren(h("span", { class: "logs-note", text: message }));
      this.stream = null;
      this.ended = true;
      return;
    }
    out.replaceChildren();
    const lines = [];
    let partial = "";
    const decoder = new TextDecoder();
    const reader = response.body.getReader();
    const show = () => {
      while (lines.length > MAX_LINES) lines.shift();
      const stick = out.scrollTop + out.clientHeight >= out.scrollHeight - 8; // the reader is at the end
      out.textContent = lines.length || partial ? lines.join("\n") + (lines.length ? "\n" : "") + partial : t("logs_empty");
      if (stick) out.scrollTop = out.scrollHeight;
    };
    show();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const text = partial + decoder.decode(value, { stream: true });
        const parts = text.split("\n");
        partial = parts.pop();
        lines.push(...parts);
        if (this.stream !== controller) return;
        show();
      }
    } catch {
      return; // aborted
    }
    if (this.stream !== controller) return;
    this.stream = null;
    this.ended = true;
    if (this.options.follow) {
      show();
      out.append(h("span", { class: "logs-note", text: t("log_run_ended") }));
    }
  }
}
