// The flow panel: the diagram, the caption of the current step, the 13-step list (both
// languages), pace, step mode with Next/Continue, replay (with the cluster as it was), and the
// trace picker.
//
// One story at a time: the picked trace, or, when following, each story the page saw begin told
// to its end in the order they began (a drain's evictions, then their replacement) before the
// next; a story that waits for the cluster (no node fits) or rests lets the next one be told
// and is told on from where it stopped when it moves again. The story goes forward one step
// number at a time, the ending last: a workload's replicas go through a step together (the
// server's gate moves them so), so one caption names all its pods and their nodes. Clicking a
// pod follows that pod alone. Steps that come faster than a caption can be read (a step 13 and
// the ending written together) are still each captioned, for HOLD_MS at least; other traces show
// as counts beside the step each one is at, so the highlight only ever moves forward.

import { $, BASE, BOOT, LANG, clear, framed, h, heldClass, pick, request, t } from "./dom.js";
import { FlowDiagram } from "./flow_diagram.js";
import { icon } from "./icons.js";
import { sessionCommand } from "./session_command.js";
import { Store, fetchSteps } from "./store.js";

const PAST_ARROWS = 3;
const REDRAW_MS = 100;
// At pace 0 (a burst's steps come by the hundred a second) the view redraws four times a second.
const FAST_REDRAW_MS = 250;
// How long a step's arrow draws and its packet travels (kubesim.css .arrow-current, the packet's
// animateMotion): steps shown sooner than this after the one before are drawn still.
const STEP_ANIMATION_MS = 700;
const collator = new Intl.Collator(undefined, { numeric: true });
// How long each step of a story stays captioned at least (with a pace, or in step mode).
const HOLD_MS = 450;
// The same while other stories wait to be told after this one: it catches up.
const CATCHUP_MS = 300;
// A story told up to its newest step, that has not moved for this long and does not wait for
// Next, lets a story waiting behind it be told (a pod stuck pulling its image holds no one up).
const REST_MS = 2500;
// A story's ending stays captioned this long at least before the next story is told.
const ENDING_MS = 1200;
// At most this many stories wait to be told; the view skips the oldest beyond it, and says so.
const MAX_QUEUED = 6;
// Walks remembered: a story shown again goes on from where it stopped.
const MAX_WALKS = 60;
// The ending's place in a story: after step 13.
const ENDING = 14;
// A caption names this many pods of a step at most, then "+N more".
const NAMED_PODS = 6;

const DELETIONS = new Set(["delete", "evict", "preempt"]);

// A trace named in a link: "evict Pod default/nginx-abc", "ReplicationController default/nginx".
function traceLabel(trace) {
  const what = `${trace.kind || ""} ${trace.namespace ? `${trace.namespace}/` : ""}${trace.name || ""}`.trim();
  return DELETIONS.has(trace.verb) ? `${trace.verb} ${what}` : what;
}

function isFinished(trace) {
  return Boolean(trace && trace.finished_at);
}

// When the trace began, as the clock on the wall reads it.
function traceTime(trace) {
  const when = trace.created_at || (trace.steps[0] || {}).ts;
  return when ? new Date(when).toLocaleTimeString(LANG === "zh" ? "zh-CN" : "en-GB", { hour12: false }) : "";
}

// The verb asked (create, apply, patch, delete, …): the snapshot's, else what step 2 says was sent
// ("kubectl sends POST (create) for …", cluster/flow/texts.py request_sent).
function traceVerb(trace) {
  if (trace.verb) return trace.verb;
  const sent = trace.steps.find((step) => step.step === 2);
  const found = sent ? /[(（](\w+)[)）]/.exec(pick(sent.detail) || "") : null;
  return found ? found[1] : "";
}

