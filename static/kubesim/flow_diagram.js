// The component diagram: kubectl/web, the control plane (APIServer, etcd, Controller Manager,
// Scheduler) and a kubelet per node; a step lights its arrow with its number.

import { clear, s, t } from "./dom.js";

const MAX_KUBELETS = 5;
// Two layouts of the same components. Normal: roomy, with each part's subtitle. Presenter: wide
// and short, titles only, so that the diagram scales up in a projector's flow panel and its names
// stay readable from the back of the room (kubesim.css sizes the text for each).
const LAYOUTS = {
  normal: {
    W: 720,
    H: 430,
    zones: [{ x: 156, y: 14, width: 384, height: 400, label: "zone_master" }, { x: 554, y: 14, width: 164, height: 400, label: "zone_nodes" }],
    kubelets: { x: 566, w: 140, top: 60, bottom: 20, gap: 70, pad: 12, sub: true },
    badge: { current: 13, past: 10 },
    boxes: {
      kubectl: { x: 18, y: 190, w: 124, h: 58, title: "kubectl", sub: "web · API" },
      "controller-manager": { x: 170, y: 46, w: 176, h: 58, title: "Controller Manager", sub: "http :8080" },
      scheduler: { x: 374, y: 46, w: 150, h: 58, title: "Scheduler", sub: "kube-scheduler" },
      apiserver: { x: 270, y: 190, w: 150, h: 62, title: "APIServer", sub: "REST · watch" },
      etcd: { x: 280, y: 330, w: 130, h: 64, title: "etcd", sub: "revision", cylinder: true },
    },
  },
  presenter: {
    W: 700,
    H: 236,
    zones: [{ x: 126, y: 4, width: 398, height: 228, label: "zone_master" }, { x: 540, y: 4, width: 156, height: 228, label: "zone_nodes" }],
    kubelets: { x: 550, w: 136, top: 30, bottom: 8, gap: 54, pad: 10, sub: false },
    badge: { current: 16, past: 13 },
    boxes: {
      kubectl: { x: 6, y: 100, w: 106, h: 42, title: "kubectl" },
      "controller-manager": { x: 136, y: 28, w: 222, h: 42, title: "Controller Manager" },
      scheduler: { x: 372, y: 28, w: 142, h: 42, title: "Scheduler" },
      apiserver: { x: 254, y: 100, w: 142, h: 42, title: "APIServer" },
      etcd: { x: 272, y: 168, w: 106, h: 54, title: "etcd", cylinder: true },
    },
  },
};

function presenting() {
  return document.documentElement.classList.contains("presenter");
}

export class FlowDiagram {
  // `svg` holds the components, `overlay` (the same size, on top) what a step lights.
  constructor(svg, overlay) {
    this.svg = svg;
    this.overlay = overlay;
    this.kubelets = [];
    this.nodesKey = "";
    this.layout = LAYOUTS.normal;
  }

  // The nodes' kubelets, in the layout of the page's mode (a change of either redraws: the flow
  // view redraws its step whenever nodesKey changes).
  setNodes(names) {
    const mode = presenting() ? "presenter" : "normal";
    const key = `${mode}\n${names.join("\n")}`;
    if (key === this.nodesKey) return;
    this.nodesKey = key;
    const layout = (this.layout = LAYOUTS[mode]);
    for (const layer of [this.svg, this.overlay]) layer.setAttribute("viewBox", `0 0 ${layout.W} ${layout.H}`);
    const k = layout.kubelets;
    const shown = names.length > MAX_KUBELETS ? names.slice(0, MAX_KUBELETS - 1) : names;
    const slots = shown.length + (names.length > shown.length ? 1 : 0);
    const room = layout.H - k.top - k.bottom;
    const gap = Math.min(k.gap, room / Math.max(slots, 1));
    const top = k.top + Math.max(0, (room - gap * slots) / 2);
    const slot = (i) => ({ x: k.x, y: top + i * gap, w: k.w, h: gap - k.pad, sub: k.sub });
    this.kubelets = shown.map((name, i) => ({ id: `kubelet:${name}`, node: name, ...slot(i) }));
    if (names.length > shown.length) {
      this.kubelets.push({ id: "kubelet:+", node: "", more: names.length - shown.length, ...slot(shown.length) });
    }
    this.draw();
  }

