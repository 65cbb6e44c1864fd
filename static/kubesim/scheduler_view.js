// The scheduler panel for any pod: filter matrix (nodes × predicates), score matrix with stacked
// bars, the tie rule, the FailedScheduling line as `kubectl describe` prints it, and the attempts.

import { $, BASE, age, clear, h, naturalKey, pick, podKey, request, t } from "./dom.js";
import { byNode, viewSwitch } from "./scheduler_compact.js";
import { WhatIfDialog } from "./what_if.js";
import { SettingsDialog } from "./scheduler_settings.js";

const collator = new Intl.Collator(undefined, { numeric: true });
const SCORE_COLOURS = 7;

// An attempt whose PostFilter nominated a node (and evicted victims there).
function preempted(attempt) {
  const p = (attempt.decision || {}).preemption;
  return Boolean(p && p.nominatedNode);
}

function attemptsOf(data) {
  const list = Array.isArray(data) ? data : data.attempts || [];
  return list.map((a) => ({ ...a, decision: a.decision || a.explanation || a, when: a.createdAt || a.timestamp }));
}

const PICKER_MS = 400;
const FULL_MATRIX_KEY = "kubesim.scheduler.matrix";
const PICKER_EAGER_PODS = 300;

export class SchedulerView {
  constructor(store, hooks) {
    this.store = store;
    this.hooks = hooks;
    this.pod = "";
    this.attempts = [];
    this.attempt = 0;
    this.timer = 0;
    this.expanded = new Set();
    // The explanation node by node (what failed, what decided) unless the full matrix was picked.
    this.fullMatrix = localStorage.getItem(FULL_MATRIX_KEY) === "1";
    $("sched-pod").addEventListener("change", (event) => this.show(event.target.value));
    // The picker lists every pod: during a burst of a thousand it is rebuilt at most every
    // PICKER_MS, and at once when someone reaches for it.
    this.pickerDirty = false;
    this.pickerTimer = 0;
    for (const type of ["pointerdown", "focus", "keydown"]) {
      $("sched-pod").addEventListener(type, () => { if (this.pickerDirty) this.renderPicker(); });
    }
    $("sched-attempt").addEventListener("change", (event) => {
      this.attempt = Number(event.target.value);
      this.renderAttempt();
    });
    this.whatIf = new WhatIfDialog(store);
    this.settings = new SettingsDialog();
    $("sched-whatif").addEventListener("click", () => { if (this.pod) this.whatIf.open(this.pod, this.attempts); });
    $("sched-settings").addEventListener("click", () => this.settings.open());
    this.show("");
    store.subscribe((change) => {
      const moved = (p) => (p && p.spec ? p.spec.nodeName || "" : "");
      if (change.type === "snapshot" || (change.kind === "Pod" && (change.action !== "modified" || moved(change.before) !== moved(change.object)))) {
        this.pickerSoon();
      }
      if (this.pod && (change.type === "snapshot" || change.key === this.pod)) this.refreshSoon();
    });
  }

  pickerSoon() {
    this.pickerDirty = true;
    // Hundreds of pods: listing them costs tens of ms, a stall in a burst's animation, so the list
    // is rebuilt when someone reaches for it (or shows a pod), not on a timer.
    if (this.store.pods.size > PICKER_EAGER_PODS) return;
    if (!this.pickerTimer) this.pickerTimer = setTimeout(() => this.renderPicker(), PICKER_MS);
  }

  renderPicker() {
    clearTimeout(this.pickerTimer);
    this.pickerTimer = 0;
    this.pickerDirty = false;
    const select = $("sched-pod");
    // Pending pods first, then by "namespace/name"; an option is reused while its text holds.
    const rows = [...this.store.pods.values()].map((pod) => {
      const key = podKey(pod);
      const node = pod.spec && pod.spec.nodeName;
      return { key, node, text: `${key}${node ? `  → ${node}` : `  (${t("phase_Pending")})`}` };
    });
    rows.sort((a, b) => (a.node ? 1 : 0) - (b.node ? 1 : 0) || (naturalKey(a.key) < naturalKey(b.key) ? -1 : naturalKey(a.key) > naturalKey(b.key) ? 1 : 0));
    const kept = this.options || new Map();
    this.options = new Map();
    this.blank = this.blank || h("option", { value: "", text: `— ${t("pick_pod")} —` });
    const options = [this.blank];
    for (const row of rows) {
      let option = kept.get(row.key);
      if (!option || option.text !== row.text) option = h("option", { value: row.key, text: row.text });
      this.options.set(row.key, option);
      options.push(option);
    }
    select.replaceChildren(...options);
    select.value = this.store.pods.has(this.pod) ? this.pod : "";
  }

