// The student's lab panel: the current step, its checks' results, hints, questions and solution.
import { LANG, t, pick, send, el, live } from "./common.js";

const panel = document.getElementById("lab-panel");
const body = document.getElementById("lab-body");
const stepsList = document.getElementById("lab-steps");

function banner(hint, label) {
  return hint ? el("div", { class: "lab-banner", role: "status" }, el("strong", {}, label), " ", pick(hint)) : null;
}

function failures(step) {
  if (!step.failures.length) return el("p", { class: "lab-waiting" }, t("Waiting for your change…", "等待你的操作…"));
  return el("ul", { class: "lab-failures" }, step.failures.map((f) =>
    el("li", {}, el("span", {}, pick(f.message)), " ", el("span", { class: "lab-found" }, pick(f.found)),
      f.hint ? el("div", { class: "lab-hint lab-failure-hint" }, el("strong", {}, t("Hint: ", "提示：")), pick(f.hint)) : null)));
}

function questions(step) {
  if (!step.questions.length) return null;
  const input = el("input", { name: "answer", value: step.answer || "", maxlength: "500", "aria-label": t("Your answer", "你的回答") });
  const form = el("form", { class: "lab-answer", onsubmit: async (event) => {
    event.preventDefault();
    render(await send(panel.dataset.answerUrl, { answer: input.value }));
  } }, step.questions.map((q) => el("label", {}, pick(q))), input, el("button", { type: "submit" }, t("Answer", "提交")));
  return form;
}

function solution(step) {
  if (!step.solution) {
    return step.solution_after ? el("p", { class: "lab-muted" },
      t(`The solution opens after ${step.solution_after} more attempt(s).`, `再尝试 ${step.solution_after} 次后可查看答案。`)) : null;
  }
  const s = step.solution;
  return el("details", { class: "lab-solution" }, el("summary", {}, t("Solution", "参考答案")),
    s.commands.length ? el("pre", {}, s.commands.join("\n")) : null,
    s.apply ? el("pre", {}, s.apply) : null,
    s.answer ? el("p", {}, t("Answer: ", "答案："), el("code", {}, s.answer)) : null,
    s.explanation ? el("div", { html: s.explanation[LANG] }) : null);
}

function render(state) {
  document.getElementById("lab-title").textContent = pick(state.lab.title);
  stepsList.replaceChildren(...state.lab.steps.map((title, i) => el("li", {
    class: i < state.current ? "done" : i === state.current ? "current" : "todo",
    "aria-current": i === state.current ? "step" : "false",
  }, pick(title))));
  const parts = [banner(state.class_hint, t("From your teacher:", "老师提示：")), banner(state.pushed_hint, t("For you:", "给你的提示："))];
  if (state.done) {
    parts.push(el("p", { class: "lab-done" }, t("All steps passed. Well done!", "全部步骤已通过，做得好！")));
  } else {
    const step = state.step;
    parts.push(
      el("h2", {}, `${state.current + 1}. ${pick(step.title)}`),
      el("div", { class: "lab-instructions", html: step.instructions[LANG] }),
      questions(step),
      failures(step),
      el("p", { class: "lab-muted" }, t(`Attempts: ${step.attempts}`, `尝试次数：${step.attempts}`)),
      ...step.hints.map((h, i) => el("div", { class: "lab-hint" }, el("strong", {}, t(`Hint ${i + 1}: `, `提示 ${i + 1}：`)), el("span", { html: h[LANG] }))),
      step.hints_left ? el("button", { type: "button", onclick: async () => render(await send(panel.dataset.hintUrl, {})) },
        t("Show a hint", "显示提示")) : null,
      solution(step),
    );
  }
  body.replaceChildren(...parts.filter(Boolean));
}

document.getElementById("lab-toggle").addEventListener("click", (event) => {
  const open = panel.classList.toggle("collapsed") === false;
  panel.parentElement.classList.toggle("lab-collapsed", !open); // the dashboard's grid gives it back its room
  event.target.setAttribute("aria-expanded", String(open));
  event.target.textContent = open ? t("Hide", "收起") : t("Lab", "实验");
});

fetch(panel.dataset.stateUrl, { credentials: "same-origin" }).then((r) => r.json()).then(render);
live(panel.dataset.ws, (message) => { if (message.type === "state") render(message.state); });
