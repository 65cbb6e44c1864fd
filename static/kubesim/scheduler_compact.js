// The scheduler's explanation node by node, narrow enough for its pane: for each node only the
// filters that failed (plugin, upstream's reason, the plain-language why) and, for the nodes that
// were scored, the priorities whose scores told them apart. The full matrix (every node × every
// plugin) is the other view of the same attempt (scheduler_view.js).

import { h, pick, t } from "./dom.js";

const collator = new Intl.Collator(undefined, { numeric: true });
// A hundred-node cluster lists this many failed nodes one by one; the others are counted by the
// filter that refused them.
const FAILED_SHOWN = 8;
const FAILED = new Set(["Unschedulable", "UnschedulableAndUnresolvable", "Error"]);

function failures(result) {
  return Object.entries(result.filters || {})
    .filter(([, status]) => FAILED.has(status.status))
    .map(([plugin, status]) => ({ plugin, ...status }));
}

// The plugins whose weighted scores differ between the scored nodes: the ones that decided.
function deciding(d, scored) {
  return (d.scorePlugins || []).filter((p) => {
    const values = scored.map((node) => (d.nodes[node].scores[p.name] || {}).weighted ?? 0);
    return Math.max(...values) !== Math.min(...values);
  });
}

function failureItem(node, failure) {
  const first = node.firstFailure && node.firstFailure.plugin === failure.plugin;
  return h("li", { class: `compact-fail${first ? " is-first" : ""}`, "data-plugin": failure.plugin },
    h("span", { class: "compact-line" },
      h("span", { class: "mark", text: "✗" }),
      h("strong", { class: "compact-plugin", text: failure.plugin }),
      first ? h("span", { class: "first-flag", title: t("first_failure"), text: t("first_short") }) : null,
      h("span", { class: "reason", text: (failure.reasons || []).join("; ") || failure.status })),
    failure.why ? h("span", { class: "why", text: pick(failure.why) }) : null);
}

// A priority's score on the node; the chosen node's also says why (the arithmetic in words).
function scoreItem(d, node, plugin, index) {
  const score = d.nodes[node].scores[plugin.name];
  if (!score) return null;
  return h("li", { class: "compact-score", title: pick(score.why) },
    h("span", { class: "compact-line" },
      h("span", { class: `swatch sw-${index % 7}` }),
      h("span", { class: "compact-plugin", text: plugin.name }),
      h("span", { class: "score-main", text: `${score.normalized} × ${score.weight} = ${score.weighted}` })),
    node === d.selected && score.why ? h("span", { class: "why", text: pick(score.why) }) : null);
}

function nodeItem(d, node, decided, scored) {
  const result = d.nodes[node];
  const winner = node === d.selected;
  const fails = failures(result);
  let verdict;
  if (!result.feasible) verdict = t("sched_fails", { n: fails.length });
  else if (scored.includes(node)) verdict = t("sched_scored", { total: result.total });
  else if ((d.notScored || []).includes(node)) verdict = t("sched_not_scored_pct");
  else verdict = t("sched_passes");
  const item = h("li", { class: `compact-node ${result.feasible ? "is-feasible" : "is-filtered"}${winner ? " is-winner" : ""}`, "data-node": node },
    h("div", { class: "compact-head" },
      h("strong", { class: "compact-name", text: `${winner ? "★ " : ""}${node}` }),
      h("span", { class: "compact-verdict", text: verdict })));
  if (fails.length) item.append(h("ul", { class: "compact-fails" }, fails.map((f) => failureItem(result, f))));
  if (scored.includes(node) && decided.length) {
    item.append(h("ul", { class: "compact-scores" }, decided.map((p) => scoreItem(d, node, p, (d.scorePlugins || []).indexOf(p)))));
  }
  return item;
}

// The failed nodes beyond FAILED_SHOWN, counted by the filter kube-scheduler reports for each.
function restOf(d, nodes) {
  const counts = new Map();
  for (const node of nodes) {
    const first = d.nodes[node].firstFailure;
    const key = first ? `${first.plugin}: ${(first.reasons || []).join("; ")}` : "";
    counts.set(key, (counts.get(key) || 0) + 1);
  }
  return h("li", { class: "compact-node compact-rest" },
    h("div", { class: "compact-head" }, h("strong", { class: "compact-name", text: t("sched_more_nodes", { n: nodes.length }) })),
    h("ul", { class: "compact-fails" }, [...counts].map(([key, n]) => h("li", { class: "compact-fail" },
      h("span", { class: "compact-line" }, h("span", { class: "mark", text: "✗" }), h("span", { class: "reason", text: `${n} × ${key}` }))))));
}

export function byNode(d, nodes) {
  const scored = nodes.filter((n) => d.nodes[n].feasible && d.nodes[n].total !== null && d.nodes[n].total !== undefined);
  const decided = scored.length > 1 ? deciding(d, scored) : [];
  const feasible = nodes.filter((n) => d.nodes[n].feasible)
    .sort((a, b) => (b === d.selected) - (a === d.selected) || (d.nodes[b].total ?? 0) - (d.nodes[a].total ?? 0) || collator.compare(a, b));
  const failed = nodes.filter((n) => !d.nodes[n].feasible).sort(collator.compare);
  const items = [...feasible, ...failed.slice(0, FAILED_SHOWN)].map((node) => nodeItem(d, node, decided, scored));
  if (failed.length > FAILED_SHOWN) items.push(restOf(d, failed.slice(FAILED_SHOWN)));
  const section = h("section", { class: "sched-compact" }, h("ol", { class: "compact-nodes" }, items));
  if (scored.length > 1) {
    section.append(h("p", { class: "compact-note muted", text: decided.length ? t("sched_same_scores") : t("sched_all_same") }));
  } else if (feasible.length === 1) {
    section.append(h("p", { class: "compact-note muted", text: t("not_scored") }));
  }
  return section;
}

// The switch between the two views, as a segmented control.
export function viewSwitch(full, onChange) {
  const button = (value, label) => h("button", { type: "button", "data-view": value, "aria-pressed": String(full === (value === "matrix")), text: label,
    onclick: () => onChange(value === "matrix") });
  return h("div", { class: "view-switch", role: "group", "aria-label": t("sched_view") },
    button("nodes", t("sched_by_node")), button("matrix", t("sched_full_matrix")));
}