  refreshSoon() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.show(this.pod, true), 250);
  }

  async show(key, keepAttempt = false) {
    this.pod = key;
    if (this.pickerDirty) this.renderPicker();
    $("sched-pod").value = key;
    $("sched-whatif").disabled = !key;
    const body = $("sched-body");
    if (!key) {
      clear(body).append(h("p", { class: "muted empty-hint", text: t("sched_hint") }));
      return;
    }
    const [namespace, name] = key.split("/");
    const result = await request(`${BASE}/scheduling/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`);
    if (key !== this.pod) return;
    if (!result.ok) {
      clear(body).append(h("p", { class: "error-text", text: typeof result.data === "object" ? result.data.message || "" : `HTTP ${result.status}` }));
      return;
    }
    const previous = this.attempts.length;
    this.attempts = attemptsOf(result.data);
    // Open on the attempt that preempted, when there is one: its explanation (victims, the
    // nominated node, the tie-break) is the lesson; the attempts after it only bind.
    if (!keepAttempt || this.attempts.length !== previous) this.attempt = Math.max(0, this.attempts.findIndex(preempted));
    this.renderAttemptPicker();
    this.renderAttempt();
  }

  renderAttemptPicker() {
    const select = clear($("sched-attempt"));
    // The attempts as a story: "#1 · preempted default/low-a on node1", "#2 · scheduled to node1".
    this.attempts.forEach((a, i) => {
      const d = a.decision;
      const p = preempted(a) ? d.preemption : null;
      let outcome = d.selected ? t("scheduled_to", { node: d.selected }) : t("unschedulable");
      if (p) outcome = t("preempted_on", { victims: (p.victims || []).map((v) => v.pod).join(", "), node: p.nominatedNode });
      const number = a.attempt || this.attempts.length - i;
      select.append(h("option", { value: String(i), text: `#${number}${a.when ? ` · ${age(a.when)}` : ""} · ${outcome}` }));
    });
    select.value = String(this.attempt);
    select.disabled = this.attempts.length < 2;
  }

  renderAttempt() {
    const body = clear($("sched-body"));
    const pod = this.store.pods.get(this.pod);
    if (!this.attempts.length) {
      const bypassed = pod && pod.spec && pod.spec.nodeName;
      body.append(h("p", { class: "muted", text: bypassed ? t("bypassed") : t("no_attempts") }));
      return;
    }
    const attempt = this.attempts[this.attempt];
    const d = attempt.decision;
    const nodes = Object.keys(d.nodes || {});
    const pickView = (full) => {
      this.fullMatrix = full;
      localStorage.setItem(FULL_MATRIX_KEY, full ? "1" : "");
      this.renderAttempt();
    };
    body.append(this.summary(d, attempt), viewSwitch(this.fullMatrix, pickView),
      ...(this.fullMatrix ? [this.filterMatrix(d, nodes), this.scoreMatrix(d, nodes)] : [byNode(d, nodes)]), this.queueBlock(attempt));
    if (d.preemption) body.append(this.preemptionBlock(d.preemption));
  }

  // Where the pod went after this attempt, and what had woken it for it.
  queueBlock(attempt) {
    const queue = attempt.queue || {};
    const box = h("section", { class: "sched-queue" }, h("h4", { text: t("queue") }));
    if (!queue.queue) return box;
    const facts = [queue.queue];
    if (queue.backoffSeconds) facts.push(t("queue_backoff", { seconds: queue.backoffSeconds, left: queue.backoffLeftSeconds ?? 0 }));
    if ((queue.rejectors || []).length) facts.push(`${t("queue_rejectors")} ${queue.rejectors.join(", ")}`);
    box.append(h("p", { class: "sched-queue-facts", text: facts.join(" · ") }));
    if (queue.retryText) box.append(h("p", { class: "sched-queue-retry", text: pick(queue.retryText) }));
    if (queue.wokenBy) box.append(h("p", { class: "sched-queue-woken" }, h("strong", { text: `${t("queue_woken_by")}: ` }), pick(queue.wokenBy.why)));
    return box;
  }

  // DefaultPreemption: each dry-run node's victims and reprieves, and the rule that chose the node.
  preemptionBlock(p) {
    const box = h("section", { class: "sched-preemption" }, h("h4", { text: t("preemption") }));
    if (p.message) box.append(h("p", { class: "sched-preemption-msg", text: p.message }));
    if (p.nominatedNode) {
      box.append(h("p", null, h("strong", { text: `${t("preemption_nominated")}: ${p.nominatedNode}` }),
        ` — ${t("preemption_decided_by")} ${p.decidedBy}: ${pick(p.decidedByWhy)}`));
      box.append(h("p", { text: `${t("preemption_victims")}: ${(p.victims || []).map((v) => `${v.pod} (${v.priority})`).join(", ")}` }));
    }
    const runs = [...(p.candidates || []), ...Object.values(p.nodes || {})];
    box.append(h("ul", { class: "sched-preemption-nodes" }, runs.map((run) => h("li", { "data-node": run.node },
      h("strong", { text: run.node }),
      run.candidate ? "" : ` — ${t("preemption_not_candidate")}: ${(run.reasons || []).join(", ") || pick(run.why)}`,
      h("ul", null, (run.steps || []).map((step) => h("li", { class: step.result === "victim" ? "is-victim" : "is-reprieved" },
        `${step.result === "victim" ? "✗" : "✓"} ${step.pod} (${step.priority}) — ${t(step.result === "victim" ? "preemption_victim" : "preemption_reprieved")}: ${pick(step.why)}`)))))));
    if ((p.noVictims || []).length) {
      box.append(h("p", { class: "sched-preemption-novictims", text: `${p.noVictims.join(", ")} — ${t("preemption_not_candidate")}: No preemption victims found for incoming pod` }));
    }
    // The tie-break in a class's words (the figure compared), upstream's name beside it.
    for (const c of p.criteria || []) {
      const values = c.values && Object.keys(c.values).length ? c.values : c.scores;
      const label = c.label ? `${pick(c.label)} (${c.criterion})` : c.criterion;
      box.append(h("p", { class: "sched-preemption-criterion", text: `${label}: ${Object.entries(values).map(([n, v]) => `${n} ${v ?? "—"}`).join(" · ")} → ${c.kept.join(", ")}` }));
    }
    return box;
  }

  summary(d, attempt) {
    const box = h("div", { class: `sched-summary ${d.selected ? "is-ok" : "is-fail"}` });
    box.append(h("div", { class: "sched-verdict", text: d.selected ? `✓ ${t("scheduled_to", { node: d.selected })}` : `✗ ${t("unschedulable")}` }),
      h("div", { class: "sched-profile", text: `${t("whatif_profile")}: ${d.profile || "default-scheduler"}` }));
    if (d.message) {
      const when = attempt.when;
      const rows = [["Type", "Reason", "Age", "From", "Message"], ["----", "------", "----", "----", "-------"],
        ["Warning", "FailedScheduling", when ? age(when) : "0s", d.profile || "default-scheduler", d.message]];
      const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i].length)) + 2);
      // kubectl's text, character for character, laid out as a grid whose Message column wraps
      // (the hidden newlines keep the text as kubectl prints it, for copy and for readers).
      const cells = [h("span", { class: "ev-all", text: "Events:" }), h("span", { class: "ev-nl", text: "\n" })];
      rows.forEach((row, r) => {
        row.slice(0, 4).forEach((cell, i) => cells.push(h("span", { class: i ? "ev-cell" : "ev-cell ev-first", text: `${i ? "" : "  "}${cell.padEnd(widths[i])}` })));
        cells.push(h("span", { class: r < 2 ? "ev-msg ev-head" : "ev-msg", text: row[4] }), h("span", { class: "ev-nl", text: "\n" }));
      });
      box.append(h("div", { class: "sched-msg-title", text: t("failed_message") }), h("div", { class: "sched-msg", role: "log" }, cells));
    }
    const tie = d.tie || {};
    if (tie.mattered) {
      box.append(h("div", { class: "sched-tie" }, h("strong", { text: `${t("tie_rule")}: ` }), `${(tie.nodes || []).join(", ")} — `, pick(tie.why)));
    }
    return box;
  }

  filterMatrix(d, nodes) {
    const plugins = d.filterPlugins || Object.keys((d.nodes[nodes[0]] || {}).filters || {});
    const legacyOf = (plugin) => ((d.nodes[nodes[0]] || {}).filters || {})[plugin]?.legacy || [];
    const head = h("tr", null, h("th", { scope: "col", text: t("node") }),
      plugins.map((p) => h("th", { scope: "col" }, h("span", { class: "plugin", text: p }), h("span", { class: "legacy", text: legacyOf(p).join(" / ") }))));
    const rows = nodes.sort(collator.compare).map((node) => {
      const result = d.nodes[node];
      const first = result.firstFailure;
      return h("tr", { class: result.feasible ? "is-feasible" : "is-filtered", "data-node": node },
        h("th", { scope: "row" }, h("span", { class: "node-cell", text: node }), result.feasible ? h("span", { class: "badge badge-ok", text: t("feasible") }) : null),
        plugins.map((p) => this.filterCell(result.filters[p] || { status: "Success", reasons: [] }, first && first.plugin === p)));
    });
    return h("section", { class: "matrix-block" }, h("h4", { text: t("filters") }),
      h("div", { class: "matrix-scroll" }, h("table", { class: "matrix filter-matrix" }, h("thead", null, head), h("tbody", null, rows))));
  }

  filterCell(status, isFirst) {
    const code = status.status;
    if (code === "Success") return h("td", { class: "cell-ok", title: "Success" }, h("span", { class: "mark", text: "✓" }));
    if (code === "Skip") return h("td", { class: "cell-skip", title: pick(status.why) || "Skip" }, h("span", { class: "mark", text: "–" }), h("span", { class: "reason", text: "Skip" }));
    return h("td", { class: `cell-fail${isFirst ? " is-first" : ""}` },
      h("span", { class: "mark", text: "✗" }),
      isFirst ? h("span", { class: "first-flag", title: t("first_failure"), text: t("first_short") }) : null,
      h("span", { class: "reason", text: (status.reasons || []).join("; ") || code }),
      status.why ? h("span", { class: "why", text: pick(status.why) }) : null,
      code === "UnschedulableAndUnresolvable" ? h("span", { class: "code", text: code }) : null);
  }

  scoreMatrix(d, nodes) {
    const feasible = nodes.filter((n) => d.nodes[n].feasible);
    const block = h("section", { class: "matrix-block" }, h("h4", { text: t("scores") }));
    const plugins = d.scorePlugins || [];
    const scored = feasible.filter((n) => d.nodes[n].total !== null && d.nodes[n].total !== undefined);
    if (!scored.length) {
      block.append(h("p", { class: "muted", text: t(feasible.length === 1 ? "not_scored" : "none_feasible") }));
      return block;
    }
    const max = Math.max(1, ...scored.map((n) => d.nodes[n].total));
    const head = h("tr", null, h("th", { scope: "col", text: t("node") }), h("th", { scope: "col", class: "total-col", text: t("total") }),
      plugins.map((p, i) => h("th", { scope: "col" }, h("span", { class: `swatch sw-${i % SCORE_COLOURS}` }), h("span", { class: "plugin", text: p.name }),
        h("span", { class: "legacy", text: `${(p.legacy || []).join(" / ")} · ${t("weight")} ${p.weight}` }))));
    const rows = [];
    scored.sort((a, b) => d.nodes[b].total - d.nodes[a].total || collator.compare(a, b));
    for (const node of scored) {
      const result = d.nodes[node];
      const winner = node === d.selected;
      const segments = plugins.map((p, i) => {
        const sc = result.scores[p.name];
        return sc && sc.weighted > 0 ? h("span", { class: `seg sw-${i % SCORE_COLOURS}`, title: `${p.name}: ${sc.weighted}`, style: { width: `${(100 * sc.weighted) / max}%` } }) : null;
      });
      rows.push(h("tr", { class: winner ? "is-winner" : "", "data-node": node },
        h("th", { scope: "row" }, h("button", { type: "button", class: "linkish", "aria-expanded": String(this.expanded.has(node)), text: `${winner ? "★ " : ""}${node}`, onclick: () => this.toggle(node) })),
        h("td", { class: "total-col" }, h("div", { class: "stack" }, segments), h("strong", { class: "total", text: String(result.total) })),
        plugins.map((p) => {
          const sc = result.scores[p.name];
          if (!sc) return h("td", { class: "cell-skip", text: "–" });
          return h("td", { class: "score-cell", title: pick(sc.why) },
            h("span", { class: "score-main", text: `${sc.normalized} × ${sc.weight} = ${sc.weighted}` }),
            h("span", { class: "score-raw", text: `${t("raw")} ${sc.raw}` }));
        })));
      if (this.expanded.has(node) || (winner && !this.expanded.size)) {
        rows.push(h("tr", { class: "why-row" }, h("td", { colspan: String(plugins.length + 2) },
          h("ul", { class: "why-list" }, plugins.filter((p) => result.scores[p.name]).map((p) =>
            h("li", null, h("strong", { text: `${p.name}: ` }), pick(result.scores[p.name].why)))))));
      }
    }
    block.append(h("div", { class: "matrix-scroll" }, h("table", { class: "matrix score-matrix" }, h("thead", null, head), h("tbody", null, rows))));
    const skipped = Object.entries(d.skippedScores || {});
    if (skipped.length) {
      block.append(h("ul", { class: "skipped-scores" }, skipped.map(([name, why]) => h("li", null, h("strong", { text: `${t("prescore_skipped")}: ${name}` }), why ? ` — ${pick(why)}` : ""))));
    }
    return block;
  }

  toggle(node) {
    if (this.expanded.has(node)) this.expanded.delete(node);
    else this.expanded.add(node);
    this.renderAttempt();
  }
}
