// The page's copy of the cluster: a snapshot, then events applied in revision order.

import { BOOT, KINDS, podKey } from "./dom.js";

const WORKLOAD_KINDS = new Set(KINDS.workloads);
const MAX_TRACES = 30;
const MAX_ENDPOINT_CHANGES = 40;

// An Endpoints object's addresses: "ip" -> {ip, pod, ready}.
function endpointAddresses(endpoints) {
  const found = new Map();
  for (const subset of (endpoints && endpoints.subsets) || []) {
    for (const [field, ready] of [["addresses", true], ["notReadyAddresses", false]]) {
      for (const address of subset[field] || []) {
        found.set(address.ip, { ip: address.ip, pod: (address.targetRef || {}).name || "", ready });
      }
    }
  }
  return found;
}

// What the endpoints controller changed in one write: addresses added, removed or turned
// (not) ready. The flow shows these beside the 13 steps.
function endpointChange(before, after, revision) {
  const was = endpointAddresses(before);
  const now = endpointAddresses(after);
  const changes = [];
  for (const [ip, address] of now) {
    const old = was.get(ip);
    if (!old || old.ready !== address.ready) changes.push({ ...address, change: address.ready ? "ready" : "not_ready" });
  }
  for (const [ip, address] of was) if (!now.has(ip)) changes.push({ ...address, change: "removed" });
  const meta = (after || before).metadata || {};
  const ready = [...now.values()].filter((a) => a.ready).length;
  return { revision, namespace: meta.namespace || "default", name: meta.name, changes, ready, notReady: now.size - ready };
}

function objectKey(obj) {
  const meta = obj.metadata || {};
  return meta.namespace ? `${meta.namespace}/${meta.name}` : meta.name;
}

function stepObject(step) {
  const obj = step.object || {};
  return `${obj.kind || ""}/${obj.namespace || ""}/${obj.name || ""}`;
}

// A step about a pod the trace created (not the trace's own object): it belongs to that pod's chain.
export function isPodStep(trace, step) {
  const obj = step.object || {};
  return obj.kind === "Pod" && !(trace.kind === "Pod" && obj.name === trace.name);
}

// A pod's chain has ended at step 13 (done or skipped) or at its ending entry (step 0: deleted
// before it started).
function ends(step) {
  return step.step >= 13 || step.step === 0;
}

// Insert `step` into `list`, kept in seq order (steps nearly always come in order: a push).
function insertBySeq(list, step) {
  let i = list.length;
  while (i > 0 && (list[i - 1].seq ?? 0) > (step.seq ?? 0)) i -= 1;
  list.splice(i, 0, step);
}

function bump(map, key, by) {
  const n = (map.get(key) || 0) + by;
  if (n > 0) map.set(key, n);
  else map.delete(key);
}

// A trace as the page keeps it. Its steps are indexed by id (a step the snapshot already carried
// may arrive again on the socket), and sorted into the trace's own steps and one chain per pod,
// each kept up to date as steps arrive: drawing a frame never walks a thousand-pod trace.
// `counts`: steps per step number, all of them (the snapshot carries a few steps of a long trace
// with the server's counts; steps with ids up to `countedTo` are already in them).
export function newTrace(fields, countedTo = 0) {
  const counts = {};
  for (const [n, c] of Object.entries(fields.step_counts || {})) counts[n] = c;
  const trace = {
    ...fields,
    steps: [],
    byId: new Map(),
    counts,
    countedTo,
    own: [], // the trace's own object's steps (and its ending)
    chains: new Map(), // pod -> {steps, ended}, in order of first appearance
    live: new Set(), // pods whose chain has not ended, in order of first appearance
    at: new Map(), // step number -> how many live chains are at it
    pods: new Set(), // "ns/name" of every pod the trace's steps name
    byStep: new Map(), // step number -> the steps of the trace's pods with that number (7–13)
    gate_step: fields.gate_step || 0, // step mode: the step that waits for Next (0: none)
    lastChain: null,
  };
  for (const step of fields.steps || []) addStep(trace, step);
  return trace;
}

