// The page's copy of the cluster: a snapshot, then events applied in revision order.

import { KINDS, podKey } from "./dom.js";

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

// As the recorder decides it: replicas decided (step 6, done or skipped) and every pod created
// (step 7, written with the pod) has reached step 13. Counted as steps arrive: a trace of a
// thousand replicas has thousands of steps.
function isComplete(trace) {
  const count = trace.counts;
  return count[6] > 0 && count[7] > 0 && count[13] >= count[7];
}

function tally(trace, step) {
  trace.seen.add(`${step.seq}:${step.step}`);
  if (step.step === 6 || step.step === 7 || step.step === 13) trace.counts[step.step] += 1;
}

function withTally(trace) {
  trace.seen = new Set();
  trace.counts = { 6: 0, 7: 0, 13: 0 };
  for (const step of trace.steps) tally(trace, step);
  // A long trace comes with some of its steps only: the server counted them all.
  if ((trace.steps_total || 0) > trace.steps.length && trace.step_counts) {
    for (const n of [6, 7, 13]) trace.counts[n] = trace.step_counts[n] || 0;
  }
  return trace;
}

export class Store {
  constructor() {
    this.revision = 0;
    this.nodes = new Map();
    this.pods = new Map();
    this.podStatus = new Map(); // "ns/name" -> kubectl's STATUS column, as the server computed it
    this.scheduling = new Map();
    this.workloads = new Map(); // "Kind/ns/name" -> object
    this.services = new Map(); // "ns/name" -> Service
    this.endpoints = new Map(); // "ns/name" -> Endpoints
    this.endpointChanges = []; // the endpoints controller's writes seen live, oldest first
    this.traces = new Map(); // id -> {id, kind, name, namespace, verb, client, steps: [...]}
    this.paceMs = 600;
    this.stepMode = false;
    this.leader = null; // {holder, renewTime}: who holds the control plane's Lease
    this.execSessions = new Map(); // id -> kubectl exec session (open, or closed recently)
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
    // Pending pods' places in the scheduling queue ("namespace/name" → queue facts).
    this.scheduling = new Map(Object.entries(snap.scheduling || {}));
    this.workloads = new Map((snap.workloads || []).map((w) => [`${w.kind}/${objectKey(w)}`, w]));
    this.services = new Map((snap.services || []).map((s) => [objectKey(s), s]));
    this.endpoints = new Map((snap.endpoints || []).map((e) => [objectKey(e), e]));
    this.traces = new Map();
    for (const trace of snap.traces || []) this.addTrace(trace);
    if (snap.pace_ms !== undefined) this.paceMs = snap.pace_ms;
    if (snap.step_mode !== undefined) this.stepMode = snap.step_mode;
    if (snap.leader !== undefined) this.leader = snap.leader;
    this.execSessions = new Map((snap.exec_sessions || []).map((s) => [s.id, s]));
    this.emit({ type: "snapshot" });
  }

  addTrace(trace) {
    const steps = (trace.steps || []).slice().sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
    this.traces.set(trace.id, withTally({ ...trace, steps }));
    this.trimTraces();
  }

  trimTraces() {
    while (this.traces.size > MAX_TRACES) this.traces.delete(this.traces.keys().next().value);
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
        if (action === "deleted") this.podStatus.delete(key);
        else if (msg.pod_status !== undefined) this.podStatus.set(key, msg.pod_status);
      }
      this.emit({ type: "object", kind, key, action, before, object: obj });
    } else {
      this.emit({ type: "revision" });
    }
  }

  applySettings(msg) {
    if (msg.pace_ms !== undefined) this.paceMs = msg.pace_ms;
    if (msg.step_mode !== undefined) this.stepMode = msg.step_mode;
    this.emit({ type: "settings" });
  }

  applyStep(msg) {
    let trace = this.traces.get(msg.trace);
    if (!trace) {
      const obj = msg.object || {};
      trace = withTally({ id: msg.trace, kind: obj.kind, namespace: obj.namespace, name: obj.name, steps: [] });
      this.traces.set(msg.trace, trace);
      this.trimTraces();
    }
    const seq = msg.seq ?? trace.steps.length;
    if (!trace.seen.has(`${seq}:${msg.step}`)) {
      const step = { ...msg, seq };
      trace.steps.push(step);
      tally(trace, step);
    }
    if (!trace.finished_at && isComplete(trace)) trace.finished_at = msg.ts || new Date().toISOString();
    // The server says when a trace ends: its final ending entry (`flow.end`, step 0).
    if (msg.type === "flow.end" && msg.final) {
      trace.ending = msg;
      trace.finished_at = trace.finished_at || msg.ts || new Date().toISOString();
    }
    this.emit({ type: "step", trace: trace.id, step: msg });
  }

  podStatusOf(pod) {
    return this.podStatus.get(podKey(pod)) ?? ((pod.status || {}).phase || "Pending");
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

  // Requested vs allocatable for one node: what the capacity bars show.
  podsOn(nodeName) {
    const pods = [];
    for (const pod of this.pods.values()) if (pod.spec && pod.spec.nodeName === nodeName) pods.push(pod);
    return pods;
  }

  pendingPods() {
    const pods = [];
    for (const pod of this.pods.values()) if (!(pod.spec && pod.spec.nodeName)) pods.push(pod);
    return pods;
  }
}
