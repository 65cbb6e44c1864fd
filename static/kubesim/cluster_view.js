// The cluster: node cards (labels, taints, cordon, capacity bars, pods, images), the Pending lane
// and the workloads strip. Only the cards an event touches are rebuilt, once per animation frame.

import { $, age, BASE, byNaturalName, clear, framed, h, heldClass, inFrame, KINDS, patchChildren, pick, request, t } from "./dom.js";
import { icon } from "./icons.js";
import { sessionCommand } from "./session_command.js";
import { formatBytes, formatCpu, formatImageSize, parseQuantity, phaseClass } from "./quantity.js";

const collator = new Intl.Collator(undefined, { numeric: true });
const SYSTEM_LABEL = /^(kubernetes\.io\/(os|arch)|beta\.kubernetes\.io\/)/;
const MAX_LABEL_CHIPS = 8;
const COMPACT_AFTER = 12;
const MAX_IMAGES = 3;
const MAX_PENDING_ROWS = 100;
const ANIMATED_CHANGES = 40;
// While changes keep coming (a burst), the cards redraw four times a second: each redraw costs the
// browser its style, layout and paint besides the script, on a laptop as busy as the burst.
const REDRAW_MS = 250;
// A frame's share for redrawing cards: the rest waits for the next frame, so a thousand-pod burst
// never holds the page for longer than a frame or two (the chips of the cards left over stay due).
const FRAME_BUDGET_MS = 6;
// A burst's chips stop blinking and fading (.is-calm) until it has been over for this long: a
// hundred pods blinking at once repaint their cards on every frame.
const CALM_HOLD_MS = 1500;

export class ClusterView {
  constructor(store, hooks) {
    this.store = store; // what the cards show: the live store, or the cluster at a past revision
    this.live = store;
    this.hooks = hooks; // {onPod(pod, anchor), onNodeMenu(node, anchor), onWorkload(w, anchor)}
    this.cards = new Map(); // node name -> {el, node, pods (the pods box), bars}
    this.chips = new Map(); // pod key -> {el, pod, execs}: a chip is rebuilt only when its pod changed
    this.laneRows = new Map(); // pod key -> {el, pod, queue}: the Pending lane's rows, likewise
    this.dirtyNodes = new Set(); // cards whose node changed: rebuilt
    this.dirtyPods = new Set(); // cards whose pods changed: their pods and bars updated
    this.dirtyAll = true;
    this.dirtyPending = true;
    this.dirtyWorkloads = true;
    this.changedPods = new Set();
    this.seenPods = new Set(); // pods already drawn: only newcomers pop in
    this.seenNodes = new Set();
    // Redrawn once a frame, and while changes keep coming (a burst) at most every REDRAW_MS.
    this.schedule = framed(() => this.render(), () => REDRAW_MS);
    this.panel = $("cluster-panel");
    this.holdCalm = heldClass(this.panel, "is-calm", CALM_HOLD_MS, () => this.catchUp());
    // The cards on screen (or nearly): while a burst lasts only they redraw; the others wait in
    // `behind` until they scroll in or the burst is over (a hundred cards redrawn four times a
    // second would cost the page most of its frames, for cards nobody sees).
    this.onScreen = new Set();
    this.behind = new Set();
    this.watcher = new IntersectionObserver((entries) => this.onScroll(entries), { rootMargin: "300px" });
    store.subscribe((change) => this.onChange(change));
  }

  // Replay: draw the cluster as it was (a Store loaded from GET …/snapshot?revision=N), then live.
  showPast(past) {
    this.store = past;
    $("past-badge").hidden = false;
    $("past-badge").textContent = t("as_at_revision", { rev: past.revision });
    this.redrawAll();
  }

  showLive() {
    $("past-badge").hidden = true;
    if (this.store === this.live) return;
    this.store = this.live;
    this.redrawAll();
  }

  redrawAll() {
    this.dirtyAll = this.dirtyPending = this.dirtyWorkloads = true;
    this.schedule();
  }