// Add a step to its trace; false when the trace has it already.
export function addStep(trace, step) {
  const id = step.id ?? `${step.seq}:${step.step}`;
  if (trace.byId.has(id)) return false;
  trace.byId.set(id, step);
  insertBySeq(trace.steps, step);
  if (!(typeof id === "number" && id <= trace.countedTo)) trace.counts[step.step] = (trace.counts[step.step] || 0) + 1;
  const obj = step.object || {};
  if (obj.kind === "Pod" && obj.name) trace.pods.add(`${obj.namespace || "default"}/${obj.name}`);
  if (!isPodStep(trace, step)) {
    insertBySeq(trace.own, step);
    return true;
  }
  const key = stepObject(step);
  let chain = trace.chains.get(key);
  if (!chain) {
    chain = { steps: [], ended: false };
    trace.chains.set(key, chain);
    trace.lastChain = key;
  }
  const before = chain.ended ? null : chain.steps[chain.steps.length - 1];
  insertBySeq(chain.steps, step);
  if (step.step > 0) {
    if (!trace.byStep.has(step.step)) trace.byStep.set(step.step, []);
    trace.byStep.get(step.step).push(step);
  }
  chain.ended = chain.ended || ends(step);
  if (before) bump(trace.at, before.step, -1);
  if (chain.ended) trace.live.delete(key);
  else {
    trace.live.add(key);
    bump(trace.at, chain.steps[chain.steps.length - 1].step, 1);
  }
  return true;
}

// The steps the snapshot left out (GET …/flow/steps?trace=…), all of them, in pages; the trace is
// then rebuilt from its steps in seq order (inserting thousands one by one into the middle would
// walk the newer ones each time).
export async function fetchSteps(base, request, trace) {
  const found = new Map();
  let after = 0;
  for (;;) {
    const result = await request(`${base}/flow/steps?trace=${encodeURIComponent(trace.id)}&after=${after}`);
    if (!result.ok || typeof result.data !== "object") return false;
    for (const step of result.data.steps) if (!found.has(step.id)) found.set(step.id, step);
    if (!result.data.more || !result.data.steps.length) break;
    after = result.data.steps[result.data.steps.length - 1].seq;
  }
  for (const step of trace.steps) found.set(step.id, step); // with those that arrived meanwhile
  const steps = [...found.values()].sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
  Object.assign(trace, newTrace({ ...trace, steps }, trace.countedTo));
  return true;
}

export class Store {
  constructor() {
    this.revision = 0;
    this.nodes = new Map();
    this.pods = new Map();
    this.podStatus = new Map(); // "ns/name" -> kubectl's STATUS column, as the server computed it
    this.podRequests = new Map(); // "ns/name" -> {cpu: millicores, memory: bytes}, as kube-scheduler sums them
    this.podColumns = new Map(); // "ns/name" -> {ready: "0/1", restarts, lastRestart}: kubectl's columns
    this.probeNotes = new Map(); // "ns/name" -> {uid, message, at}: the pod's latest failed probe (its Event)
    this.nodeUsage = new Map(); // node -> {cpu: cores, memory: bytes} in use, from the metrics API (node_usage.js)
    this.byNode = new Map(); // node name ("" for none) -> Set of pod keys
    this.scheduling = new Map();
    this.workloads = new Map(); // "Kind/ns/name" -> object
    this.services = new Map(); // "ns/name" -> Service
    this.endpoints = new Map(); // "ns/name" -> Endpoints
    this.endpointChanges = []; // the endpoints controller's writes seen live, oldest first
    this.traces = new Map(); // id -> newTrace(...)
    this.keep = ""; // the trace the flow's picker shows: kept whatever snapshot lands
    this.liveIds = new Set(); // traces whose story began while the page watched (their step 1 came live)
    this.paceMs = 600;
    this.stepMode = false;
    this.classMayWrite = Boolean(BOOT.access && BOOT.access.class_may_write); // the teacher's switch
    this.stoppedKubelets = BOOT.stopped_kubelets || {}; // the teacher's node failures: node → since
    this.leader = null; // {holder, renewTime}: who holds the control plane's Lease
    this.execSessions = new Map(); // id -> kubectl exec session (open, or closed recently)
    this.prediction = null; // the teacher's prediction round (prediction.js), as the server last sent it
    this.listeners = new Set();
  }

  subscribe(listener) {
    this.listeners.add(listener);
  }

  emit(change) {
    for (const listener of this.listeners) listener(change);
  }

