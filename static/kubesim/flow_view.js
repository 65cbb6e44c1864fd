// The flow panel: the diagram, the caption of the current step, the 13-step list (both
// languages), pace, step mode with Next/Continue, replay (with the cluster as it was), and the
// trace picker.
//
// One trace at a time: the picked one, or the newest. Inside a trace that creates several pods,
// the view follows one pod's chain (7–13) until it ends; the other pods and traces show as counts
// beside the step each one is at, so the highlight only ever moves forward.

import { $, BASE, BOOT, LANG, clear, framed, h, heldClass, pick, request, t } from "./dom.js";
import { FlowDiagram } from "./flow_diagram.js";
import { icon } from "./icons.js";
import { Store, fetchSteps } from "./store.js";

const PAST_ARROWS = 3;
const REDRAW_MS = 100;
// At pace 0 (a burst's steps come by the hundred a second) the view redraws four times a second.
const FAST_REDRAW_MS = 250;
// How long a step's arrow draws and its packet travels (kubesim.css .arrow-current, the packet's
// animateMotion): steps shown sooner than this after the one before are drawn still.
const STEP_ANIMATION_MS = 700;
const collator = new Intl.Collator(undefined, { numeric: true });

function isFinished(trace) {
  return Boolean(trace && trace.finished_at);
}

export class FlowView {
  constructor(store, live, cluster) {
    this.store = store;
    this.live = live;
    this.cluster = cluster; // the ClusterView, shown at a past revision while replaying
    this.diagram = new FlowDiagram($("flow-diagram"), $("flow-overlay"));
    this.selected = ""; // "" follows
    this.pods = new Map(); // trace id -> the pod whose chain is followed in it
    this.replay = null; // {trace, steps, index, timer, playing}
    this.past = new Map(); // revision -> Store of the cluster then (or null: compacted)
    // At a pace faster than REDRAW_MS between steps nobody reads each caption: the view keeps up
    // a few times a second. Step mode and slower paces show every step.
    this.schedule = framed(() => this.render(), () => {
      if (this.store.stepMode || this.store.paceMs >= REDRAW_MS) return 0;
      return this.store.paceMs > 0 ? REDRAW_MS : FAST_REDRAW_MS;
    });
    this.holdBrisk = heldClass($("flow-panel"), "is-brisk", STEP_ANIMATION_MS);
    this.shownAt = -Infinity;
    this.buildLegend();
    this.bindControls();
    store.subscribe((change) => {
      if (["snapshot", "step", "settings", "exec"].includes(change.type) || change.kind === "Node") this.schedule();
      if (change.kind === "Endpoints") this.renderEndpointsLane(this.shownTrace);
    });
  }