  onChange(change) {
    if (this.store !== this.live) return; // replaying: the live changes are drawn on the way back
    if (change.type === "snapshot") {
      this.dirtyAll = this.dirtyPending = this.dirtyWorkloads = true;
    } else if (change.type === "object") {
      if (change.kind === "Node") {
        this.dirtyNodes.add(change.key);
        if (change.action !== "modified") this.dirtyAll = true;
      } else if (change.kind === "Pod") {
        for (const pod of [change.before, change.object]) {
          const node = pod && pod.spec && pod.spec.nodeName;
          if (node) this.dirtyPods.add(node);
          else if (pod) this.dirtyPending = true;
        }
        this.changedPods.add(change.key);
        if (change.action === "deleted") {
          this.chips.delete(change.key);
          this.seenPods.delete(change.key);
        }
      } else {
        this.dirtyWorkloads = true;
      }
    } else if (change.type === "probe") {
      // A failed probe's Event: the pod's chip names it (no flash: it repeats every period).
      const pod = this.store.pods.get(change.key);
      const node = pod && pod.spec && pod.spec.nodeName;
      if (!node) return;
      this.dirtyPods.add(node);
    } else if (change.type === "kubelets") {
      for (const name of this.store.nodes.keys()) this.dirtyNodes.add(name);
    } else if (change.type === "exec") {
      const pod = this.store.pods.get(`${change.session.namespace}/${change.session.pod}`);
      const node = pod && pod.spec && pod.spec.nodeName;
      if (node) this.dirtyPods.add(node);
      else this.dirtyPending = true;
      this.changedPods.add(`${change.session.namespace}/${change.session.pod}`);
    } else {
      return;
    }
    this.schedule();
  }

  render() {
    // A burst (a thousand replicas at pace 0) changes hundreds of pods a frame: they change
    // without the pop and flash, which would repaint every one of them for most of a second.
    const deadline = performance.now() + FRAME_BUDGET_MS;
    this.calm = this.calm || this.changedPods.size > ANIMATED_CHANGES;
    if (this.calm) this.holdCalm();
    if (this.dirtyAll) {
      this.renderAllNodes();
      this.dirtyNodes.clear();
      this.dirtyPods.clear();
    } else {
      for (const name of this.dirtyNodes) {
        if (performance.now() > deadline) break;
        this.renderNode(name);
        this.dirtyNodes.delete(name);
        this.dirtyPods.delete(name);
      }
      const burst = this.panel.classList.contains("is-calm");
      for (const name of this.dirtyPods) {
        if (performance.now() > deadline) break;
        this.dirtyPods.delete(name);
        if (burst && !this.onScreen.has(name)) this.behind.add(name);
        else this.updatePods(name);
      }
    }
    if (this.dirtyPending || this.dirtyAll) this.renderPending();
    if (this.dirtyWorkloads) this.renderWorkloads();
    this.dirtyAll = this.dirtyPending = this.dirtyWorkloads = false;
    if (this.dirtyNodes.size || this.dirtyPods.size) {
      // Cards left for the next frame: their changed pods stay marked until they are drawn.
      if (!this.nextFrame) {
        this.nextFrame = true;
        inFrame(() => {
          this.nextFrame = false;
          this.render();
        });
      }
    } else {
      this.changedPods.clear();
      this.calm = false;
    }
    if (!this.painted && this.store.nodes.size) {
      this.painted = true;
      performance.mark("kubesim-cluster-painted"); // first paint of the snapshot, for the perf figure
    }
  }

  onScroll(entries) {
    for (const entry of entries) {
      const name = entry.target.dataset.node;
      if (!entry.isIntersecting) {
        this.onScreen.delete(name);
        continue;
      }
      this.onScreen.add(name);
      if (this.behind.delete(name)) {
        this.dirtyPods.add(name);
        this.schedule();
      }
    }
  }

  // The burst is over: the cards it left behind are redrawn (within the frame budget).
  catchUp() {
    for (const name of this.behind) this.dirtyPods.add(name);
    this.behind.clear();
    this.schedule();
  }

  // `card` replaces `old` (or is new): the scroll watcher follows it.
  watch(card, old) {
    if (old) this.watcher.unobserve(old.el);
    this.watcher.observe(card.el);
  }

