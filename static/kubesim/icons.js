// Small inline SVG icons: no font on a classroom's machine is sure to have ⏸, ⛔, ☍ or ⋯.

import { s } from "./dom.js";

const PATHS = {
  pause: [["rect", { x: 3.5, y: 2.5, width: 3, height: 11, rx: 1, fill: "currentColor" }],
    ["rect", { x: 9.5, y: 2.5, width: 3, height: 11, rx: 1, fill: "currentColor" }]],
  "no-entry": [["circle", { cx: 8, cy: 8, r: 6.5, fill: "currentColor" }],
    ["rect", { x: 4, y: 6.8, width: 8, height: 2.4, rx: .6, fill: "#fff" }]],
  taint: [["path", { d: "M8 1.8c2.6 3.2 4.2 5.6 4.2 7.6a4.2 4.2 0 0 1-8.4 0c0-2 1.6-4.4 4.2-7.6z", fill: "none", stroke: "currentColor", "stroke-width": 1.6 }]],
  more: [["circle", { cx: 3, cy: 8, r: 1.5, fill: "currentColor" }], ["circle", { cx: 8, cy: 8, r: 1.5, fill: "currentColor" }],
    ["circle", { cx: 13, cy: 8, r: 1.5, fill: "currentColor" }]],
  replay: [["path", { d: "M3.5 8a4.5 4.5 0 1 0 1.4-3.3M3.5 2.5v2.9h2.9", fill: "none", stroke: "currentColor", "stroke-width": 1.7, "stroke-linecap": "round", "stroke-linejoin": "round" }]],
};

export function icon(name, label = "") {
  const svg = s("svg", { class: `icon icon-${name}`, viewBox: "0 0 16 16", "aria-hidden": label ? null : "true", role: label ? "img" : null, "aria-label": label || null });
  for (const [tag, attrs] of PATHS[name]) svg.append(s(tag, attrs));
  return svg;
}
