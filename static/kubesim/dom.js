// DOM helpers. Data NEVER goes through innerHTML: every string lands in textContent or an
// attribute set with setAttribute, so a hostile pod name or label stays text.

const boot = JSON.parse(document.getElementById("ks-boot").textContent);
export const BOOT = boot;
export const LANG = (document.documentElement.lang || "en").toLowerCase().startsWith("zh") ? "zh" : "en";

export function t(key, vars) {
  let text = boot.strings[key] ?? key;
  if (vars) {
    for (const [name, value] of Object.entries(vars)) text = text.replace(`%(${name})s`, String(value));
  }
  return text;
}

// Pick the current language out of {en, zh} pairs the server sends (Why, step captions).
export function pick(pair) {
  if (!pair) return "";
  if (typeof pair === "string") return pair;
  return pair[LANG] || pair.en || "";
}

export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) setAttrs(el, attrs);
  append(el, children);
  return el;
}

const SVG_NS = "http://www.w3.org/2000/svg";
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  if (attrs) setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el, attrs) {
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.setAttribute("class", value);
    else if (key === "text") el.textContent = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "style" && typeof value === "object") Object.assign(el.style, value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function clear(el) {
  el.replaceChildren(); // one mutation, not one per child
  return el;
}

export function $(id) {
  return document.getElementById(id);
}

function csrfToken() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

export const CLUSTER = boot.cluster;
// What the server's kind registry tells the page: {workloads: [kind, ...]}.
export const KINDS = boot.kinds;

// An object's REST path, from the kind registry's group, version, plural and scope.
export function objectPath(kind, namespace, name) {
  const r = KINDS.resources[kind];
  const root = r.group ? `apis/${r.group}/${r.version}` : `api/${r.version}`;
  const where = r.namespaced ? `namespaces/${encodeURIComponent(namespace)}/` : "";
  return `${BASE}/${root}/${where}${r.plural}/${encodeURIComponent(name)}`;
}
export const BASE = `/clusters/${encodeURIComponent(CLUSTER)}`;

// fetch() with the CSRF header, the web client's name, and JSON in/out by default.
export async function request(path, { method = "GET", body, type = "application/json", client = "web", detail = "web form" } = {}) {
  const headers = { "X-KubeSim-Client": client, "X-KubeSim-Detail": detail, Accept: "application/json" };
  if (method !== "GET") headers["X-CSRFToken"] = csrfToken();
  let payload = body;
  if (body !== undefined && typeof body !== "string") payload = JSON.stringify(body);
  if (payload !== undefined) headers["Content-Type"] = type;
  const response = await fetch(path.startsWith("/") ? path : `${BASE}/${path}`, {
    method,
    headers,
    body: payload,
    credentials: "same-origin",
  });
  const text = await response.text();
  let data = text;
  if ((response.headers.get("Content-Type") || "").includes("json")) {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  return { ok: response.ok, status: response.status, data };
}

export function toast(message, kind = "info") {
  const box = $("toasts");
  const item = h("div", { class: `toast toast-${kind}`, role: kind === "error" ? "alert" : "status" }, message);
  box.append(item);
  setTimeout(() => item.classList.add("toast-out"), 3600);
  setTimeout(() => item.remove(), 4000);
}

// Kubernetes' Status message, or the HTTP status, for a failed request.
export function failure(result) {
  if (result.data && typeof result.data === "object" && result.data.message) return result.data.message;
  return `${t("request_failed")} (HTTP ${result.status})`;
}

export function podKey(pod) {
  return `${pod.metadata.namespace || "default"}/${pod.metadata.name}`;
}

// How far this cluster's clock runs ahead of real time (a teacher's jump, docs/workloads.md):
// ages are read on the cluster's clock, as the API server reads them.
let clockOffsetMs = (boot.clock_offset || 0) * 1000;
export function setClockOffset(seconds) {
  clockOffsetMs = (seconds || 0) * 1000;
}

export function age(timestamp) {
  if (!timestamp) return "";
  const seconds = Math.max(0, Math.round((Date.now() + clockOffsetMs - Date.parse(timestamp)) / 1000));
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)}m`;
  return `${Math.floor(seconds / 3600)}h`;
}

// Redraws take turns, one per animation frame: the browser then styles, lays out and paints one
// view's changes in a frame, and a burst's cluster and flow redraws do not add up in the same one.
const turns = [];
let turnFrame = 0;
function takeTurn() {
  turnFrame = turns.length > 1 ? requestAnimationFrame(takeTurn) : 0;
  turns.shift()();
}

// Run `callback` in an animation frame of its own (after the redraws already waiting).
export function inFrame(callback) {
  turns.push(callback);
  if (!turnFrame) turnFrame = requestAnimationFrame(takeTurn);
}

// Run `callback` in an animation frame, at most once per frame and never sooner than `minMs()`
// after its last run: a burst of a thousand pods redraws a few times a second, not on every frame.
export function framed(callback, minMs = () => 0) {
  let due = false;
  let timer = 0;
  let last = -Infinity;
  const run = () => {
    due = false;
    last = performance.now();
    callback();
  };
  const queue = () => {
    timer = 0;
    due = true;
    inFrame(run);
  };
  return () => {
    if (due || timer) return;
    const wait = last + minMs() - performance.now();
    if (wait <= 0) queue();
    else timer = setTimeout(queue, wait);
  };
}

// Make `box`'s element children exactly `wanted`, in order, touching only those that changed or
// moved: the rest keep their style and layout (replaceChildren would take out and restyle all).
export function patchChildren(box, wanted) {
  const current = box.children;
  const keep = new Set(wanted);
  wanted.forEach((el, i) => {
    const at = current[i];
    if (at === el) return;
    if (at && !keep.has(at)) at.replaceWith(el);
    else box.insertBefore(el, at || null);
  });
  while (current.length > wanted.length) box.lastElementChild.remove();
}

// Keep class `name` on `el` while `hold()` keeps being called and for `holdMs` after the last
// call (then `onEnd()`): a burst switches its animations off once, not on and off between its
// redraws.
export function heldClass(el, name, holdMs, onEnd = () => {}) {
  let timer = 0;
  return () => {
    if (!el.classList.contains(name)) el.classList.add(name);
    clearTimeout(timer);
    timer = setTimeout(() => {
      el.classList.remove(name);
      onEnd();
    }, holdMs);
  };
}

// Names in "natural" order (pod-2 before pod-10), as Intl.Collator's numeric option sorts them but
// by plain string comparison of a key computed once per name: sorting a thousand pending pods a
// few times a second must not cost a collator call per comparison.
const naturalKeys = new Map();
export function naturalKey(name) {
  let key = naturalKeys.get(name);
  if (key === undefined) {
    key = name.toLowerCase().replace(/\d+/g, (digits) => digits.padStart(12, "0"));
    if (naturalKeys.size > 20000) naturalKeys.clear();
    naturalKeys.set(name, key);
  }
  return key;
}

export function byNaturalName(a, b) {
  const ka = naturalKey(a.metadata.name);
  const kb = naturalKey(b.metadata.name);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