  renderAllNodes() {
    const grid = $("node-grid");
    const names = [...this.store.nodes.keys()].sort(collator.compare);
    const fragment = document.createDocumentFragment();
    this.cards.clear();
    this.watcher.disconnect();
    this.onScreen.clear();
    this.behind.clear(); // every card is drawn afresh
    for (const name of names) {
      const card = this.buildCard(this.store.nodes.get(name));
      this.cards.set(name, card);
      this.watch(card);
      fragment.append(card.el);
    }
    clear(grid).append(fragment);
    $("node-count").textContent = String(names.length);
  }

  renderNode(name) {
    const node = this.store.nodes.get(name);
    const old = this.cards.get(name);
    if (!node) {
      if (old) {
        this.watcher.unobserve(old.el);
        old.el.remove();
      }
      this.cards.delete(name);
      return;
    }
    if (!old) {
      this.renderAllNodes();
      return;
    }
    const card = this.buildCard(node);
    old.el.replaceWith(card.el);
    this.cards.set(name, card);
    this.watch(card, old);
    this.behind.delete(name); // drawn afresh
  }

  // The node is as it was, some of its pods changed: new bars, and the chips of the changed pods.
  updatePods(name) {
    const card = this.cards.get(name);
    const node = this.store.nodes.get(name);
    if (!card || !node) return;
    const pods = this.store.podsOn(name);
    card.bars.show(this.usage(node, pods));
    this.fillPods(card.pods, pods);
  }

  buildCard(node) {
    const name = node.metadata.name;
    const labels = node.metadata.labels || {};
    const spec = node.spec || {};
    const status = node.status || {};
    const ready = (status.conditions || []).find((c) => c.type === "Ready");
    const notReady = ready && ready.status !== "True";
    const controlPlane = "node-role.kubernetes.io/control-plane" in labels || "node-role.kubernetes.io/master" in labels;
    const pods = this.store.podsOn(name);
    const classes = ["node-card"];
    if (this.painted && !this.seenNodes.has(name)) classes.push("is-new");
    this.seenNodes.add(name);
    if (spec.unschedulable) classes.push("is-cordoned");
    if (notReady) classes.push("is-notready");
    // The teacher stopped this node's kubelet (node failure): it posts nothing from then on.
    const stoppedSince = (this.store.stoppedKubelets || {})[name];
    if (stoppedSince) classes.push("is-kubelet-stopped");
    const bars = new Bars();
    bars.show(this.usage(node, pods));
    const podBox = this.fillPods(h("div", { class: "pods" }), pods);
    const el = h(
      "article",
      { class: classes.join(" "), "data-node": name, "aria-label": name },
      h(
        "header",
        { class: "node-head" },
        h("span", { class: "node-icon", "aria-hidden": "true" }),
        h("h3", { class: "node-name", text: name }),
        controlPlane ? h("span", { class: "badge badge-role", text: t("control_plane") }) : null,
        spec.unschedulable ? h("span", { class: "badge badge-cordon" }, icon("no-entry"), ` ${t("cordoned")}`) : null,
        notReady ? h("span", { class: "badge badge-bad", text: t("not_ready") }) : null,
        h("button", {
          type: "button",
          class: "icon-btn node-menu",
          "aria-label": `${t("node_actions")}: ${name}`,
          onclick: (event) => this.hooks.onNodeMenu(node, event.currentTarget),
        }, icon("more")),
      ),
      // A row of its own: the name and the NotReady badge stay readable beside it.
      stoppedSince ? h("div", {
        class: "node-alert",
        title: t("kubelet_stopped_since", { time: new Date(stoppedSince).toLocaleTimeString() }),
      }, icon("no-entry"), ` ${t("kubelet_stopped")}`) : null,
      this.labelChips(labels),
      this.taintChips(spec.taints || []),
      bars.el,
      podBox,
      this.images(status.images || []),
    );
    return { el, bars, pods: podBox };
  }