  buildLegend() {
    const list = $("step-list");
    this.items = new Map();
    for (const step of BOOT.steps) {
      const primary = pick(step.title);
      const secondary = step.title[LANG === "zh" ? "en" : "zh"];
      const item = h("li", { class: "step is-todo", "data-step": String(step.step), title: `${step.step}. ${primary} · ${secondary}` },
        h("span", { class: "step-num", text: String(step.step) }),
        h("span", { class: "step-body" },
          h("span", { class: "step-line" },
            h("span", { class: "step-title", text: primary }),
            h("span", { class: "step-alt", lang: LANG === "zh" ? "en" : "zh-Hans", text: secondary })),
          h("span", { class: "step-note" })),
        h("span", { class: "step-count" }, h("span", { class: "step-times" }), h("span", { class: "step-others" })));
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
    // Continue: the traces in flight run to their end at the pace; step mode stays as it is.
    $("continue").addEventListener("click", () => this.live.send({ action: "continue" }));
    $("replay").addEventListener("click", () => this.startReplay());
    $("replay-exit").addEventListener("click", () => this.stopReplay());
    $("replay-scrub").addEventListener("input", (event) => this.seek(Number(event.target.value)));
    $("trace-select").addEventListener("change", (event) => {
      this.selected = event.target.value;
      this.stopReplay();
      this.schedule();
    });
    show();
  }

  next() {
    const trace = this.currentTrace();
    if (trace && this.store.stepMode && !isFinished(trace)) this.live.send({ action: "next", trace: trace.id });
  }

  // The picked trace, else the newest one: a trace that steps elsewhere meanwhile shows as a count
  // beside its step, it does not take the view over.
  currentTrace() {
    const traces = this.store.traces;
    if (this.selected) return traces.get(this.selected) || null;
    let newest = null;
    for (const trace of traces.values()) newest = trace;
    return newest;
  }

  // The steps of `trace` the view follows: the trace's own, and one pod's chain. The store keeps
  // both sorted as steps arrive (store.js addStep), so this costs the same for 1 or 1,000 pods.
  lane(trace) {
    const chains = trace.chains;
    let followed = this.pods.get(trace.id);
    if (!chains.has(followed) || chains.get(followed).ended) {
      // Keep a pod until its chain ends; then the earliest one whose chain has not.
      const next = trace.live.values().next().value;
      if (next) followed = next;
      else if (!chains.has(followed)) followed = trace.lastChain;
      this.pods.set(trace.id, followed);
    }
    const chain = followed ? chains.get(followed) : null;
    const mine = chain ? chain.steps : [];
    const steps = [...trace.own, ...mine].sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
    const others = new Map(trace.at); // step -> how many other pods (and traces) are at it
    if (chain && !chain.ended) {
      const at = mine[mine.length - 1].step;
      if (others.get(at) > 1) others.set(at, others.get(at) - 1);
      else others.delete(at);
    }
    for (const other of this.store.traces.values()) {
      if (other === trace || isFinished(other) || !other.steps.length) continue;
      const at = other.steps[other.steps.length - 1].step;
      others.set(at, (others.get(at) || 0) + 1);
    }
    return { steps, others };
  }

  // ---- replay: the trace's steps again, with the cluster as it was at each step's revision ----
  async startReplay() {
    let trace = this.currentTrace();
    if (!trace || !trace.steps.length) return;
    this.stopReplay(false);
    if ((trace.steps_total || 0) > trace.steps.length) {
      // The snapshot carried the first and the newest steps of this long trace: fetch the others.
      await fetchSteps(BASE, request, trace);
      trace = this.store.traces.get(trace.id) || trace;
    }
    const { steps } = this.lane(trace);
    this.replay = { trace: trace.id, steps, index: 0, timer: 0, playing: true };
    document.body.classList.add("is-replaying");
    $("flow-panel").classList.add("is-replaying");
    $("replay-bar").hidden = false;
    const scrub = $("replay-scrub");
    scrub.max = String(steps.length - 1);
    scrub.value = "0";
    const delay = Math.max(600, Math.min(this.store.paceMs || 900, 1500));
    const tick = () => {
      if (!this.replay) return;
      this.showReplayStep();
      if (this.replay.index >= this.replay.steps.length - 1) {
        this.replay.playing = false;
        return;
      }
      this.replay.timer = setTimeout(() => {
        if (!this.replay || !this.replay.playing) return;
        this.replay.index += 1;
        tick();
      }, delay);
    };
    tick();
  }

  seek(index) {
    if (!this.replay) return;
    clearTimeout(this.replay.timer);
    this.replay.playing = false;
    this.replay.index = Math.max(0, Math.min(index, this.replay.steps.length - 1));
    this.showReplayStep();
  }

  async showReplayStep() {
    const replay = this.replay;
    const step = replay.steps[replay.index];
    $("replay-scrub").value = String(replay.index);
    $("replay-label").textContent = `${t("replaying")} · ${replay.index + 1}/${replay.steps.length}`;
    $("replay-rev").textContent = step.revision ? `rev ${step.revision}` : "";
    this.render();
    const past = step.revision ? await this.clusterAt(step.revision) : null;
    if (this.replay !== replay || replay.steps[replay.index] !== step) return; // moved on meanwhile
    $("replay-note").hidden = past !== null;
    if (past) this.cluster.showPast(past);
  }

  // The cluster at `revision`, read back from the server's event log (null once compacted away).
  async clusterAt(revision) {
    if (this.past.has(revision)) return this.past.get(revision);
    const result = await request(`${BASE}/snapshot?revision=${revision}&view=page`);
    let past = null;
    if (result.ok && typeof result.data === "object") {
      past = new Store();
      past.loadSnapshot(result.data);
    }
    if (result.ok || result.status === 410) this.past.set(revision, past);
    while (this.past.size > 200) this.past.delete(this.past.keys().next().value);
    return past;
  }

  stopReplay(redraw = true) {
    if (!this.replay) return;
    clearTimeout(this.replay.timer);
    this.replay = null;
    document.body.classList.remove("is-replaying");
    $("flow-panel").classList.remove("is-replaying");
    $("replay-bar").hidden = true;
    $("replay-note").hidden = true;
    this.cluster.showLive();
    if (redraw) this.schedule();
  }

  render() {
    this.diagram.setNodes([...this.store.nodes.keys()].sort(collator.compare));
    this.renderPicker();
    if (document.activeElement !== $("pace")) {
      $("pace").value = String(this.store.paceMs);
      $("pace").dispatchEvent(new Event("input"));
    }
    $("step-mode").checked = this.store.stepMode;
    const replaying = this.replay ? this.store.traces.get(this.replay.trace) : null;
    const trace = replaying || this.currentTrace();
    let steps = [];
    let others = new Map();
    if (this.replay) steps = this.replay.steps.slice(0, this.replay.index + 1);
    else if (trace) ({ steps, others } = this.lane(trace));
    const finished = isFinished(trace);
    // A trace whose last step waits for the cluster to change (no node fits) cannot be stepped.
    const lastStep = trace && trace.steps.length ? trace.steps[trace.steps.length - 1] : null;
    const parked = Boolean(lastStep && lastStep.waiting);
    $("next-step").disabled = !(this.store.stepMode && trace && !finished && !parked);
    $("continue").disabled = !this.store.stepMode;
    $("replay").disabled = !(trace && trace.steps.length);
    // Redraw (and so re-animate) only when the step shown changes, not on every node heartbeat.
    this.renderExecStory(trace);
    this.shownTrace = trace;
    this.renderEndpointsLane(trace);
    const last = steps[steps.length - 1];
    const shown = [trace ? trace.id : "", steps.length, last ? `${last.seq}:${last.step}` : "", this.replay ? this.replay.index : -1,
      this.store.stepMode, finished, parked, this.diagram.nodesKey, [...others].join(",")].join("|");
    if (shown === this.shown) return;
    this.shown = shown;
    const now = performance.now();
    const brisk = now - this.shownAt < STEP_ANIMATION_MS;
    this.shownAt = now;
    if (brisk) this.holdBrisk();
    this.renderDiagram(steps, brisk);
    this.renderCaption(trace, steps, finished || parked);
    this.renderList(steps, others);
  }

  // The pod's story goes on after step 13: every `kubectl exec` into the trace's pods, listed
  // apart from the steps (an exec changes no object and wakes no controller).
  renderExecStory(trace) {
    const pods = new Set(trace ? trace.pods : []);
    if (trace && trace.kind === "Pod") pods.add(`${trace.namespace || "default"}/${trace.name}`);
    const sessions = this.store.execSessions.size
      ? [...this.store.execSessions.values()].filter((s) => pods.has(`${s.namespace}/${s.pod}`)).sort((a, b) => a.id - b.id)
      : [];
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

  // Beside the 13 steps, unnumbered: the endpoints controller's writes that concern this trace's
  // pods (seen live since the page loaded), e.g. a pod's IP joining its Service once Ready.
  renderEndpointsLane(trace) {
    // The trace's pods as the store keeps them (never a walk over a thousand-pod trace's steps).
    const own = trace && trace.kind === "Pod" ? `${trace.namespace || "default"}/${trace.name}` : null;
    const pods = { has: (key) => key === own || Boolean(trace && trace.pods.has(key)) };
    const entries = this.store.endpointChanges
      .map((entry) => ({ ...entry, changes: entry.changes.filter((c) => pods.has(`${entry.namespace}/${c.pod}`)) }))
      .filter((entry) => entry.changes.length);
    const signature = `${trace ? trace.id : ""}|${entries.map((e) => e.revision).join(",")}`;
    if (signature === this.endpointsSignature) return;
    this.endpointsSignature = signature;
    $("endpoints-lane").hidden = !entries.length;
    const list = clear($("endpoints-lane-list"));
    // The newest three, one line each (the whole line in the tooltip): the steps keep the room.
    for (const entry of entries.slice(-3)) {
      const changes = entry.changes.map((c) => `${c.change === "removed" ? "−" : "+"}${c.ip} (${c.pod}) ${t(`ep_${c.change}`)}`);
      const counts = t("ep_counts", { ready: entry.ready, not_ready: entry.notReady });
      const line = `rev ${entry.revision} · Endpoints ${entry.namespace}/${entry.name} ${changes.join(", ")} · ${counts}`;
      list.append(h("li", { class: "ep-item", title: line },
        h("span", { class: "exec-time", text: `rev ${entry.revision}` }),
        h("code", { class: "ep-what", text: `Endpoints ${entry.namespace}/${entry.name}` }),
        ...entry.changes.map((c) => h("span", { class: `ep-change is-${c.change}`, text: changes[entry.changes.indexOf(c)] })),
        h("span", { class: "ep-counts", text: counts })));
    }
  }

  renderPicker() {
    const select = $("trace-select");
    const traces = [...this.store.traces.values()].reverse();
    const signature = traces.map((tr) => `${tr.id}:${tr.finished_at ? 1 : 0}:${tr.ending ? tr.ending.outcome : ""}`).join(",");
    if (signature === this.pickerSignature) return;
    this.pickerSignature = signature;
    clear(select).append(h("option", { value: "", text: t("follow_latest") }));
    for (const trace of traces) {
      const what = `${trace.kind || ""} ${trace.namespace ? `${trace.namespace}/` : ""}${trace.name || ""}`.trim();
      const verb = trace.verb ? ` · ${trace.verb}` : "";
      const state = trace.ending ? t(`ended_${trace.ending.outcome}`) : trace.finished_at ? t("finished") : t("running");
      const label = `${what}${verb}${trace.client ? ` · ${trace.client}` : ""} (${state})`;
      select.append(h("option", { value: trace.id, text: label }));
    }
    select.value = this.store.traces.has(this.selected) ? this.selected : "";
  }

  renderDiagram(steps, still) {
    this.diagram.clearLit();
    const recent = steps.slice(-PAST_ARROWS - 1);
    recent.forEach((step, i) => this.diagram.showStep(step, i === recent.length - 1, still));
  }

  renderCaption(trace, steps, finished) {
    const box = clear($("flow-caption"));
    if (!trace || !steps.length) {
      box.append(h("p", { class: "caption-empty", text: t("no_trace") }));
      return;
    }
    const step = steps[steps.length - 1];
    const title = pick(step.title) || pick((BOOT.steps[step.step - 1] || {}).title);
    const detail = pick(step.detail);
    const obj = step.object || {};
    const who = [step.actor, step.node ? `@${step.node}` : "", obj.name ? `· ${obj.kind || ""} ${obj.name}` : ""].join(" ").trim();
    box.append(
      h("div", { class: `caption${step.skipped ? " is-skipped" : ""}${step.step === 0 ? ` is-ending is-${step.outcome}` : ""}` },
        h("span", { class: "caption-num", text: step.step === 0 ? t("ended") : String(step.step) }),
        h("div", { class: "caption-text" },
          h("div", { class: "caption-title" }, title, step.skipped ? h("span", { class: "badge badge-skip", text: t("skipped") }) : null),
          detail ? h("div", { class: "caption-detail", text: detail, title: detail }) : null,
          h("div", { class: "caption-meta", text: `${who}${step.revision ? ` · rev ${step.revision}` : ""}` }))),
    );
    if (!this.replay && step.waiting) {
      box.append(h("div", { class: "caption-flag caption-parked", text: t("waiting_cluster") }));
    } else if (!this.replay && this.store.stepMode && !finished) {
      box.append(h("div", { class: "caption-flag caption-wait" }, icon("pause"), ` ${t("waiting_next")}`));
    }
  }

  renderList(steps, others) {
    const done = new Map();
    const skipped = new Map();
    for (const step of steps) {
      if (step.skipped) skipped.set(step.step, pick(step.detail) || pick(step.title));
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
      const noteBox = item.querySelector(".step-note");
      noteBox.textContent = !note ? "" : note === previousNote ? `${t("skipped")} ↑` : `${t("skipped")}: ${note}`;
      noteBox.title = note;
      previousNote = note;
      const count = done.get(number) || 0;
      item.querySelector(".step-times").textContent = count > 1 ? `×${count}` : "";
      const elsewhere = others.get(number) || 0;
      const badge = item.querySelector(".step-others");
      badge.textContent = elsewhere ? `+${elsewhere}` : "";
      badge.title = elsewhere ? t("others_here", { n: elsewhere }) : "";
      if (number === current) item.setAttribute("aria-current", "step");
      else item.removeAttribute("aria-current");
    }
  }
}
