// The teacher's read-only view of one student's sandbox: the dashboard (its writing controls off)
// and, beside it, the student's steps and their last console commands with what they printed.
import { t, pick, el } from "./common.js";

const panel = document.getElementById("watch-panel");
const STATE = {
  passed: () => t("passed", "已通过"),
  current: () => t("current", "当前"),
  "not-reached": () => t("not reached", "未到达"),
};

function duration(seconds) {
  const m = Math.floor(seconds / 60), s = seconds % 60;
  return m ? `${m} min ${s}s` : `${s}s`;
}

function step(s) {
  const facts = [STATE[s.state]()];
  if (s.attempts) facts.push(t(`${s.attempts} wrong attempt(s)`, `${s.attempts} 次错误尝试`));
  if (s.seconds !== null) facts.push(duration(s.seconds));
  if (s.hints_shown) facts.push(t(`${s.hints_shown} hint(s)`, `${s.hints_shown} 条提示`));
  return el("li", { class: `is-${s.state}`, "data-step": s.id },
    el("strong", {}, pick(s.title)), el("span", { class: "lab-found" }, ` · ${facts.join(" · ")}`),
    s.answer ? el("div", { class: "lab-found" }, t("Answer: ", "回答："), el("code", {}, s.answer)) : null,
    s.last_failure.length ? el("ul", { class: "lab-failures" }, s.last_failure.map((m) => el("li", {}, pick(m)))) : null);
}

function command(c) {
  const line = c.command.trim().startsWith("kubectl") ? c.command : `kubectl ${c.command}`;
  const when = new Date(c.at).toLocaleTimeString();
  return el("div", { class: `lab-command ${c.exit_code ? "is-failed" : ""}` },
    el("div", { class: "lab-command-line" }, el("code", {}, `$ ${line}`),
      el("span", { class: "lab-found" }, ` ${when}${c.exit_code ? ` · exit ${c.exit_code}` : ""}`)),
    c.stdin ? el("pre", { class: "lab-command-stdin" }, c.stdin) : null,
    c.output ? el("pre", { class: "lab-command-out" }, c.output) : null);
}

async function refresh() {
  const response = await fetch(panel.dataset.json, { credentials: "same-origin" });
  if (!response.ok) return;
  const state = await response.json();
  document.getElementById("watch-steps").replaceChildren(...state.steps.map(step));
  document.getElementById("watch-commands").replaceChildren(...(state.commands.length
    ? state.commands.map(command)
    : [el("p", { class: "lab-muted" }, t("No console commands yet (the real kubectl's show only in the cluster).",
      "还没有控制台命令（真实 kubectl 的操作只体现在集群中）。"))]));
}

refresh();
setInterval(refresh, 3000);