  labelChips(labels) {
    // The node's own labels first; the kubelet's well-known ones (arch, os, beta.*) fold into "+N".
    const entries = Object.entries(labels).sort(([a], [b]) => collator.compare(a, b));
    const shown = entries.filter(([key]) => !SYSTEM_LABEL.test(key));
    const folded = entries.filter(([key]) => SYSTEM_LABEL.test(key));
    const chips = shown.slice(0, MAX_LABEL_CHIPS).map(([key, value]) =>
      h("span", { class: `chip chip-label${key.includes("kubernetes.io/") ? " chip-dim" : ""}`, title: `${key}=${value}` },
        h("span", { class: "chip-key", text: key }), value !== "" ? h("span", { class: "chip-val", text: `=${value}` }) : null),
    );
    const rest = [...shown.slice(MAX_LABEL_CHIPS), ...folded];
    if (rest.length) {
      chips.push(h("span", { class: "chip chip-more", title: rest.map(([k, v]) => `${k}=${v}`).join("\n"), text: `+${rest.length}` }));
    }
    return h("div", { class: "chips" }, chips);
  }

  taintChips(taints) {
    if (!taints.length) return null;
    return h(
      "div",
      { class: "chips" },
      taints.map((taint) => {
        const text = `${taint.key}${taint.value ? `=${taint.value}` : ""}:${taint.effect}`;
        return h("span", { class: "chip chip-taint", title: `taint ${text}` }, icon("taint"), ` ${text}`);
      }),
    );
  }

  // The metrics API's figures arrived: every card's bars again (node_usage.js).
  refreshUsage() {
    for (const [name, card] of this.cards) {
      const node = this.store.nodes.get(name);
      if (node) card.bars.show(this.usage(node, this.store.podsOn(name)));
    }
  }

  // What the card's bars show: [label, requested, allocatable, text, in use, its text] for CPU,
  // memory and pods (in use: the metrics API's, for CPU and memory, once it has answered).
  usage(node, pods) {
    const alloc = (node.status || {}).allocatable || (node.status || {}).capacity || {};
    let cpu = 0;
    let memory = 0;
    let count = 0;
    for (const pod of pods) {
      const phase = (pod.status || {}).phase;
      if (phase === "Succeeded" || phase === "Failed") continue;
      const requests = this.store.podRequestsOf(pod); // summed by the server, as kube-scheduler does
      cpu += requests.cpu / 1000;
      memory += requests.memory;
      count += 1;
    }
    const cpuAlloc = parseQuantity(alloc.cpu);
    const memAlloc = parseQuantity(alloc.memory);
    const podAlloc = parseQuantity(alloc.pods);
    const used = this.store.nodeUsage.get(node.metadata.name);
    return [
      [t("cpu"), cpu, cpuAlloc, `${formatCpu(cpu)} / ${formatCpu(cpuAlloc)}`, used ? used.cpu : null, used ? formatCpu(used.cpu) : ""],
      [t("memory"), memory, memAlloc, `${formatBytes(memory)} / ${formatBytes(memAlloc)}`, used ? used.memory : null, used ? formatBytes(used.memory) : ""],
      [t("pods"), count, podAlloc, `${count} / ${podAlloc}`, null, ""],
    ];
  }

  // The pods box of a card: one chip per pod, by name, reusing the chips of pods that did not
  // change (a thousand-pod burst redraws only what moved).
  fillPods(box, pods) {
    if (!pods.length) {
      box.className = "pods pods-empty";
      box.textContent = t("no_pods_here");
      return box;
    }
    pods.sort(byNaturalName);
    // A crowded node shows its pods as a heat strip of phase-coloured tiles (names on hover).
    box.className = pods.length > COMPACT_AFTER ? "pods pods-compact" : "pods";
    const chips = pods.map((pod) => this.chipFor(pod));
    if (!box.firstElementChild) box.replaceChildren(...chips); // the "no pods" text, or a new card
    else patchChildren(box, chips); // only the chips that changed or moved go in
    return box;
  }

  chipFor(pod) {
    const key = `${pod.metadata.namespace || "default"}/${pod.metadata.name}`;
    const execs = this.store.execSessions.size ? this.store.execsInto(key).filter((s) => !s.closed_at).length : 0;
    const note = this.store.probeNoteOf ? this.store.probeNoteOf(pod) : null;
    const kept = this.chips.get(key);
    if (kept && kept.pod === pod && kept.execs === execs && kept.note === note && !this.changedPods.has(key) && kept.store === this.store) return kept.el;
    const el = this.podChip(pod, note);
    this.chips.set(key, { el, pod, execs, note, store: this.store });
    return el;
  }

