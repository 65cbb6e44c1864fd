// The flow panel: the diagram, the caption of the current step, the 13-step list (both
// languages), pace, step mode with Next/Continue, replay, and the trace picker.

import { $, BOOT, LANG, clear, h, t } from "./dom.js";
import { FlowDiagram } from "./flow_diagram.js";

const PAST_ARROWS = 3;
const collator = new Intl.Collator(undefined, { numeric: true });

// A step's caption in the page's language, whatever shape the server sent it in.
function stepText(step, field) {
  const zh = step[`${field}_zh`];
  const en = step[`${field}_en`];
  const value = step[field];
  if (LANG === "zh" && zh) return zh;
  if (en) return en;
  if (value && typeof value === "object") return value[LANG] || value.en || "";
  return value || "";
}

export class FlowView {
  constructor(store, live) {
    this.store = store;
    this.live = live;
    this.diagram = new FlowDiagram($("flow-diagram"));
    this.selected = ""; // "" follows the newest trace
    this.replay = null; // {trace, index, timer}
    this.frame = 0;
    this.buildLegend();
    this.bindControls();
    store.subscribe((change) => {
      if (change.type === "step" && this.selected === "" && !this.replay) this.following = change.trace;
      if (["snapshot", "step", "settings", "exec"].includes(change.type) || change.kind === "Node") this.schedule();
    });
  }