  box(id, node) {
    if (id === "kubelet") {
      return this.kubelets.find((k) => k.node === node) || this.kubelets.find((k) => k.more) || this.kubelets[0];
    }
    return this.layout.boxes[id];
  }

  draw() {
    const svg = clear(this.svg);
    const parts = this.layout.boxes;
    for (const zone of this.layout.zones) {
      svg.append(
        s("rect", { class: "zone", x: zone.x, y: zone.y, width: zone.width, height: zone.height, rx: 18 }),
        s("text", { class: "zone-label", x: zone.x + 14, y: zone.y + 19, text: t(zone.label) }),
      );
    }
    this.base = s("g", { class: "base-links" });
    for (const id of ["controller-manager", "scheduler"]) this.base.append(this.link(parts[id], parts.apiserver, "link"));
    this.base.append(this.link(parts.kubectl, parts.apiserver, "link"), this.link(parts.apiserver, parts.etcd, "link"));
    for (const k of this.kubelets) this.base.append(this.link(k, parts.apiserver, "link"));
    svg.append(this.base);
    const boxes = s("g", { class: "boxes" });
    for (const [id, b] of Object.entries(parts)) boxes.append(this.component(id, b));
    for (const k of this.kubelets) boxes.append(this.component(k.id, this.titled(k.id, k)));
    svg.append(boxes);
    this.active = s("g", { class: "lit-comps" }); // the step's components, drawn lit over their boxes
    this.lit = s("g", { class: "lit-links" });
    clear(this.overlay).append(
      s("defs", null,
        s("marker", { id: "arrowhead", viewBox: "0 0 10 10", refX: "8", refY: "5", markerWidth: "7", markerHeight: "7", orient: "auto-start-reverse" },
          s("path", { d: "M0,0 L10,5 L0,10 z", class: "arrowhead" })),
        s("marker", { id: "arrowhead-dim", viewBox: "0 0 10 10", refX: "8", refY: "5", markerWidth: "6", markerHeight: "6", orient: "auto-start-reverse" },
          s("path", { d: "M0,0 L10,5 L0,10 z", class: "arrowhead-dim" }))),
      this.active,
      this.lit,
    );
  }

  // Component `id`'s box and titles as drawn in `draw`.
  titled(id, b) {
    if (!id.startsWith("kubelet:")) return b;
    return { ...b, title: b.more ? `+${b.more} kubelets` : b.node, sub: b.more || !b.sub ? "" : "kubelet · Docker" };
  }

  component(id, b) {
    const g = s("g", { class: `comp comp-${id.split(":")[0]}`, "data-comp": id });
    if (b.cylinder) {
      const ry = 9;
      g.append(
        s("path", { class: "comp-box", d: `M${b.x},${b.y + ry} a${b.w / 2},${ry} 0 0,1 ${b.w},0 v${b.h - 2 * ry} a${b.w / 2},${ry} 0 0,1 ${-b.w},0 z` }),
        s("path", { class: "comp-rim", d: `M${b.x},${b.y + ry} a${b.w / 2},${ry} 0 0,0 ${b.w},0` }),
      );
    } else {
      g.append(s("rect", { class: "comp-box", x: b.x, y: b.y, width: b.w, height: b.h, rx: 12 }));
    }
    const sub = b.sub && b.h >= 44;
    const middle = b.y + b.h / 2;
    // Alone, the title sits in the middle of its box; above its subtitle, a little higher.
    g.append(s("text", { class: "comp-title", x: b.x + b.w / 2, y: sub ? middle - 2 : middle, "dominant-baseline": sub ? null : "central", "text-anchor": "middle", text: b.title }));
    if (sub) g.append(s("text", { class: "comp-sub", x: b.x + b.w / 2, y: middle + 15, "text-anchor": "middle", text: b.sub }));
    return g;
  }