  podChip(pod, note = null) {
    const state = this.store.podStatusOf(pod); // kubectl's STATUS, computed by the server
    // kubectl's READY and RESTARTS, computed by the server's printer (absent in an old replay).
    const columns = this.store.podColumnsOf ? this.store.podColumnsOf(pod) : null;
    const [ready, total] = columns ? columns.ready.split("/").map(Number) : [0, 0];
    const unready = columns && total > 0 && ready < total && state === "Running";
    const restarts = columns ? columns.restarts : 0;
    const restartText = restarts && columns.lastRestart ? `${restarts} (${t("ago", { age: age(columns.lastRestart) })})` : String(restarts);
    // A probe that failed lately: its Event's words, while the pod is not ready or restarts.
    const probe = note && (unready || restarts) ? note.message : "";
    const facts = columns ? `\n${t("col_ready")} ${columns.ready} · ${t("col_restarts")} ${restartText}` : "";
    const probeTitle = note ? `\n${note.message}${note.count > 1 ? ` (x${note.count})` : ""}` : "";
    const key = `${pod.metadata.namespace || "default"}/${pod.metadata.name}`;
    const isNew = !this.seenPods.has(key) && this.painted && !this.calm;
    const changed = this.changedPods.has(key) && !this.dirtyAll && !isNew && !this.calm;
    this.seenPods.add(key);
    // Who is inside: an open `kubectl exec` session shows on the card.
    const inside = this.store.execsInto(key).filter((s) => !s.closed_at);
    const insideTitle = inside.map((s) => `
${t("exec_inside")}: ${sessionCommand(s)} (${s.user}, ${s.client})`).join("");
    return h(
      "button",
      {
        type: "button",
        class: `pod phase-${phaseClass(state)}${changed ? " pod-changed" : ""}${isNew ? " pod-new" : ""}${inside.length ? " has-exec" : ""}${unready ? " is-unready" : ""}${probe ? " has-probe-failure" : ""}`,
        "data-pod": key,
        "data-state": state,
        "data-ready": columns ? columns.ready : "",
        "data-restarts": String(restarts),
        "data-exec": String(inside.length),
        title: `${key} — ${state}${facts}${probeTitle}${insideTitle}`,
        onclick: (event) => this.hooks.onPod(pod, event.currentTarget),
      },
      h("span", { class: "pod-dot", "aria-hidden": "true" }),
      h("span", { class: "pod-name", text: pod.metadata.name }),
      h("span", { class: "pod-state", text: state }), // kubectl's STATUS word, as students will see it
      columns && total > 0 ? h("span", { class: `pod-ready${unready ? " is-short" : ""}`, "aria-label": `${t("col_ready")} ${columns.ready}`, text: columns.ready }) : null,
      restarts ? h("span", { class: "pod-restarts", "aria-label": `${t("col_restarts")} ${restartText}`, text: `↻${restarts}` }) : null,
      probe ? h("span", { class: "pod-probe", "aria-label": probe, text: "!" }) : null,
      inside.length ? h("span", { class: "pod-exec", "aria-label": t("exec_inside"), text: `>_${inside.length > 1 ? ` ${inside.length}` : ""}` }) : null,
    );
  }

  images(images) {
    if (!images.length) return h("footer", { class: "images images-empty", text: t("no_images") });
    const named = images.map((image) => ({
      name: (image.names || []).find((n) => !n.includes("@")) || (image.names || [""])[0],
      size: image.sizeBytes || 0,
    }));
    // Workload images first: the kube-system ones matter less to ImageLocality lessons.
    named.sort((a, b) => (a.name.startsWith("registry.k8s.io/") - b.name.startsWith("registry.k8s.io/")) || b.size - a.size);
    const items = named.slice(0, MAX_IMAGES).map((image) => h("li", { title: image.name },
      h("span", { class: "img-name", text: image.name }), h("span", { class: "img-size", text: formatImageSize(image.size) })));
    if (named.length > MAX_IMAGES) {
      const rest = named.slice(MAX_IMAGES).map((image) => `${image.name} (${formatImageSize(image.size)})`).join("\n");
      items.push(h("li", { class: "img-more", title: rest, text: `+${named.length - MAX_IMAGES}` }));
    }
    return h("footer", { class: "images" }, h("span", { class: "images-title", text: t("images") }), h("ul", null, items));
  }