  schedule() {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.render());
  }

  buildLegend() {
    const list = $("step-list");
    this.items = new Map();
    for (const step of BOOT.steps) {
      const primary = LANG === "zh" ? step.zh : step.en;
      const secondary = LANG === "zh" ? step.en : step.zh;
      const item = h("li", { class: "step is-todo", "data-step": String(step.step) },
        h("span", { class: "step-num", text: String(step.step) }),
        h("span", { class: "step-body" },
          h("span", { class: "step-title", text: primary }),
          h("span", { class: "step-alt", lang: LANG === "zh" ? "en" : "zh-Hans", text: secondary }),
          h("span", { class: "step-note" })),
        h("span", { class: "step-count" }));
      this.items.set(step.step, item);
      list.append(item);
    }
  }

  bindControls() {
    const pace = $("pace");
    const out = $("pace-out");
    const show = () => { out.textContent = Number(pace.value) === 0 ? t("pace_fast") : `${pace.value} ms`; };
    pace.addEventListener("input", show);
    pace.addEventListener("change", () => {
      this.store.paceMs = Number(pace.value);
      this.live.send({ action: "pace", pace_ms: Number(pace.value) });
    });
    $("step-mode").addEventListener("change", (event) => {
      this.store.stepMode = event.target.checked;
      this.live.send({ action: "step_mode", on: event.target.checked });
      this.schedule();
    });
    $("next-step").addEventListener("click", () => this.next());
    $("continue").addEventListener("click", () => {
      this.live.send({ action: "continue" });
      this.store.stepMode = false;
      $("step-mode").checked = false;
      this.schedule();
    });
    $("replay").addEventListener("click", () => this.startReplay());
    $("trace-select").addEventListener("change", (event) => {
      this.selected = event.target.value;
      this.stopReplay();
      this.schedule();
    });
    show();
  }

  next() {
    const trace = this.currentTrace();
    if (trace && this.store.stepMode) this.live.send({ action: "next", trace: trace.id });
  }

  currentTrace() {
    if (this.selected) return this.store.traces.get(this.selected) || null;
    if (this.following && this.store.traces.has(this.following)) return this.store.traces.get(this.following);
    let newest = null;
    for (const trace of this.store.traces.values()) newest = trace;
    return newest;
  }

  startReplay() {
    const trace = this.currentTrace();
    if (!trace || !trace.steps.length) return;
    this.stopReplay();
    const delay = Math.max(450, Math.min(this.store.paceMs || 600, 1500));
    this.replay = { trace: trace.id, index: 0, timer: 0 };
    const tick = () => {
      this.render();
      if (this.replay.index >= trace.steps.length - 1) {
        this.replay.timer = setTimeout(() => { this.replay = null; this.render(); }, delay * 2);
        return;
      }
      this.replay.index += 1;
      this.replay.timer = setTimeout(tick, delay);
    };
    tick();
  }

  stopReplay() {
    if (this.replay) clearTimeout(this.replay.timer);
    this.replay = null;
  }

  render() {
    this.frame = 0;
    this.diagram.setNodes([...this.store.nodes.keys()].sort(collator.compare));
    this.renderPicker();
    if (document.activeElement !== $("pace")) {
      $("pace").value = String(this.store.paceMs);
      $("pace").dispatchEvent(new Event("input"));
    }
    $("step-mode").checked = this.store.stepMode;
    const trace = this.currentTrace();
    const steps = trace ? (this.replay ? trace.steps.slice(0, this.replay.index + 1) : trace.steps) : [];
    const finished = Boolean(trace && (trace.finished_at || trace.finished));
    $("next-step").disabled = !(this.store.stepMode && trace && !finished);
    $("continue").disabled = !this.store.stepMode;
    $("replay").disabled = !(trace && trace.steps.length);
    // Redraw (and so re-animate) only when the step shown changes, not on every node heartbeat.
    this.renderExecStory(trace);
    const shown = [trace ? trace.id : "", steps.length, this.replay ? this.replay.index : -1,
      this.store.stepMode, finished, this.diagram.nodesKey].join("|");
    if (shown === this.shown) return;
    this.shown = shown;
    this.renderDiagram(steps);
    this.renderCaption(trace, steps, finished);
    this.renderList(steps);
  }

  // The pod's story goes on after step 13: every `kubectl exec` into the trace's pods, listed
  // apart from the steps (an exec changes no object and wakes no controller).
  renderExecStory(trace) {
    const pods = new Set();
    if (trace && trace.kind === "Pod") pods.add(`${trace.namespace || "default"}/${trace.name}`);
    for (const step of trace ? trace.steps : []) {
      const obj = step.object || {};
      if (obj.kind === "Pod" && obj.name) pods.add(`${obj.namespace || "default"}/${obj.name}`);
    }
    const sessions = [...pods].flatMap((key) => this.store.execsInto(key)).sort((a, b) => a.id - b.id);
    const signature = sessions.map((s) => `${s.id}:${s.closed_at || ""}`).join(",");
    if (signature === this.execSignature) return;
    this.execSignature = signature;
    $("exec-story").hidden = !sessions.length;
    const list = clear($("exec-story-list"));
    for (const s of sessions) {
      const time = (s.opened_at || "").slice(11, 19);
      const line = `kubectl exec ${s.tty ? "-it " : ""}${s.pod} -c ${s.container} -- ${s.command.join(" ")}`;
      let state = t("exec_open");
      if (s.closed_at) state = s.exit_code === null ? t("exec_disconnected") : `${t("exec_exited")} ${s.exit_code}`;
      list.append(h("li", { class: `exec-item${s.closed_at ? "" : " is-open"}` },
        h("span", { class: "exec-time", text: time }),
        h("code", { class: "exec-cmd", text: line }),
        h("span", { class: "exec-who", text: `${s.client} · ${s.user}` }),
        h("span", { class: "exec-state", text: state })));
    }
  }

  renderPicker() {
    const select = $("trace-select");
    const traces = [...this.store.traces.values()].reverse();
    const signature = traces.map((tr) => `${tr.id}:${tr.finished_at ? 1 : 0}`).join(",");
    if (signature === this.pickerSignature) return;
    this.pickerSignature = signature;
    clear(select).append(h("option", { value: "", text: t("follow_latest") }));
    for (const trace of traces) {
      const what = `${trace.kind || ""} ${trace.namespace ? `${trace.namespace}/` : ""}${trace.name || ""}`.trim();
      const verb = trace.verb ? ` · ${trace.verb}` : "";
      const label = `${what}${verb}${trace.client ? ` · ${trace.client}` : ""} (${trace.finished_at ? t("finished") : t("running")})`;
      select.append(h("option", { value: trace.id, text: label }));
    }
    select.value = this.store.traces.has(this.selected) ? this.selected : "";
  }

  renderDiagram(steps) {
    this.diagram.clearLit();
    const recent = steps.slice(-PAST_ARROWS - 1);
    recent.forEach((step, i) => this.diagram.showStep(step, i === recent.length - 1));
  }

  renderCaption(trace, steps, finished) {
    const box = clear($("flow-caption"));
    if (!trace || !steps.length) {
      box.append(h("p", { class: "caption-empty", text: t("no_trace") }));
      return;
    }
    const step = steps[steps.length - 1];
    const title = stepText(step, "title") || (BOOT.steps[step.step - 1] || {})[LANG] || "";
    const detail = stepText(step, "detail");
    const obj = step.object || {};
    const who = [step.actor, step.node ? `@${step.node}` : "", obj.name ? `· ${obj.kind || ""} ${obj.name}` : ""].join(" ").trim();
    box.append(
      h("div", { class: `caption${step.skipped ? " is-skipped" : ""}` },
        h("span", { class: "caption-num", text: String(step.step) }),
        h("div", { class: "caption-text" },
          h("div", { class: "caption-title" }, title, step.skipped ? h("span", { class: "badge badge-skip", text: t("skipped") }) : null),
          detail ? h("div", { class: "caption-detail", text: detail }) : null,
          h("div", { class: "caption-meta", text: `${who}${step.revision ? ` · rev ${step.revision}` : ""}` }))),
    );
    if (this.replay) box.append(h("div", { class: "caption-flag", text: `${t("replaying")} · ${this.replay.index + 1}/${trace.steps.length}` }));
    else if (this.store.stepMode && !finished) box.append(h("div", { class: "caption-flag caption-wait", text: `⏸ ${t("waiting_next")}` }));
  }

  renderList(steps) {
    const done = new Map();
    const skipped = new Map();
    for (const step of steps) {
      if (step.skipped) skipped.set(step.step, stepText(step, "detail") || stepText(step, "title"));
      else done.set(step.step, (done.get(step.step) || 0) + 1);
    }
    const current = steps.length ? steps[steps.length - 1].step : 0;
    let previousNote = "";
    for (const [number, item] of this.items) {
      let state = "is-todo";
      if (skipped.has(number) && !done.has(number)) state = "is-skipped";
      else if (done.has(number)) state = "is-done";
      if (number === current) state += " is-current";
      item.className = `step ${state}`;
      // A run of steps skipped for one reason states it once.
      const note = skipped.has(number) && !done.has(number) ? skipped.get(number) : "";
      item.querySelector(".step-note").textContent = !note ? "" : note === previousNote ? `${t("skipped")} ↑` : `${t("skipped")}: ${note}`;
      previousNote = note;
      const count = done.get(number) || 0;
      item.querySelector(".step-count").textContent = count > 1 ? `×${count}` : "";
      if (number === current) item.setAttribute("aria-current", "step");
      else item.removeAttribute("aria-current");
    }
  }
}