  // A straight arrow between two boxes' edges, nudged sideways so A→B and B→A stay apart.
  geometry(a, b, nudge) {
    const ax = a.x + a.w / 2;
    const ay = a.y + a.h / 2;
    const bx = b.x + b.w / 2;
    const by = b.y + b.h / 2;
    const dx = bx - ax;
    const dy = by - ay;
    const len = Math.hypot(dx, dy) || 1;
    const nx = (-dy / len) * nudge;
    const ny = (dx / len) * nudge;
    const start = edge(a, dx, dy);
    const end = edge(b, -dx, -dy);
    return { x1: ax + start.x + nx, y1: ay + start.y + ny, x2: bx + end.x + nx, y2: by + end.y + ny };
  }

  link(a, b, cls) {
    const g = this.geometry(a, b, 0);
    return s("line", { class: cls, x1: g.x1, y1: g.y1, x2: g.x2, y2: g.y2 });
  }

  clearLit() {
    clear(this.lit);
    clear(this.active);
    this.lighted = new Set();
  }

  // Draw component `id` (box `b`) lit, over its box, once per step shown.
  light(id, b) {
    if (this.lighted.has(id)) return;
    this.lighted.add(id);
    const comp = this.component(id, this.titled(id, b));
    comp.classList.add("is-active");
    this.active.append(comp);
  }

  // Draw one step's arrow(s). `current` steps are bold and animated (unless `still`: steps come
  // faster than a packet travels); earlier ones stay faint.
  showStep(step, current, still = false) {
    // Step 1 names several watchers at once: "controller-manager,scheduler,kubelet" -> apiserver.
    const sources = String(step.from || "").split(",").filter(Boolean);
    const targets = String(step.to || "").split(",").filter(Boolean);
    const pairs = sources.flatMap((from) => targets.map((to) => [from, to]));
    const ends = [];
    for (const [from, to] of pairs) {
      // A kubelet step without a node (step 1's watches) means every kubelet.
      const froms = from === "kubelet" && !step.node ? this.kubelets : [this.box(from, step.node)];
      const tos = to === "kubelet" && !step.node ? this.kubelets : [this.box(to, step.node)];
      for (const a of froms) for (const b of tos) ends.push([from, to, a, b]);
    }
    for (const [from, to, a, b] of ends) {
      if (!a || !b || a === b) continue;
      const nudge = from < to ? 7 : -7;
      const g = this.geometry(a, b, nudge);
      const cls = `arrow${current ? " arrow-current" : " arrow-past"}${step.skipped ? " arrow-skipped" : ""}`;
      const path = s("path", { class: cls, d: `M${g.x1},${g.y1} L${g.x2},${g.y2}`, "marker-end": current ? "url(#arrowhead)" : "url(#arrowhead-dim)" });
      this.lit.append(path);
      if (current) {
        this.light(from === "kubelet" ? a.id : from, a);
        this.light(to === "kubelet" ? b.id : to, b);
        if (!step.skipped && !still) {
          const dot = s("circle", { class: "packet", r: 5 });
          dot.append(s("animateMotion", { dur: "0.7s", repeatCount: "1", fill: "freeze", path: `M${g.x1},${g.y1} L${g.x2},${g.y2}` }));
          this.lit.append(dot);
        }
      }
      const mx = (g.x1 + g.x2) / 2;
      const my = (g.y1 + g.y2) / 2;
      const r = current ? this.layout.badge.current : this.layout.badge.past;
      const badge = s("g", { class: `step-badge${current ? " is-current" : ""}${step.skipped ? " is-skipped" : ""}` },
        s("circle", { cx: mx, cy: my, r }),
        s("text", { x: mx, y: my, "text-anchor": "middle", "dominant-baseline": "central", text: String(step.step) }));
      this.lit.append(badge);
    }
  }
}

function edge(box, dx, dy) {
  const hw = box.w / 2 + 3;
  const hh = box.h / 2 + 3;
  const scale = Math.min(hw / Math.abs(dx || 1e-9), hh / Math.abs(dy || 1e-9));
  return { x: dx * scale, y: dy * scale };
}