export class FlowView {
  constructor(store, live, cluster, hooks = {}) {
    this.store = store;
    this.hooks = hooks; // openScheduler(key): the Scheduler panel on a pod
    this.live = live;
    this.cluster = cluster; // the ClusterView, shown at a past revision while replaying
    this.diagram = new FlowDiagram($("flow-diagram"), $("flow-overlay"));
    this.selected = ""; // "" follows
    this.pod = null; // {trace, key}: the pod the user clicked, followed alone
    this.walk = null; // the walk shown now: {key, shown, at, …}, the step number captioned and since when
    this.walks = new Map(); // key -> its walk: a story shown again goes on from where it stopped
    this.told = ""; // following: the trace being told
    this.behind = 0; // following: how many stories wait to be told after it
    this.skipped = new Set(); // following: stories skipped to keep up (the picker lists them)
    this.skipNote = null; // {trace, n}: the note on the story told after a skip
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
      this.pick(event.target.value);
      this.pod = null;
      this.stopReplay();
      this.schedule();
    });
    show();
  }

  // Next (the button and the N key): only while a step of the followed trace waits at the gate,
  // as the server says (`gate_step`), which is also when the server accepts it.
  canStep(trace) {
    return Boolean(this.store.stepMode && trace && !isFinished(trace) && trace.gate_step > 0 && !this.replay);
  }

  next() {
    const trace = this.currentTrace();
    if (this.canStep(trace)) this.live.send({ action: "next", trace: trace.id });
  }

  // A pod clicked in the cluster: the flow follows that pod's story (its trace, its steps alone).
  followPod(key) {
    let found = null;
    for (const trace of this.store.traces.values()) if (trace.pods.has(key)) found = trace;
    if (!found) return false;
    this.stopReplay(false);
    this.pick(found.id);
    const [namespace, name] = key.split("/");
    const chain = `Pod/${namespace}/${name}`;
    this.pod = found.chains.has(chain) ? { trace: found.id, key: chain, name } : null;
    this.schedule();
    return true;
  }

  // The trace picked ("" follows): the store keeps it while it is picked, whatever snapshot lands.
  pick(id) {
    this.selected = id;
    this.store.keep = id;
  }

  // The picked trace, else the story being told (follow()).
  currentTrace() {
    if (this.selected) return this.store.traces.get(this.selected) || null;
    return this.follow();
  }

  // Following: the story being told until it is told to its end or rests (waits for the cluster,
  // or has not moved for REST_MS and waits for no Next), then the oldest story with something
  // not yet told (one the page saw begin, or one that moved on since it rested). Never a switch
  // in the middle of a story that is moving, so no story's caption goes back. Behind by more
  // than MAX_QUEUED stories, the oldest are skipped with a note (the picker lists them). At pace
  // 0 nobody reads a caption: the newest story.
  follow() {
    const traces = this.store.traces;
    let newest = null;
    for (const trace of traces.values()) newest = trace;
    const told = traces.get(this.told) || null;
    if (!this.store.stepMode && this.store.paceMs === 0) {
      this.told = newest ? newest.id : "";
      this.behind = 0;
      return newest;
    }
    let queue = this.queued(told);
    this.behind = queue.length;
    if (told && !this.rests(told)) return told;
    if (queue.length > MAX_QUEUED) {
      const skip = queue.length - MAX_QUEUED;
      for (const id of this.skipped) if (!traces.has(id)) this.skipped.delete(id);
      for (const trace of queue.slice(0, skip)) this.skipped.add(trace.id);
      queue = queue.slice(skip);
      this.skipNote = { trace: queue[0].id, n: skip };
    }
    const next = queue[0] || told || newest;
    this.behind = Math.max(0, queue.length - 1);
    this.told = next ? next.id : "";
    return next;
  }

  // The stories with something not told yet, oldest first, besides `told`: one the page saw begin
  // and has not shown, one shown before that has moved on since, or one waiting for Next.
  queued(told) {
    const found = [];
    for (const trace of this.store.traces.values()) {
      if (trace === told || this.skipped.has(trace.id)) continue;
      const walk = this.walks.get(`${trace.id}|`);
      const news = walk ? walk.shown !== ENDING && this.story(trace).stages.at(-1) > walk.shown : trace.seenLive;
      if (news || this.canStep(trace)) found.push(trace);
    }
    return found;
  }

  // The story told so far has been told to its end, or rests: it waits for the cluster to change,
  // or it is told up to its newest step, has not moved for REST_MS and no step of it waits for
  // Next. Its last caption has been up long enough to be read either way.
  rests(trace) {
    return this.restsIn(trace) === 0;
  }

  // How long until the story rests (ms; Infinity: not while it moves or waits for Next).
  restsIn(trace) {
    const walk = this.walks.get(`${trace.id}|`);
    if (!walk) return Infinity;
    if (walk.shown < walk.target || this.canStep(trace)) return Infinity;
    if (!trace.seenLive) return 0; // met midway: nothing of it waits to be read
    const now = performance.now();
    const last = trace.steps.at(-1);
    const read = walk.shown === ENDING ? ENDING_MS : this.holdMs();
    const left = walk.shown === ENDING || (last && last.waiting) ? read - (now - walk.at) : Math.max(read - (now - walk.at), REST_MS - (now - walk.grew));
    return Math.max(0, left);
  }

  // How long each step is captioned at least: none at pace 0 (nobody reads it), shorter while
  // other stories wait to be told.
  holdMs() {
    if (!this.store.stepMode && this.store.paceMs === 0) return 0;
    return !this.selected && this.behind ? CATCHUP_MS : HOLD_MS;
  }

  // The stories this trace follows from and leads to (FlowTrace.causes): an eviction and its
  // replacement, a preemptor and its victims' deletions. Each a link that shows that story.
  links(trace) {
    if (!trace) return [];
    const traces = this.store.traces;
    const found = [];
    for (const id of trace.causes || []) {
      const key = trace.verb === "preempt" ? "link_preempted_by" : trace.verb === "replace" ? "link_replaces" : "link_follows";
      found.push([id, key]);
    }
    for (const other of traces.values()) {
      if (!(other.causes || []).includes(trace.id)) continue;
      found.push([other.id, other.verb === "preempt" ? "link_victim" : other.verb === "replace" ? "link_replacement" : "link_led_to"]);
    }
    return found.map(([id, key]) => {
      const other = traces.get(id);
      if (!other) return h("span", { class: "caption-link is-gone", text: t(key, { what: t("link_gone") }) });
      return h("button", { type: "button", class: "linkish caption-link", "data-trace": id, text: `${t(key, { what: traceLabel(other) })} ↗`,
        onclick: () => this.show(id) });
    });
  }

  // Show another trace's story (a link in the caption): as picking it in the trace picker.
  show(id) {
    this.pick(id);
    this.pod = null;
    this.stopReplay(false);
    this.schedule();
  }

  // The story of `trace` the view tells: its own steps and its pods' (or the one pod clicked),
  // one stage per step number in the course's order, the ending last. The store keeps the steps
  // sorted by number as they arrive (store.js addStep): this costs the same for 1 or 1,000 pods.
  story(trace) {
    const pod = this.pod && this.pod.trace === trace.id && trace.chains.has(this.pod.key) ? this.pod.key : null;
    const chain = pod ? trace.chains.get(pod).steps : [];
    const numbers = new Set();
    for (const step of trace.own) if (step.step > 0) numbers.add(step.step);
    if (pod) {
      for (const step of chain) if (step.step > 0) numbers.add(step.step);
    } else {
      for (const n of trace.byStep.keys()) numbers.add(n);
    }
    const stages = [...numbers].sort((a, b) => a - b);
    // A pod followed alone ends with its own ending (deleted before it started), else the trace's.
    const podEnd = pod ? chain.find((step) => step.step === 0) : null;
    const ending = podEnd || (trace.ending && trace.ending.step === 0 ? trace.ending : null);
    if (ending) stages.push(ENDING);
    return { trace, pod, chain, stages, ending };
  }

  // The steps of one stage: the pods at that step (all of them, or the one followed), else the
  // trace's own newest step of that number.
  stage(story, number) {
    if (number === ENDING) return story.ending ? [story.ending] : [];
    const pods = story.pod ? story.chain.filter((step) => step.step === number) : story.trace.byStep.get(number) || [];
    if (pods.length) return story.pod ? [pods[pods.length - 1]] : pods;
    const own = story.trace.own.filter((step) => step.step === number);
    return own.length ? [own[own.length - 1]] : [];
  }

  // The stage captioned now: one step number after the other, each held HOLD_MS at least, so a
  // step that came with the next (13 and the ending) is still read; never back. Each story's walk
  // is kept: shown again, it goes on from where it stopped.
  captioned(story) {
    const { trace, stages } = story;
    const key = `${trace.id}|${story.pod || ""}`;
    const target = stages.length ? stages[stages.length - 1] : 0;
    const now = performance.now();
    let walk = this.walks.get(key);
    if (!walk) {
      // A story that began while the page watched is told from its start; one the page met
      // midway (opened late, picked, a pod clicked) from where it is.
      walk = { key, shown: trace.seenLive ? stages[0] || 0 : target, at: now, size: 0, target, steps: 0, grew: now };
      this.walks.set(key, walk);
      // The oldest go, never the story being told (it would start again from its step 1).
      for (const old of this.walks.keys()) {
        if (this.walks.size <= MAX_WALKS) break;
        if (old !== key && old !== `${this.told}|`) this.walks.delete(old);
      }
    }
    if (this.walk !== walk) {
      walk.at = now; // shown (again): its step is held from now
      this.walk = walk;
    }
    // When the story last moved: a new step number, or a pod joining one (a story that rests
    // lets the next be told).
    if (walk.target !== target || walk.steps !== trace.steps.length) {
      walk.target = target;
      walk.steps = trace.steps.length;
      walk.grew = now;
    }
    const hold = this.holdMs();
    // A pod joining the stage shown (its step came a moment after the others') is read too.
    const size = this.stage(story, walk.shown).length;
    if (size > (walk.size || 0)) {
      if (walk.size) walk.at = now;
      walk.size = size;
    }
    if (walk.shown < target && now - walk.at >= hold) {
      walk.shown = hold ? stages.find((n) => n > walk.shown) : target;
      walk.at = now;
      walk.size = this.stage(story, walk.shown).length;
    }
    clearTimeout(this.walkTimer);
    if (walk.shown < target) this.walkTimer = setTimeout(() => this.schedule(), Math.max(16, hold - (now - walk.at)));
    else if (!this.selected && this.behind) {
      // Told up to its newest step while others wait: look again once it rests.
      const wait = this.restsIn(trace);
      if (wait < Infinity) this.walkTimer = setTimeout(() => this.schedule(), Math.max(16, wait));
    }
    return walk.shown;
  }

  // How many other pods of this trace, and other traces, are at each step (the list's "+N").
  others(story, shown) {
    const others = new Map();
    if (!story.pod) {
      for (const [number, n] of story.trace.at) if (number !== shown) others.set(number, n);
    }
    for (const other of this.store.traces.values()) {
      if (other === story.trace || isFinished(other) || !other.steps.length) continue;
      const at = other.steps[other.steps.length - 1].step;
      others.set(at, (others.get(at) || 0) + 1);
    }
    return others;
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
    // One step a stage: its newest (the cluster then shows every pod of the stage at it).
    const story = this.story(trace);
    const steps = story.stages.map((n) => this.stage(story, n).at(-1)).filter(Boolean);
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
    const story = trace ? this.story(trace) : null;
    let shown = 0;
    if (this.replay) {
      const step = this.replay.steps[this.replay.index];
      shown = step && step.step === 0 ? ENDING : (step ? step.step : 0);
    } else if (story) shown = this.captioned(story);
    const group = story && shown ? this.stage(story, shown) : [];
    const past = story ? story.stages.filter((n) => n < shown).map((n) => this.stage(story, n).at(-1)).filter(Boolean) : [];
    const finished = isFinished(trace);
    // A step after which the trace waits for the cluster to change (no node fits): Next cannot move it.
    const parked = Boolean(story && shown === story.stages.at(-1) && group.some((step) => step.waiting));
    const waits = this.canStep(trace);
    $("next-step").disabled = !waits;
    $("continue").disabled = !this.store.stepMode;
    $("replay").disabled = !(trace && trace.steps.length);
    this.renderExecStory(trace);
    this.shownTrace = trace;
    this.renderEndpointsLane(trace);
    const others = story ? this.others(story, shown) : new Map();
    // Redraw (and so re-animate) only when what is shown changes, not on every node heartbeat.
    const links = this.links(trace);
    const signature = [trace ? trace.id : "", story ? story.pod : "", shown, group.map((step) => step.id ?? step.seq).join(","),
      links.map((link) => `${link.dataset.trace || ""}:${link.textContent}`).join(","),
      this.replay ? this.replay.index : -1, this.store.stepMode, finished, parked, waits, this.diagram.nodesKey,
      [...others].join(","), story ? story.stages.length : 0, this.queueNote(trace)].join("|");
    if (signature === this.shown) return;
    const moved = !this.shown || this.shown.split("|").slice(0, 3).join("|") !== signature.split("|").slice(0, 3).join("|");
    this.shown = signature;
    // What waits for a step to be on screen (prediction.js reveals its answer once step 9 is).
    if (!this.replay && trace) document.dispatchEvent(new CustomEvent("kubesim:flow-shown", { detail: { trace: trace.id, step: shown } }));
    const now = performance.now();
    const brisk = moved && now - this.shownAt < STEP_ANIMATION_MS;
    if (moved) this.shownAt = now;
    if (brisk) this.holdBrisk();
    this.renderDiagram(past, group, brisk || !moved);
    this.renderCaption(trace, story, group, { parked, waits, links, note: this.queueNote(trace) });
    this.renderList(story, shown, others);
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
      const line = sessionCommand(s, true);
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
    const signature = traces.map((tr) => `${tr.id}:${tr.finished_at ? 1 : 0}:${tr.ending ? tr.ending.outcome : ""}:${tr.steps.length > 1}`).join(",");
    if (signature === this.pickerSignature) {
      select.value = this.store.traces.has(this.selected) ? this.selected : "";
      return;
    }
    this.pickerSignature = signature;
    clear(select).append(h("option", { value: "", text: t("follow_latest") }));
    // Each trace by when, what was asked, of what, and how it ended: four applies of one file
    // read apart.
    for (const trace of traces) {
      const what = `${trace.kind || ""} ${trace.namespace ? `${trace.namespace}/` : ""}${trace.name || ""}`.trim();
      const state = trace.ending ? t(`ended_${trace.ending.outcome}`) : trace.finished_at ? t("finished") : t("running");
      // Who asked, when it is a name (kubectl, the web form), not a browser's whole User-Agent.
      const client = trace.client && trace.client.length <= 24 ? trace.client : "";
      const label = [traceTime(trace), traceVerb(trace), what, client, state].filter(Boolean).join(" · ");
      select.append(h("option", { value: trace.id, text: label }));
    }
    select.value = this.store.traces.has(this.selected) ? this.selected : "";
  }

  renderDiagram(past, group, still) {
    this.diagram.clearLit();
    for (const step of past.slice(-PAST_ARROWS)) this.diagram.showStep(step, false, still);
    // The stage's pods on each node they are at (one arrow a node).
    const nodes = new Set();
    for (const step of group) {
      if (nodes.has(step.node || "")) continue;
      nodes.add(step.node || "");
      this.diagram.showStep(step, true, still);
    }
  }

  // Following: the stories skipped to keep up (on the story told after them), and how many wait
  // to be told after this one.
  queueNote(trace) {
    if (this.selected || this.replay || !trace) return "";
    const notes = [];
    if (this.skipNote && this.skipNote.trace === trace.id) notes.push(t("stories_skipped", { n: this.skipNote.n }));
    if (this.behind) notes.push(t("stories_queued", { n: this.behind }));
    return notes.join(" · ");
  }

  renderCaption(trace, story, group, { parked, waits, links = [], note = "" }) {
    const box = clear($("flow-caption"));
    if (!trace || !group.length) {
      box.append(h("p", { class: "caption-empty", text: t("no_trace") }));
      return;
    }
    const step = group[group.length - 1];
    const title = pick(step.title) || pick((BOOT.steps[step.step - 1] || {}).title);
    const detail = pick(step.detail);
    const obj = step.object || {};
    const pods = group.length > 1 ? group : null;
    const who = pods ? step.actor : [step.actor, step.node ? `@${step.node}` : "", obj.name ? `· ${obj.kind || ""} ${obj.name}` : ""].join(" ").trim();
    const named = (pods || []).map((s) => `${(s.object || {}).name}${s.node ? ` → ${s.node}` : ""}`);
    const more = named.length > NAMED_PODS ? ` ${t("more_pods", { n: named.length - NAMED_PODS })}` : "";
    box.append(
      h("div", { class: `caption${step.skipped ? " is-skipped" : ""}${step.step === 0 ? ` is-ending is-${step.outcome}` : ""}`, "data-step": String(step.step), "data-trace": trace.id },
        h("span", { class: "caption-num", text: step.step === 0 ? t("ended") : String(step.step) }),
        h("div", { class: "caption-text" },
          h("div", { class: "caption-title" }, title,
            step.skipped ? h("span", { class: "badge badge-skip", text: t("skipped") }) : null,
            pods ? h("span", { class: "caption-count", text: ` · ${t("pods_at_step", { n: pods.length })}` }) : null),
          pods ? h("div", { class: "caption-pods", text: named.slice(0, NAMED_PODS).join(" · ") + more, title: named.join("\n") }) : null,
          detail ? h("div", { class: "caption-detail", text: detail, title: detail }) : null,
          h("div", { class: "caption-meta", text: `${who}${step.revision ? ` · rev ${step.revision}` : ""}` }))),
    );
    // Step 9 of one pod: the Scheduler panel explains it in full (every node, the preemption).
    if (step.step === 9 && !pods && obj.kind === "Pod" && this.hooks.openScheduler) {
      const key = `${obj.namespace || "default"}/${obj.name}`;
      // On the meta line: the caption keeps its height.
      box.querySelector(".caption-meta").append(" · ", h("button", { type: "button", class: "linkish caption-explain", text: t("why_node"), onclick: () => this.hooks.openScheduler(key) }));
    }
    // On the meta line too: the stories this one follows from and leads to.
    for (const link of links) box.querySelector(".caption-meta").append(" · ", link);
    if (story && story.pod && !this.replay) {
      box.append(h("div", { class: "caption-follow" },
        h("span", { text: t("following_pod", { name: this.pod.name }) }),
        h("button", { type: "button", class: "linkish", text: t("follow_all"), onclick: () => { this.pod = null; this.schedule(); } })));
    }
    // On the meta line too (the caption keeps its height): what the view skipped, what waits.
    if (note) box.querySelector(".caption-meta").append(" · ", h("span", { class: "caption-queue", text: note }));
    if (this.replay) return;
    if (parked) box.append(h("div", { class: "caption-flag caption-parked", text: t("waiting_cluster") }));
    else if (waits) box.append(h("div", { class: "caption-flag caption-wait" }, icon("pause"), ` ${t("waiting_next")}`));
  }

  // Each step: done (×N pods), skipped (why), current or still to come. Done counts are the
  // server's for the whole trace (a page opened late has only some of a long trace's steps).
  renderList(story, shown, others) {
    const done = new Map();
    const skipped = new Map();
    if (story) {
      const { trace } = story;
      const loaded = story.pod ? [...trace.own, ...story.chain] : trace.steps;
      const seen = new Map();
      for (const step of loaded) {
        if (step.step === 0 || step.step > shown) continue;
        if (step.skipped) skipped.set(step.step, pick(step.detail) || pick(step.title));
        else seen.set(step.step, (seen.get(step.step) || 0) + 1);
      }
      for (let number = 1; number <= Math.min(shown, 13); number += 1) {
        const counted = story.pod ? 0 : (trace.counts[number] || 0) - (skipped.has(number) && !seen.has(number) ? trace.counts[number] || 0 : 0);
        const n = Math.max(seen.get(number) || 0, counted);
        if (n) done.set(number, n);
      }
    }
    const current = shown === ENDING ? 0 : shown;
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
