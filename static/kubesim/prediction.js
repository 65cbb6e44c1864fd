// The prediction round (peer instruction for the scheduler): the teacher arms it from the flow
// panel; every page watching the cluster then asks "Which node will the scheduler pick?" (and,
// when armed so, "Which plugin decides?"); each browser's guess can change until the round closes
// at step 9 of the next pod, when every page shows the scheduler's answer, what decided it and the
// class's guesses against it. The server keeps the round (cluster/flow/prediction.py) and sends
// it as `prediction` messages and in every snapshot; this page keeps only its own guess.

import { $, BASE, BOOT, clear, h, pick, request, t, toast } from "./dom.js";

// A page that watched the round open reveals the answer when its flow panel captions step 9 of
// the deciding trace (the answer must not run ahead of the story), or this long after the close
// at the latest (the panel may be following another trace).
const REVEAL_AFTER_MS = 6000;

function plural(list) {
  return list.join(", ");
}

// What decided, in one sentence, from the answer's `deciding` (cluster/flow/predictionanswer.py).
function decidedBy(answer) {
  const d = answer.deciding;
  if (!d) return t("predict_by_pending");
  if (d.kind === "score" && d.plugins.length) {
    const plugin = d.plugins[0];
    const scores = d.scores[plugin];
    return t("predict_by_score", {
      plugins: plural(d.plugins), winner: d.winner.node, a: scores.winner, runner: d.runner_up.node, b: scores.runner_up,
    });
  }
  if (d.kind === "tie") return t("predict_by_tie", { nodes: plural(d.nodes), total: d.winner.total });
  if (d.kind === "filter") {
    const why = Object.entries(d.filtered).map(([node, f]) => `${node}: ${f.plugin}`).join("; ");
    return t("predict_by_filter", { node: answer.node, why });
  }
  if (d.kind === "none") return t("predict_by_none", { plugins: plural(d.plugins) });
  return t("predict_by_unknown");
}

export class PredictionView {
  constructor(store) {
    this.store = store;
    this.box = $("prediction");
    if (!this.box) return; // a page without the round's card
    this.mine = null; // {node, plugin} of this browser, for mineOf
    this.mineOf = null; // the round id `mine` belongs to
    this.hidden = null; // the round id this page hid after its reveal
    this.sending = false;
    this.sawOpen = null; // the round id this page saw open
    this.closedAt = new Map(); // round id -> when this page learnt it closed
    this.captioned = new Map(); // trace id -> the highest step the flow panel captioned
    document.addEventListener("kubesim:flow-shown", (event) => {
      const { trace, step } = event.detail;
      if (step <= (this.captioned.get(trace) || 0)) return;
      this.captioned.set(trace, step);
      const round = this.round;
      if (round && round.state === "closed" && round.answer && round.answer.trace === trace) this.render();
    });
    store.subscribe((change) => {
      if (change.type === "prediction" || change.type === "snapshot") this.update();
    });
    this.wireTeacher();
    this.update();
  }

  get round() {
    return this.store.prediction;
  }

  async fetchMine(id) {
    this.mineOf = id;
    const result = await request(`${BASE}/prediction`);
    if (!result.ok || !result.data.round || result.data.round.id !== id) return;
    this.mine = result.data.mine;
    this.render();
  }

  update() {
    const round = this.round;
    if (round && round.id !== this.mineOf) {
      this.mine = null;
      this.fetchMine(round.id);
    }
    if (round && round.state === "cancelled" && this.shown === round.id) toast(t("predict_cancelled"));
    if (round && round.state === "open") this.sawOpen = round.id;
    if (round && round.state === "closed" && !this.closedAt.has(round.id)) this.closedAt.set(round.id, performance.now());
    this.render();
    this.showTeacher();
  }

  async vote(node, plugin) {
    if (this.sending) return;
    this.sending = true;
    const body = { round: this.round.id, node };
    if (plugin) body.plugin = plugin;
    const result = await request(`${BASE}/prediction/guess`, { method: "POST", body });
    this.sending = false;
    if (!result.ok) {
      toast(result.data && result.data.message ? result.data.message : `HTTP ${result.status}`, "error");
      return;
    }
    this.mine = result.data.mine;
    this.render();
  }

  render() {
    const round = this.round;
    const box = this.box;
    const visible = Boolean(round) && round.state !== "cancelled" && this.hidden !== round.id;
    box.hidden = !visible;
    this.shown = visible ? round.id : null;
    document.body.classList.toggle("has-prediction", visible);
    if (!visible) return;
    const waiting = round.state === "closed" && !this.mayReveal(round);
    box.dataset.state = waiting ? "deciding" : round.state;
    clear(box);
    if (round.state === "open" || waiting) box.append(...this.question(round, waiting));
    else box.append(...this.reveal(round));
  }

  // Closed: shown at once on a page that never saw it open; else once step 9 is on screen.
  mayReveal(round) {
    if (this.sawOpen !== round.id) return true;
    if ((this.captioned.get(round.answer.trace) || 0) >= 9) return true;
    const left = this.closedAt.get(round.id) + REVEAL_AFTER_MS - performance.now();
    if (left <= 0) return true;
    clearTimeout(this.revealTimer);
    this.revealTimer = setTimeout(() => this.render(), left + 20);
    return false;
  }

