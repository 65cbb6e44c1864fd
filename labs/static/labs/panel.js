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

// Going back: an earlier step (of this lab or of a course's earlier lab) and what the student did.
const reviewBox = document.getElementById("lab-review");

function when(iso) {
  return iso ? new Date(iso).toLocaleTimeString(LANG === "zh" ? "zh-CN" : "en-GB", { hour: "2-digit", minute: "2-digit" }) : "";
}

function showReview(step) {
  const r = step.result;
  const outcome = r.passed_at
    ? el("p", { class: "lab-review-passed" }, t(`Passed ✓ at ${when(r.passed_at)}`, `已通过 ✓（${when(r.passed_at)}）`),
      t(` · ${r.attempts} wrong attempt(s)`, ` · 错误尝试 ${r.attempts} 次`))
    : el("p", { class: "lab-review-open" }, t(`Not passed · ${r.attempts} wrong attempt(s)`, `未通过 · 错误尝试 ${r.attempts} 次`));
  const said = r.last_failure.length ? el("div", {}, el("strong", {}, t("What the checks said last:", "检查最后的结果：")),
    el("ul", { class: "lab-failures" }, r.last_failure.map((f) => el("li", {}, pick(f.message), " ", el("span", { class: "lab-found" }, pick(f.found))))))
    : null;
  const commands = step.commands && step.commands.length ? el("details", { class: "lab-review-commands" },
    el("summary", {}, t(`Your console commands in this lab (${step.commands.length})`, `你在这个实验中的控制台命令（${step.commands.length}）`)),
    step.commands.map((c) => el("div", {}, el("pre", { class: "lab-review-command" }, `$ ${c.command}`), c.output ? el("pre", {}, c.output) : null))) : null;
  reviewBox.replaceChildren(...[
    el("div", { class: "lab-review-head" }, el("span", { class: "lab-found" }, pick(step.lab.title)),
      el("button", { type: "button", id: "lab-review-close", onclick: () => { reviewBox.hidden = true; body.hidden = false; } },
        t("Back to my current step", "回到当前步骤"))),
    el("h2", {}, `${step.index + 1}. ${pick(step.title)}`),
    el("div", { class: "lab-instructions", html: step.instructions[LANG] }),
    outcome,
    step.questions.length ? el("p", {}, step.questions.map((q) => pick(q)).join(" "), " ",
      t("Your answer: ", "你的回答："), el("code", {}, r.answer || "—")) : null,
    said,
    ...step.hints.map((h, i) => el("div", { class: "lab-hint" }, el("strong", {}, t(`Hint ${i + 1}: `, `提示 ${i + 1}：`)), el("span", { html: h[LANG] }))),
    solution({ solution: step.solution, solution_after: 0 }),
    commands].filter(Boolean)); // replaceChildren would print a null as "null"
  reviewBox.hidden = false;
  body.hidden = true;
}

async function review(position, index) {
  const response = await fetch(`${panel.dataset.reviewUrl}${position}/${index}`, { credentials: "same-origin" });
  if (response.ok) showReview(await response.json());
}

function stepItems(titles, current, position, reachable) {
  return titles.map((title, i) => {
    const state = i < current ? "done" : i === current ? "current" : "todo";
    const label = reachable(i) ? el("button", { type: "button", class: "lab-step-link", onclick: () => review(position, i),
      title: t("Read this step again", "重新阅读这一步") }, pick(title)) : pick(title);
    return el("li", { class: state, "aria-current": i === current ? "step" : "false" }, label);
  });
}

const courseBox = document.getElementById("lab-course");
const backBox = document.getElementById("lab-back");
const backList = document.getElementById("lab-back-steps");
const LAB_STATE = {
  finished: () => t("done ✓", "已完成 ✓"), left: () => t("left unfinished", "未完成"),
  current: () => t("now", "进行中"), open: () => t("open", "已开放"), locked: () => t("not open yet", "尚未开放"),
};

function courseList(state) {
  const c = state.course;
  courseBox.hidden = !c;
  if (!c) return;
  courseBox.replaceChildren(el("strong", {}, pick(c.title)), el("ol", {}, c.labs.map((lab, position) => {
    const earlier = lab.state === "finished" || lab.state === "left";
    return el("li", { class: `lab-course-${lab.state}`, "data-lab": position },
      earlier ? el("details", {}, el("summary", {}, pick(lab.title), " ", el("span", { class: "lab-found" }, LAB_STATE[lab.state]())),
        el("ol", { class: "lab-step-titles" }, stepItems(lab.steps, lab.steps.length, position, () => true)))
        : el("span", {}, pick(lab.title), " ", el("span", { class: "lab-found" }, LAB_STATE[lab.state]())));
  })));
}

function nextLab(state) {
  const next = state.course && state.course.next;
  if (!next) return null;
  if (!next.open) {
    return el("p", { class: "lab-muted", id: "lab-next-wait" },
      t(`Next: “${pick(next.title)}”. Your teacher opens it for everyone.`, `下一个实验：“${pick(next.title)}”，老师会为全班打开。`));
  }
  return el("button", { type: "button", class: "labs-primary", id: "lab-next", onclick: async () => {
    const answer = await send(panel.dataset.nextUrl, {});
    if (answer.error) alert(answer.error); else render(answer);
  } }, t(`Go on to lab ${next.position + 1}: ${pick(next.title)}`, `进入实验 ${next.position + 1}：${pick(next.title)}`));
}

function render(state) {
  document.getElementById("lab-title").textContent = pick(state.lab.title);
  const position = state.course ? state.course.position : 0;
  courseList(state);
  stepsList.replaceChildren(...state.lab.steps.map((title, i) => el("li", {
    class: i < state.current ? "done" : i === state.current ? "current" : "todo",
    "aria-current": i === state.current ? "step" : "false",
  }, pick(title))));
  // The same steps by name: the passed ones open again (instructions and what the student did).
  backList.replaceChildren(...stepItems(state.lab.steps, state.current, position, (i) => i < state.current));
  backBox.hidden = state.current === 0;
  const parts = [banner(state.class_hint, t("From your teacher:", "老师提示：")), banner(state.pushed_hint, t("For you:", "给你的提示："))];
  if (state.done) {
    parts.push(el("p", { class: "lab-done" }, t("All steps passed. Well done!", "全部步骤已通过，做得好！")), nextLab(state));
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
