// Entry point: wires the store, the websocket and the panels together; tabs, presenter mode and
// keyboard shortcuts (N next step, R replay, P presenter, 1–4 tabs).

import { $, BOOT, t, toast } from "./dom.js";
import { Store } from "./store.js";
import { Live } from "./live.js";
import { ClusterView } from "./cluster_view.js";
import { watchNodeUsage } from "./node_usage.js";
import { FlowView } from "./flow_view.js";
import { SchedulerView } from "./scheduler_view.js";
import { YamlView } from "./yaml_view.js";
import { ConsoleView } from "./console_view.js";
import { InspectView } from "./inspect_view.js";
import { ServicesView } from "./services_view.js";
import { addNode, deleteObject, jumpToNextRun, moveClock, nodeActions, openMenu, scaleWorkload, setKubelet } from "./actions.js";
import { wireAccess } from "./access.js";
import { PredictionView } from "./prediction.js";

const store = new Store();
const live = new Live(store);
const TABS = ["scheduler", "yaml", "console", "inspect"];

function selectTab(name, focus = false) {
  for (const tab of TABS) {
    const selected = tab === name;
    $(`tab-${tab}`).setAttribute("aria-selected", String(selected));
    $(`tab-${tab}`).tabIndex = selected ? 0 : -1;
    $(`pane-${tab}`).hidden = !selected;
  }
  inspect.setShown(name === "inspect"); // a followed log streams only while it is seen
  if (focus) $(`tab-${name}`).focus();
  if (name === "console") $("console-input").focus();
}

const inspect = new InspectView(store);
const scheduler = new SchedulerView(store, {});

function openScheduler(key) {
  selectTab("scheduler");
  scheduler.show(key);
}

function inspectObject(kind, namespace, name) {
  selectTab("inspect");
  inspect.open(kind, namespace, name);
}

const clusterView = new ClusterView(store, {
  onPod(pod, anchor) {
    const ns = pod.metadata.namespace || "default";
    const key = `${ns}/${pod.metadata.name}`;
    flow.followPod(key); // the flow tells this pod's story
    openMenu(anchor, `pod/${pod.metadata.name}`, [
      { label: t("explain"), run: () => openScheduler(key) },
      { label: t("inspect"), run: () => inspectObject("Pod", ns, pod.metadata.name) },
      { label: t("delete_pod"), danger: true, run: () => deleteObject("Pod", ns, pod.metadata.name) },
    ]);
  },
  onNodeMenu(node, anchor) {
    const name = node.metadata.name;
    const stopped = name in (store.stoppedKubelets || {});
    // The teacher's node failure, and the clock that makes its 50 s and 300 s pass.
    const failure = BOOT.access.teacher ? [
      stopped ? { label: t("kubelet_start"), run: () => setKubelet(name, true) }
        : { label: t("kubelet_stop"), danger: true, run: () => setKubelet(name, false) },
      ...(stopped ? [1, 5].map((minutes) => ({ label: t("clock_forward", { minutes }), run: () => moveClock(minutes * 60) })) : []),
    ] : [];
    openMenu(anchor, `node/${name}`, [
      { label: t("inspect"), run: () => inspectObject("Node", "", name) },
      ...nodeActions(node),
      ...failure,
    ]);
  },
  onWorkload(w, anchor) {
    const ns = w.metadata.namespace || "default";
    openMenu(anchor, `${w.kind.toLowerCase()}/${w.metadata.name}`, [
      // Only what has spec.replicas scales (not a DaemonSet or a Job).
      ...("replicas" in (w.spec || {}) ? [{ label: t("scale"), run: () => scaleWorkload(w) }] : []),
      // The teacher's: move this cluster's clock to the CronJob's next run.
      ...(w.kind === "CronJob" && BOOT.access.teacher ? [{ label: t("clock_jump"), run: () => jumpToNextRun(w) }] : []),
      { label: t("inspect"), run: () => inspectObject(w.kind, ns, w.metadata.name) },
      { label: t("delete"), danger: true, run: () => deleteObject(w.kind, ns, w.metadata.name) },
    ]);
  },
});
const flow = new FlowView(store, live, clusterView, { openScheduler });
watchNodeUsage(store, () => clusterView.refreshUsage());
new ServicesView(store, { onService: (ns, name) => inspectObject("Service", ns, name) });
new YamlView(store);
new ConsoleView(store, { openScheduler });

for (const tab of TABS) {
  $(`tab-${tab}`).addEventListener("click", () => selectTab(tab));
  $(`tab-${tab}`).addEventListener("keydown", (event) => {
    const i = TABS.indexOf(tab);
    if (event.key === "ArrowRight") selectTab(TABS[(i + 1) % TABS.length], true);
    if (event.key === "ArrowLeft") selectTab(TABS[(i + TABS.length - 1) % TABS.length], true);
  });
}
selectTab("scheduler");

$("add-node").addEventListener("click", () => addNode(store.nodes));

function setPresenter(on) {
  // On <html> too, for its font size: a :has(body.presenter) rule would be matched again on every
  // change to the page.
  document.documentElement.classList.toggle("presenter", on);
  document.body.classList.toggle("presenter", on);
  $("presenter-toggle").setAttribute("aria-pressed", String(on));
  localStorage.setItem("kubesim.presenter", on ? "1" : "");
}
$("presenter-toggle").addEventListener("click", () => setPresenter(!document.body.classList.contains("presenter")));
setPresenter(Boolean(localStorage.getItem("kubesim.presenter")));

$("kubectl-copy").addEventListener("click", async (event) => {
  const command = event.currentTarget.dataset.command;
  try {
    await navigator.clipboard.writeText(command);
    toast(`${t("copied")}: ${command}`);
  } catch {
    toast(command);
  }
});

// Fields that take typed text keep their keys; every other control (the step-mode switch, the
// pace slider, a button, a tab, a picker) lets the shortcuts through.
const TEXT_INPUTS = new Set(["text", "search", "url", "email", "password", "number", "tel", "date", "datetime-local", "month", "time", "week"]);
function takesText(target) {
  if (!(target instanceof Element)) return false;
  if (target.closest("textarea, [contenteditable=''], [contenteditable='true'], dialog[open]")) return true;
  return target instanceof HTMLInputElement && TEXT_INPUTS.has(target.type);
}

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
  if (takesText(event.target)) return;
  const key = event.key.toLowerCase();
  let handled = true;
  if (key === "n") flow.next();
  else if (key === "r") flow.startReplay();
  else if (key === "p") setPresenter(!document.body.classList.contains("presenter"));
  else if (key === "a" && $("predict-arm")) $("predict-arm").click(); // the teacher asks the class
  else if (key === "escape" && flow.replay) flow.stopReplay();
  else if (["1", "2", "3", "4"].includes(key)) selectTab(TABS[Number(key) - 1], true);
  else handled = false;
  // The key is used up: a digit that opens the console must not be typed into it too.
  if (handled) event.preventDefault();
});

wireAccess(store);
new PredictionView(store);
live.connect();