  question(round, closed = false) {
    const mine = this.mine || {};
    const buttons = round.nodes.map((node) => h("button", {
      type: "button", class: `predict-node${mine.node === node ? " is-mine" : ""}`, "data-node": node, disabled: closed,
      "aria-pressed": String(mine.node === node), text: node,
      onclick: () => this.vote(node, this.pluginChoice()),
    }));
    const parts = [
      h("span", { class: "predict-badge", text: t("predict_title") }),
      h("strong", { class: "predict-question", text: t("predict_question") }),
      h("div", { class: "predict-nodes", role: "group", "aria-label": t("predict_question") }, buttons),
    ];
    if (round.ask_plugin) {
      const select = h("select", { id: "predict-plugin", "aria-label": t("predict_plugin_question"), disabled: closed,
        onchange: () => mine.node && this.vote(mine.node, select.value) },
      h("option", { value: "", text: t("predict_plugin_any") }),
      ...round.plugins.map((p) => h("option", { value: p, text: p })));
      select.value = mine.plugin || "";
      parts.push(h("label", { class: "predict-plugin" }, h("span", { text: t("predict_plugin_question") }), select));
    }
    const status = closed ? t("predict_closing") : mine.node ? t("predict_yours", { node: mine.node + (mine.plugin ? ` · ${mine.plugin}` : "") })
      : t(BOOT.access.teacher ? "predict_teacher_next" : "predict_pick");
    parts.push(h("span", { class: "predict-status", text: status }),
      h("span", { class: "predict-votes", "data-votes": round.votes, text: t("predict_votes", { n: round.votes }) }));
    if (BOOT.access.teacher && !closed) parts.push(h("button", { type: "button", class: "btn btn-small btn-ghost", id: "predict-cancel", text: t("predict_cancel"), onclick: () => this.cancel() }));
    return [h("div", { class: "predict-row" }, parts)];
  }

  pluginChoice() {
    const select = $("predict-plugin");
    return select ? select.value : "";
  }

  reveal(round) {
    const answer = round.answer || {};
    const tally = round.tally || { nodes: {}, plugins: {}, right: 0, right_plugin: 0 };
    const pod = `${answer.namespace}/${answer.pod}`;
    const headline = answer.node ? t("predict_picked", { node: answer.node, pod }) : t("predict_none", { pod });
    const mine = this.mine;
    let yours = null;
    if (mine) {
      const right = mine.node === answer.node;
      yours = h("p", { class: `predict-yours ${right ? "is-right" : "is-wrong"}`,
        text: `${right ? "✓" : "✗"} ${t(right ? "predict_you_right" : "predict_you_wrong", { node: mine.node })}` });
    }
    const votes = Object.values(tally.nodes).reduce((a, b) => a + b, 0);
    const most = Math.max(1, ...Object.values(tally.nodes));
    const bars = Object.entries(tally.nodes).map(([node, n]) => h("li", { class: `predict-bar${node === answer.node ? " is-answer" : ""}`, "data-node": node, "data-count": n },
      h("span", { class: "predict-bar-node", text: `${node === answer.node ? "★ " : ""}${node}` }),
      h("span", { class: "predict-bar-track" }, h("span", { class: "predict-bar-fill", style: `width:${(100 * n) / most}%` })),
      h("span", { class: "predict-bar-count", text: String(n) })));
    const score = h("p", { class: "predict-score", text: t("predict_right", { right: tally.right, n: votes }) });
    if (round.ask_plugin) score.append(h("span", { class: "muted", text: ` · ${t("predict_right_plugin", { right: tally.right_plugin })}` }));
    const close = h("button", { type: "button", class: "predict-hide", "aria-label": t("predict_hide"), title: t("predict_hide"), text: "×",
      onclick: () => { this.hidden = round.id; this.render(); } });
    return [
      h("div", { class: "predict-answer" },
        h("span", { class: "predict-badge", text: t("predict_step9") }),
        h("strong", { class: "predict-headline", text: headline }),
        h("p", { class: "predict-decided", text: decidedBy(answer) }),
        h("p", { class: "predict-explanation", text: pick(answer.explanation) }),
        yours),
      h("div", { class: "predict-class" },
        h("strong", { class: "predict-class-title", text: t("predict_class") }),
        h("ol", { class: "predict-bars" }, bars),
        score),
      close,
    ];
  }

  async cancel() {
    const result = await request(`${BASE}/prediction`, { method: "DELETE" });
    if (!result.ok) toast(result.data && result.data.message ? result.data.message : `HTTP ${result.status}`, "error");
  }

  // The teacher's tools in the flow panel: arm a round (with or without the plugin question).
  wireTeacher() {
    const arm = $("predict-arm");
    if (!arm) return;
    arm.addEventListener("click", async () => {
      const askPlugin = $("predict-ask-plugin").checked;
      const result = await request(`${BASE}/prediction`, { method: "POST", body: { ask_plugin: askPlugin } });
      if (!result.ok) {
        toast(result.data && result.data.message ? result.data.message : `HTTP ${result.status}`, "error");
        return;
      }
      this.hidden = null;
      this.store.applyPrediction({ round: result.data.round });
      toast(t("predict_armed"));
    });
  }

  showTeacher() {
    const arm = $("predict-arm");
    if (!arm) return;
    const open = Boolean(this.round) && this.round.state === "open";
    arm.textContent = t(open ? "predict_again" : "predict_arm");
  }
}