  renderPending() {
    const lane = this.pendingLane();
    const pods = this.store.pendingPods().sort(byNaturalName);
    lane.el.classList.toggle("is-empty", pods.length === 0);
    lane.count.textContent = String(pods.length);
    lane.empty.hidden = pods.length > 0;
    lane.list.hidden = pods.length === 0;
    // A burst of a thousand pods waits here for a moment: the first MAX_PENDING_ROWS are drawn,
    // the rest counted (the header gives the total). Rows already drawn stay where they are.
    const shown = pods.slice(0, MAX_PENDING_ROWS);
    const rows = shown.map((pod) => this.laneRow(pod));
    if (pods.length > shown.length) {
      lane.more.textContent = t("more_pending", { n: pods.length - shown.length });
      rows.push(lane.more);
    }
    patchChildren(lane.list, rows);
    const keep = new Set(shown.map((pod) => `${pod.metadata.namespace || "default"}/${pod.metadata.name}`));
    for (const key of this.laneRows.keys()) if (!keep.has(key)) this.laneRows.delete(key);
  }

  // The lane's title, its empty note and its list, made once.
  pendingLane() {
    if (this.lane) return this.lane;
    const el = $("pending-lane");
    const count = h("span", { class: "count" });
    const empty = h("p", { class: "lane-empty", text: t("no_pending") });
    const list = h("div", { class: "lane-pods" });
    const more = h("p", { class: "lane-more" });
    clear(el).append(h("h3", { class: "lane-title" }, h("span", { class: "phase-dot phase-Pending" }), t("pending_lane"), count), empty, list);
    this.lane = { el, count, empty, list, more };
    return this.lane;
  }

  laneRow(pod) {
    const key = `${pod.metadata.namespace || "default"}/${pod.metadata.name}`;
    const queue = this.store.scheduling.get(key);
    const kept = this.laneRows.get(key);
    if (kept && kept.pod === pod && kept.queue === queue && !this.changedPods.has(key) && kept.store === this.store) return kept.el;
    const cond = ((pod.status || {}).conditions || []).find((c) => c.type === "PodScheduled" && c.status === "False");
    const reason = cond && cond.message ? cond.message : t("waiting_scheduler");
    const row = h("div", { class: "lane-pod" }, this.chipFor(pod), h("span", { class: "lane-reason", title: reason, text: reason }));
    if (queue) row.append(queueLine(queue));
    if (cond && cond.message && !(queue && queue.message === cond.message)) this.refreshQueue(key, cond.message);
    this.laneRows.set(key, { el: row, pod, queue, store: this.store });
    return row;
  }

  // The pod's queue facts come with its attempts; fetch them again when its condition changes.
  async refreshQueue(key, message) {
    this.queueFetches = this.queueFetches || new Set();
    if (this.queueFetches.has(key)) return;
    this.queueFetches.add(key);
    const [namespace, name] = key.split("/");
    const result = await request(`${BASE}/scheduling/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`);
    this.queueFetches.delete(key);
    if (!result.ok || !result.data.queue) return;
    this.store.scheduling.set(key, { ...result.data.queue, message });
    this.dirtyPending = true;
    this.schedule();
  }

  renderWorkloads() {
    const box = clear($("workloads"));
    const items = [...this.store.workloads.values()].sort((a, b) => collator.compare(a.metadata.name, b.metadata.name));
    box.append(h("h3", { class: "lane-title", text: t("workloads") }));
    if (!items.length) {
      box.append(h("p", { class: "lane-empty", text: t("no_workloads") }));
      return;
    }
    const short = Object.fromEntries(KINDS.workloads.map((k) => [k, KINDS.resources[k].shortNames[0] || k.toLowerCase()]));
    box.append(h("div", { class: "workload-list" }, items.map((w) => {
      const [ready, want] = workloadCount(w);
      return h("button", {
        type: "button",
        class: `workload${ready >= want ? " is-ready" : ""}`,
        onclick: (event) => this.hooks.onWorkload(w, event.currentTarget),
      }, h("span", { class: "wl-kind", text: short[w.kind] || w.kind }), h("span", { class: "wl-name", text: w.metadata.name }),
      h("span", { class: "wl-count", text: w.kind === "CronJob" ? (w.spec || {}).schedule : `${ready}/${want}` }));
    })));
  }
}

