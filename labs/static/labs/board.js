// The instructor's live progress board: one row per student, a histogram by step, hints, resets.
import { t, pick, send, el, live } from "./common.js";

const root = document.getElementById("board");
const target = document.getElementById("hint-target");

function duration(seconds) {
  const m = Math.floor(seconds / 60), s = seconds % 60;
  return m ? `${m} min ${s}s` : `${s}s`;
}

// not started / working / stuck / done: the server decides (labs/state.py student_status).
const STATUS = {
  "not-started": () => t("Not started", "未开始"),
  working: () => t("Working", "进行中"),
  stuck: () => t("Stuck", "卡住了"),
  done: () => t("Done ✓", "完成 ✓"),
};

function counts(students) {
  const found = { "not-started": 0, working: 0, stuck: 0, done: 0 };
  for (const s of students) found[s.status] = (found[s.status] || 0) + 1;
  return found;
}

function action(label, path, confirmText) {
  return el("button", { type: "button", onclick: async () => {
    if (confirmText && !confirm(confirmText)) return;
    await send(root.dataset.base + path, {});
  } }, label);
}

function render(board) {
  const steps = board.lab.steps;
  const max = Math.max(1, ...board.histogram);
  // Its own class names: the dashboard's .bar styles would draw these as circles.
  document.getElementById("histogram").replaceChildren(...board.histogram.map((n, i) => el("div", { class: "lab-hist-col" },
    el("span", { class: "lab-hist-fill", style: `height:${(100 * n) / max}%` }), el("span", { class: "lab-hist-n" }, n),
    el("span", { class: "lab-hist-label" }, i < steps.length ? `${i + 1}. ${pick(steps[i])}` : t("Done", "完成")))));
  const found = counts(board.students);
  document.getElementById("status-legend").replaceChildren(...Object.keys(STATUS).map((key) =>
    el("span", { class: `lab-status lab-status-${key}`, "data-status": key }, `${STATUS[key]()} ${found[key]}`)));
  const form = document.getElementById("stuck-form");
  if (!form.contains(document.activeElement)) {
    document.getElementById("stuck-attempts").value = board.stuck.attempts;
    document.getElementById("stuck-minutes").value = board.stuck.minutes;
  }
  document.getElementById("stuck-lab").textContent = t(
    `The lab's: ${board.stuck.lab.attempts} attempts, ${board.stuck.lab.minutes} min`,
    `实验默认：${board.stuck.lab.attempts} 次尝试，${board.stuck.lab.minutes} 分钟`);
  document.getElementById("students").replaceChildren(...board.students.map((s) => el("tr", { class: `${s.done ? "done" : ""} is-${s.status}`, "data-student": s.name, "data-status": s.status },
    el("td", {}, s.name),
    el("td", {}, el("span", { class: `lab-status lab-status-${s.status}` }, STATUS[s.status]())),
    el("td", {}, s.done ? t("Done ✓", "完成 ✓") : `${s.step + 1}. ${pick(s.step_title)}`),
    el("td", {}, s.attempts),
    el("td", {}, s.done ? "" : duration(s.seconds_on_step)),
    el("td", { class: "lab-found" }, s.last_failure ? pick(s.last_failure) : "—"),
    el("td", { class: "labs-actions" },
      s.sandbox ? el("a", { href: `/clusters/${s.sandbox}/`, target: "_blank", rel: "noopener" }, t("Project", "投屏")) : null,
      el("button", { type: "button", onclick: async () => {
        if (!confirm(t(`Issue a new resume link for ${s.name}? The old one stops working.`, `为 ${s.name} 重新生成恢复链接？旧链接将失效。`))) return;
        const issued = await send(root.dataset.base + `${s.id}/resume`, {});
        prompt(t(`${issued.name}'s resume link (code ${issued.code}):`, `${issued.name} 的恢复链接（恢复码 ${issued.code}）：`), issued.url);
      } }, t("Resume link", "恢复链接")),
      action(t("Reveal solution", "显示答案"), `${s.id}/reveal`),
      action(t("Reset", "重置"), `${s.id}/reset`, t(`Reset ${s.name}'s sandbox?`, `重置 ${s.name} 的沙箱？`)),
      action(t("Remove", "移除"), `${s.id}/remove`, t(`Remove ${s.name} and their sandbox?`, `移除 ${s.name} 及其沙箱？`))))));
  const chosen = target.value;
  target.replaceChildren(el("option", { value: "all" }, t("Whole class", "全班")),
    ...board.students.map((s) => el("option", { value: s.id }, s.name)));
  target.value = [...target.options].some((o) => o.value === chosen) ? chosen : "all";
}

document.getElementById("stuck-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  const attempts = Number(document.getElementById("stuck-attempts").value);
  const minutes = Number(document.getElementById("stuck-minutes").value);
  await send(form.dataset.url, { attempts, minutes });
  document.activeElement.blur();
  fetch(root.dataset.json, { credentials: "same-origin" }).then((r) => r.json()).then(render);
});

document.getElementById("hint-send").addEventListener("click", async () => {
  const en = document.getElementById("hint-en"), zh = document.getElementById("hint-zh");
  await send(root.dataset.hintUrl, { student: target.value, en: en.value, zh: zh.value });
  en.value = zh.value = "";
});

fetch(root.dataset.json, { credentials: "same-origin" }).then((r) => r.json()).then(render);
live(root.dataset.ws, (message) => { if (message.type === "board") render(message.board); });
setInterval(() => fetch(root.dataset.json, { credentials: "same-origin" }).then((r) => r.json()).then(render), 15000);