  loadSnapshot(snap) {
    this.revision = snap.revision || 0;
    this.nodes = new Map((snap.nodes || []).map((n) => [n.metadata.name, n]));
    this.pods = new Map((snap.pods || []).map((p) => [podKey(p), p]));
    this.podStatus = new Map(Object.entries(snap.pod_status || {}));
    this.podRequests = new Map(Object.entries(snap.pod_requests || {}));
    this.podColumns = new Map(Object.entries(snap.pod_columns || {}));
    this.indexPods();
    // Pending pods' places in the scheduling queue ("namespace/name" → queue facts).
    this.scheduling = new Map(Object.entries(snap.scheduling || {}));
    this.workloads = new Map((snap.workloads || []).map((w) => [`${w.kind}/${objectKey(w)}`, w]));
    this.services = new Map((snap.services || []).map((s) => [objectKey(s), s]));
    this.endpoints = new Map((snap.endpoints || []).map((e) => [objectKey(e), e]));
    // A snapshot carries the newest traces: the one picked stays, even when older than those.
    const kept = this.traces.get(this.keep);
    this.traces = new Map();
    if (kept && !(snap.traces || []).some((trace) => trace.id === kept.id)) this.traces.set(kept.id, kept);
    for (const trace of snap.traces || []) this.addTrace(trace, snap.step_id || 0);
    if (snap.pace_ms !== undefined) this.paceMs = snap.pace_ms;
    if (snap.step_mode !== undefined) this.stepMode = snap.step_mode;
    if (snap.class_may_write !== undefined) this.classMayWrite = snap.class_may_write;
    if (snap.stopped_kubelets !== undefined) this.stoppedKubelets = snap.stopped_kubelets || {};
    if (snap.leader !== undefined) this.leader = snap.leader;
    if (snap.prediction !== undefined) this.prediction = snap.prediction;
    this.execSessions = new Map((snap.exec_sessions || []).map((s) => [s.id, s]));
    this.emit({ type: "snapshot" });
  }

  // A whole trace (the snapshot's, or GET …/traces/<id>): steps with ids up to `countedTo` are
  // already in its step_counts.
  addTrace(trace, countedTo = 0) {
    this.traces.set(trace.id, newTrace({ ...trace, seenLive: this.liveIds.has(trace.id) }, countedTo));
    this.trimTraces();
  }

  // The oldest traces go, never the one picked.
  trimTraces() {
    for (const id of this.traces.keys()) {
      if (this.traces.size <= MAX_TRACES) break;
      if (id !== this.keep) this.traces.delete(id);
    }
    for (const id of this.liveIds) {
      if (this.liveIds.size <= MAX_TRACES * 4) break;
      this.liveIds.delete(id);
    }
  }

  applyObject(msg) {
    const action = msg.type.split(".")[1];
    const obj = msg.object;
    const kind = msg.kind || obj.kind;
    if (msg.revision) this.revision = Math.max(this.revision, msg.revision);
    let map = null;
    let key = null;
    if (kind === "Lease" && objectKey(obj) === "kube-system/kubesim-controlplane") {
      // Leader election: the hub sends this Lease when its holder changes, not on every renewal.
      const spec = obj.spec || {};
      const held = action !== "deleted" && spec.holderIdentity;
      this.leader = held ? { holder: spec.holderIdentity, renewTime: spec.renewTime } : null;
    }
    if (kind === "Node") [map, key] = [this.nodes, obj.metadata.name];
    else if (kind === "Pod") [map, key] = [this.pods, podKey(obj)];
    else if (WORKLOAD_KINDS.has(kind)) [map, key] = [this.workloads, `${kind}/${objectKey(obj)}`];
    else if (kind === "Service") [map, key] = [this.services, objectKey(obj)];
    else if (kind === "Endpoints") [map, key] = [this.endpoints, objectKey(obj)];
    if (kind === "Event" && action !== "deleted" && obj.reason === "Unhealthy" && obj.message) {
      // The prober's words ("Readiness probe failed: …"): the pod's card shows the latest.
      const about = obj.involvedObject || {};
      const podAt = `${about.namespace || "default"}/${about.name}`;
      this.probeNotes.set(podAt, { uid: about.uid, message: obj.message, at: obj.lastTimestamp, count: obj.count || 1 });
      this.emit({ type: "probe", key: podAt });
    }
    if (map) {
      const before = map.get(key);
      if (action === "deleted") map.delete(key);
      else map.set(key, { ...obj, kind });
      if (kind === "Endpoints") {
        const change = endpointChange(before, action === "deleted" ? null : obj, msg.revision);
        if (change.changes.length) this.endpointChanges.push(change);
        while (this.endpointChanges.length > MAX_ENDPOINT_CHANGES) this.endpointChanges.shift();
      }
      if (kind === "Pod") {
        this.unindexPod(key, before);
        if (action === "deleted") {
          this.podStatus.delete(key);
          this.podRequests.delete(key);
          this.podColumns.delete(key);
          this.probeNotes.delete(key);
        } else {
          this.indexPod(key, obj);
          if (msg.pod_status !== undefined) this.podStatus.set(key, msg.pod_status);
          if (msg.pod_requests !== undefined) this.podRequests.set(key, msg.pod_requests);
          if (msg.pod_columns !== undefined) this.podColumns.set(key, msg.pod_columns);
        }
      }
      this.emit({ type: "object", kind, key, action, before, object: obj });
    } else {
      this.emit({ type: "revision" });
    }
  }