// What a workload's chip counts: its ready replicas of spec.replicas; a DaemonSet's ready pods of
// the nodes that should run one; a Job's succeeded pods of its completions; a CronJob (its chip
// shows its schedule) is "ready" unless suspended.
function workloadCount(w) {
  const spec = w.spec || {};
  const status = w.status || {};
  if (w.kind === "CronJob") return spec.suspend ? [0, 1] : [1, 1];
  if (w.kind === "DaemonSet") return [status.numberReady || 0, status.desiredNumberScheduled || 0];
  if (w.kind === "Job") return [status.succeeded || 0, spec.completions ?? 1];
  return [status.readyReplicas || 0, spec.replicas ?? 1];
}

function queueLine(queue) {
  const parts = [queue.queue];
  if (queue.backoffSeconds) parts.push(t("queue_backoff", { seconds: queue.backoffSeconds, left: queue.backoffLeftSeconds ?? 0 }));
  if (queue.rejectors && queue.rejectors.length) parts.push(`${t("queue_rejectors")} ${queue.rejectors.join(", ")}`);
  const retry = pick(queue.retryText);
  return h("span", { class: "lane-queue", title: retry }, h("span", { class: "lane-queue-name", text: parts.join(" · ") }),
    h("span", { class: "lane-queue-retry", text: retry }));
}

// A card's capacity bars, drawn once and then changed in place: a burst moves a bar's fill and
// text a few times a second, and new elements would be styled and laid out afresh each time.
class Bars {
  constructor() {
    this.el = h("div", { class: "bars" });
    this.rows = [];
  }

  show(usage) {
    usage.forEach(([label, used, total, text, inUse, inUseText], i) => {
      let row = this.rows[i];
      if (!row) {
        row = {
          label: h("span", { class: "bar-label" }),
          meter: h("span", { role: "meter", "aria-valuemin": "0" }),
          fill: h("span", { class: "bar-fill" }),
          use: h("span", { class: "bar-use", hidden: true }),
          text: h("span", { class: "bar-text" }),
          requested: h("span", { class: "bar-requested" }),
          inUse: h("span", { class: "bar-in-use", hidden: true }),
          shown: [],
        };
        row.meter.append(row.fill, row.use);
        row.text.append(row.requested, row.inUse);
        this.el.append(h("div", { class: "bar-row" }, row.label, row.meter, row.text));
        this.rows.push(row);
      }
      const shown = [label, used, total, text, inUse, inUseText];
      if (shown.every((value, k) => row.shown[k] === value)) return;
      row.shown = shown;
      // In use (the metrics API) as a dark line over what the pods request: the HPA lesson's two
      // numbers side by side, usage above requests when a load runs unthrottled.
      const known = inUse !== null && inUse !== undefined;
      row.use.hidden = !known;
      row.inUse.hidden = !known;
      if (known) {
        row.use.style.width = `${((total > 0 ? Math.min(1, inUse / total) : 0) * 100).toFixed(1)}%`;
        row.inUse.textContent = ` · ${t("in_use")} ${inUseText}`;
      }
      row.meter.title = known ? t("usage_title", { requested: text, used: inUseText }) : "";
      const ratio = total > 0 ? Math.min(1, used / total) : 0;
      const level = ratio > 0.9 ? "bar-hot" : ratio > 0.7 ? "bar-warm" : "";
      row.label.textContent = label;
      row.meter.className = `bar ${level}`;
      row.meter.setAttribute("aria-label", label);
      row.meter.setAttribute("aria-valuemax", String(total));
      row.meter.setAttribute("aria-valuenow", String(used));
      row.fill.style.width = `${(ratio * 100).toFixed(1)}%`;
      row.requested.textContent = text;
    });
  }
}
