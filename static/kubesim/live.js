// The websocket: snapshot on connect, then events. Reconnects after a drop (with backoff), and
// re-fetches the snapshot when a revision gap shows that a message was lost.

import { $, BASE, CLUSTER, LANG, request, t } from "./dom.js";

// The server answers a connect with the snapshot or `resync`; this is a safety net only (a busy
// server builds a big snapshot slowly: fetching it again over HTTP meanwhile doubles the work).
const SNAPSHOT_WAIT_MS = 10000;
// Pods as the page draws them (cluster/broadcast/podview.py), in the snapshot (a seventh of the stored
// objects' bytes) and in the object messages after it (a third of a burst's pod bytes); each
// server read as one `batch` message (a frame per message cost the page a task each); the steps'
// details in the page's language only.
const VIEW = "view=page&batch=1";
const SOCKET_OPTIONS = `${VIEW}&events=page&lang=${LANG}`;

export class Live {
  constructor(store) {
    this.store = store;
    this.socket = null;
    this.retry = 0;
    this.queue = [];
    this.resyncing = false;
    this.buffer = [];
    this.inflating = null; // a gzipped snapshot being inflated: later messages wait for it
    this.held = [];
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/ws/clusters/${encodeURIComponent(CLUSTER)}/?${SOCKET_OPTIONS}`);
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    this.setState(this.retry ? "reconnecting" : "connecting");
    socket.addEventListener("message", (event) => this.receive(event.data));
    socket.addEventListener("open", () => {
      this.retry = 0;
      for (const message of this.queue.splice(0)) socket.send(message);
      // A snapshot too big for one websocket frame never arrives: fetch it over HTTP instead.
      this.snapshotTimer = setTimeout(() => this.resync(), SNAPSHOT_WAIT_MS);
    });
    socket.addEventListener("close", () => {
      if (this.socket !== socket) return;
      this.setState("reconnecting");
      const delay = Math.min(8000, 400 * 2 ** this.retry) + Math.random() * 300;
      this.retry += 1;
      setTimeout(() => this.connect(), delay);
    });
  }

  send(action) {
    const message = JSON.stringify(action);
    if (this.socket && this.socket.readyState === WebSocket.OPEN) this.socket.send(message);
    else this.queue.push(message);
  }

  setState(state) {
    const box = $("conn");
    box.dataset.state = state;
    box.querySelector(".conn-text").textContent = t(state);
  }

  // A big snapshot comes gzipped in a binary frame (cluster/broadcast/consumers.py); the messages behind
  // it wait until it is inflated and loaded, so they apply in order.
  receive(data) {
    if (typeof data !== "string") {
      clearTimeout(this.snapshotTimer);
      const stream = new Blob([data]).stream().pipeThrough(new DecompressionStream("gzip"));
      this.inflating = new Response(stream).text().then((text) => {
        this.onMessage(text);
      }, () => this.resync()).finally(() => {
        this.inflating = null;
        for (const raw of this.held.splice(0)) this.receive(raw);
      });
      return;
    }
    if (this.inflating) this.held.push(data);
    else this.onMessage(data);
  }

  onMessage(raw) {
    let msg;
    try {
      msg = JSON.parse(raw);
    } catch {
      return;
    }
    if (msg.type === "batch") {
      for (const one of msg.messages || []) this.handle(one);
      return;
    }
    this.handle(msg);
  }

  handle(msg) {
    if (msg.type === "snapshot") {
      clearTimeout(this.snapshotTimer);
      this.store.loadSnapshot(msg);
      this.setState("live");
      this.showRevision();
      return;
    }
    if (msg.type === "resync") {
      this.resync();
      return;
    }
    if (this.resyncing) {
      this.buffer.push(msg); // applied after the snapshot, unless the snapshot already has it
      return;
    }
    if (this.isGap(msg)) {
      this.buffer.push(msg);
      this.resync();
      return;
    }
    this.apply(msg);
    this.showRevision();
  }

  apply(msg) {
    if (msg.type.startsWith("object.")) this.store.applyObject(msg);
    else if (msg.type === "flow.step" || msg.type === "flow.end") this.store.applyStep(msg);
    else if (msg.type === "flow.settings") this.store.applySettings(msg);
    else if (msg.type === "flow.gate") this.store.applyGate(msg);
    else if (msg.type === "access") this.store.applyAccess(msg);
    else if (msg.type === "kubelets") this.store.applyKubelets(msg);
    else if (msg.type === "prediction") this.store.applyPrediction(msg);
    else if (msg.type === "exec.session") this.store.applyExecSession(msg);
  }

  // Object messages are consecutive revisions; a jump means the channel layer dropped one.
  isGap(msg) {
    if (!msg.type.startsWith("object.") || !msg.revision) return false;
    const expected = msg.prev_revision ?? msg.revision - 1;
    return expected > this.store.revision;
  }

  async resync() {
    clearTimeout(this.snapshotTimer);
    if (this.resyncing) return;
    this.resyncing = true;
    this.setState("resyncing");
    try {
      const result = await request(`${BASE}/snapshot?${VIEW}`);
      if (result.ok && typeof result.data === "object") this.store.loadSnapshot(result.data);
      this.setState("live");
    } finally {
      this.resyncing = false;
      const newer = this.buffer.splice(0).filter((m) => m.type.startsWith("flow.") || m.type === "exec.session" || m.type === "access" || m.type === "kubelets" || m.type === "prediction" || m.revision > this.store.revision);
      for (const msg of newer) this.apply(msg);
      this.showRevision();
    }
  }

  // The header's revision and leader, once per frame however many messages arrived in it.
  showRevision() {
    if (!this.revisionFrame) this.revisionFrame = requestAnimationFrame(() => this.drawRevision());
  }

  drawRevision() {
    this.revisionFrame = 0;
    $("revision").textContent = String(this.store.revision);
    const leader = this.store.leader;
    const badge = $("leader");
    if (badge) {
      badge.hidden = !leader;
      $("leader-holder").textContent = leader ? leader.holder : "";
    }
  }
}