  // The teacher switched "Class may write": every page's banner, controls and rights follow.
  // The teacher stopped or started a node's kubelet (node → when it stopped).
  applyKubelets(msg) {
    this.stoppedKubelets = msg.stopped || {};
    this.emit({ type: "kubelets" });
  }

  // The prediction round: a newer round replaces it; an older version of the same one is late news.
  applyPrediction(msg) {
    const next = msg.round;
    const now = this.prediction;
    if (next && now && next.id === now.id && next.version < now.version) return;
    if (next && now && next.id < now.id) return;
    this.prediction = next;
    this.emit({ type: "prediction" });
  }

  applyAccess(msg) {
    this.classMayWrite = Boolean(msg.class_may_write);
    this.emit({ type: "access" });
  }

  applySettings(msg) {
    if (msg.pace_ms !== undefined) this.paceMs = msg.pace_ms;
    if (msg.step_mode !== undefined) this.stepMode = msg.step_mode;
    this.emit({ type: "settings" });
  }

  // Step mode: the step of a trace that waits at the gate for Next changed (0: none waits).
  applyGate(msg) {
    const trace = this.traces.get(msg.trace);
    if (!trace) return;
    trace.gate_step = msg.step;
    this.emit({ type: "step", trace: trace.id });
  }

  applyStep(msg) {
    let trace = this.traces.get(msg.trace);
    if (!trace) {
      const obj = msg.object || {};
      // seenLive: its story began while the page watched (the caption tells it from its step 1).
      trace = newTrace({ id: msg.trace, kind: obj.kind, namespace: obj.namespace, name: obj.name, seenLive: true });
      this.liveIds.add(msg.trace);
      this.traces.set(msg.trace, trace);
      this.trimTraces();
    }
    // A trace's first step tells what it is (its verb, who asked, the traces it follows from).
    const info = msg.trace_info;
    if (info) {
      trace.verb = trace.verb || info.verb;
      trace.client = trace.client || info.client;
      trace.causes = trace.causes || info.causes || [];
    }
    addStep(trace, msg);
    // The step that waited for Next happened: nothing waits until the server says so again.
    if (msg.step && msg.step === trace.gate_step) trace.gate_step = 0;
    // The server says when a trace ends: its final ending entry (`flow.end`, step 0).
    if (msg.type === "flow.end" && msg.final) {
      trace.ending = msg;
      trace.finished_at = trace.finished_at || msg.finished_at || msg.ts;
    }
    this.emit({ type: "step", trace: trace.id, step: msg });
  }

  podStatusOf(pod) {
    return this.podStatus.get(podKey(pod)) ?? ((pod.status || {}).phase || "Pending");
  }

  // kubectl's READY and RESTARTS of the pod, as the server's printer computed them.
  podColumnsOf(pod) {
    return this.podColumns.get(podKey(pod)) || null;
  }

  // The pod's latest failed probe, if it was this pod's (not an earlier one of its name).
  probeNoteOf(pod) {
    const note = this.probeNotes.get(podKey(pod));
    return note && (!note.uid || note.uid === pod.metadata.uid) ? note : null;
  }

  // The pod's requests as kube-scheduler sums them (sidecars, init containers, overhead): sent by
  // the server with the pod, never re-derived here.
  podRequestsOf(pod) {
    return this.podRequests.get(podKey(pod)) || { cpu: 0, memory: 0 };
  }

  indexPods() {
    this.byNode = new Map();
    for (const [key, pod] of this.pods) this.indexPod(key, pod);
  }

  indexPod(key, pod) {
    const node = (pod.spec && pod.spec.nodeName) || "";
    if (!this.byNode.has(node)) this.byNode.set(node, new Set());
    this.byNode.get(node).add(key);
  }

  unindexPod(key, pod) {
    if (!pod) return;
    const set = this.byNode.get((pod.spec && pod.spec.nodeName) || "");
    if (set) set.delete(key);
  }

  applyExecSession(msg) {
    const session = msg.session;
    this.execSessions.set(session.id, session);
    while (this.execSessions.size > 50) this.execSessions.delete(this.execSessions.keys().next().value);
    this.emit({ type: "exec", session });
  }

  // The exec sessions into one pod ("ns/name"), oldest first; open ones have no closed_at.
  execsInto(key) {
    return [...this.execSessions.values()].filter((s) => `${s.namespace}/${s.pod}` === key);
  }

  // The pods bound to one node (what its card shows), and those bound to none (the Pending lane).
  podsOn(nodeName) {
    const pods = [];
    for (const key of this.byNode.get(nodeName) || []) {
      const pod = this.pods.get(key);
      if (pod) pods.push(pod);
    }
    return pods;
  }

  pendingPods() {
    return this.podsOn("");
  }
}
