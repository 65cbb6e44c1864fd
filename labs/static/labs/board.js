// The instructor's live progress board for a class of 60: compact rows in columns that fill the
// screen (the list scrolls inside the board when they do not fit), sorting, filtering by status,
// step or name, the stuck highlight, the class by step, and one student's details and actions in
// a side sheet. The server decides each status (labs/state.py student_status).
import { t, pick, send, el, live } from "./common.js";

const root = document.getElementById("board");
const target = document.getElementById("hint-target");
const list = document.getElementById("students");
const head = document.getElementById("students-head");
const detail = document.getElementById("student-detail");
const ROW_MIN_PX = 480; // a row's narrowest: name, status, step, attempts, time and a failure
const view = { sort: "stuck", status: "", step: null, search: "", selected: null };
let board = null;
let receivedAt = 0; // when `board` arrived: time on step ticks from there

function duration(seconds) {
  const m = Math.floor(seconds / 60), s = seconds % 60;
  return m ? `${m} min ${s}s` : `${s}s`;
}

// An eye: "watch this student's sandbox" (an emoji would depend on the projector's fonts).
const EYE = '<svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true"><path d="M1.5 8S4 3.5 8 3.5 14.5 8 14.5 8 12 12.5 8 12.5 1.5 8 1.5 8z" fill="none" stroke="currentColor" stroke-width="1.4"/><circle cx="8" cy="8" r="2.2" fill="currentColor"/></svg>';

const STATUS = {
  stuck: () => t("Stuck", "卡住了"),
  working: () => t("Working", "进行中"),
  "not-started": () => t("Not started", "未开始"),
  done: () => t("Done ✓", "完成 ✓"),
};
const STATUS_ORDER = { stuck: 0, working: 1, "not-started": 2, done: 3 };

const byName = (a, b) => a.name.localeCompare(b.name);
const SORTS = {
  stuck: (a, b) => STATUS_ORDER[a.status] - STATUS_ORDER[b.status] || b.seconds_on_step - a.seconds_on_step || byName(a, b),
  name: byName,
  // `bucket`: the place in the class's steps (a course: across its labs), as the histogram counts.
  progress: (a, b) => (b.bucket ?? -1) - (a.bucket ?? -1) || a.attempts - b.attempts || byName(a, b),
  behind: (a, b) => (a.bucket ?? -1) - (b.bucket ?? -1) || b.attempts - a.attempts || byName(a, b),
};

function shown(students) {
  const words = view.search.trim().toLowerCase();
  return students
    .filter((s) => (!view.status || s.status === view.status) && (view.step === null || s.bucket === view.step)
      && (!words || s.name.toLowerCase().includes(words)))
    .sort(SORTS[view.sort]);
}

function stepText(s) {
  // A student on another version of the lab than the class's shows it (labs/versions.py).
  const version = !board.course && s.version !== board.version ? ` v${s.version}` : "";
  const lab = board.course ? `L${s.lab + 1} · ` : ""; // a course's class: the student's lab first
  return lab + (s.done ? "✓" : `${s.step + 1}/${s.steps}`) + version;
}

function secondsNow(s) {
  return s.done ? 0 : s.seconds_on_step + Math.floor((Date.now() - receivedAt) / 1000);
}

function row(s) {
  const failure = s.last_failure ? pick(s.last_failure) : "—";
  return el("div", { class: `lab-row is-${s.status} ${view.selected === s.id ? "is-selected" : ""}`, role: "listitem",
    "data-student": s.name, "data-id": s.id, "data-status": s.status, tabindex: "0",
    onclick: (event) => { if (!event.target.closest("a")) select(s.id); },
    onkeydown: (event) => { if (event.key === "Enter") select(s.id); } },
  el("span", { class: "c-name", title: s.name }, s.name),
  el("span", { class: "c-status" }, el("span", { class: `lab-status lab-status-${s.status}` }, STATUS[s.status]())),
  el("span", { class: "c-step", title: (s.lab_title ? `${pick(s.lab_title)} · ` : "") + (s.done ? "" : pick(s.step_title)) }, stepText(s)),
  el("span", { class: "c-attempts", title: t("Wrong attempts on this step", "本步骤的错误尝试") }, s.attempts),
  el("span", { class: "c-time", "data-seconds": s.seconds_on_step }, s.done ? "" : duration(secondsNow(s))),
  el("span", { class: "c-failure", title: s.last_failure ? failure : "" }, failure),
  s.sandbox ? el("a", { class: "c-watch", href: `${root.dataset.base}${s.id}/`, title: t(`Watch ${s.name}'s sandbox (read-only)`, `查看 ${s.name} 的沙箱（只读）`),
    "aria-label": t(`Watch ${s.name}'s sandbox (read-only)`, `查看 ${s.name} 的沙箱（只读）`), html: EYE }) : el("span"));
}

// Column-major: a sorted list reads down each column, then across.
function layout(count) {
  const columns = Math.max(1, Math.min(4, Math.floor(list.clientWidth / ROW_MIN_PX)));
  const rows = Math.max(1, Math.ceil(count / columns));
  list.style.gridTemplateColumns = head.style.gridTemplateColumns = `repeat(${columns}, minmax(0, 1fr))`;
  list.style.gridTemplateRows = `repeat(${rows}, auto)`;
  const label = () => el("div", { class: "lab-row lab-row-head" },
    el("span", {}, t("Student", "学生")), el("span", {}, t("Status", "状态")), el("span", {}, t("Step", "步骤")),
    el("span", { title: t("Wrong attempts", "错误尝试") }, "✗"), el("span", {}, t("On step", "本步用时")),
    el("span", {}, t("Last failure", "最近失败")), el("span"));
  head.replaceChildren(...Array.from({ length: Math.min(columns, Math.max(count, 1)) }, label));
}

function histogram() {
  const max = Math.max(1, ...board.histogram);
  // Its own class names: the dashboard's .bar styles would draw these as circles.
  document.getElementById("histogram").replaceChildren(...board.histogram.map((n, i) => el("button", {
    type: "button", class: `lab-hist-col ${view.step === i ? "is-chosen" : ""}`, "data-step": i,
    "aria-pressed": String(view.step === i),
    onclick: () => { view.step = view.step === i ? null : i; draw(); } },
  el("span", { class: "lab-hist-bar" }, el("span", { class: "lab-hist-fill", style: `height:${(100 * n) / max}%` })),
  el("span", { class: "lab-hist-n" }, n),
  el("span", { class: "lab-hist-label" }, pick(board.buckets[i])))));
}

function legend() {
  const found = { stuck: 0, working: 0, "not-started": 0, done: 0 };
  for (const s of board.students) found[s.status] += 1;
  document.getElementById("status-legend").replaceChildren(...Object.keys(STATUS).map((key) =>
    el("button", { type: "button", class: `lab-status lab-status-${key} ${view.status === key ? "is-chosen" : ""}`,
      "data-status": key, "aria-pressed": String(view.status === key),
      onclick: () => { view.status = view.status === key ? "" : key; draw(); } }, `${STATUS[key]()} ${found[key]}`)));
}

function action(label, path, confirmText) {
  return el("button", { type: "button", onclick: async () => {
    if (confirmText && !confirm(confirmText)) return;
    await send(root.dataset.base + path, {});
  } }, label);
}

function select(id) {
  view.selected = view.selected === id ? null : id;
  draw();
}

function drawDetail() {
  const s = board.students.find((x) => x.id === view.selected);
  detail.hidden = !s;
  if (!s) return;
  detail.replaceChildren(
    el("header", {}, el("strong", {}, s.name),
      el("button", { type: "button", class: "lab-detail-close", "aria-label": t("Close", "关闭"), onclick: () => select(s.id) }, "×")),
    s.lab_title ? el("p", { class: "lab-found" }, t(`Lab ${s.lab + 1}: `, `实验 ${s.lab + 1}：`), pick(s.lab_title)) : null,
    el("p", {}, el("span", { class: `lab-status lab-status-${s.status}` }, STATUS[s.status]()), " ",
      s.done ? t("Done ✓", "完成 ✓") : `${s.step + 1}. ${pick(s.step_title)}`),
    el("p", { class: "lab-found" }, t(`${s.attempts} wrong attempt(s) on this step`, `本步骤错误尝试 ${s.attempts} 次`),
      s.done ? "" : ` · ${duration(secondsNow(s))}`),
    s.last_failure ? el("p", { class: "lab-detail-failure" }, pick(s.last_failure)) : null,
    el("div", { class: "labs-actions" },
      s.sandbox ? el("a", { class: "labs-primary", href: `${root.dataset.base}${s.id}/` }, t("Watch (read-only)", "查看（只读）")) : null,
      s.sandbox ? el("a", { href: `/clusters/${s.sandbox}/`, target: "_blank", rel: "noopener" }, t("Project", "投屏")) : null,
      el("button", { type: "button", onclick: () => { target.value = String(s.id); document.getElementById("hint-en").focus(); } },
        t("Push a hint", "推送提示")),
      el("button", { type: "button", onclick: async () => {
        if (!confirm(t(`Issue a new resume link for ${s.name}? The old one stops working.`, `为 ${s.name} 重新生成恢复链接？旧链接将失效。`))) return;
        const issued = await send(root.dataset.base + `${s.id}/resume`, {});
        prompt(t(`${issued.name}'s resume link (code ${issued.code}):`, `${issued.name} 的恢复链接（恢复码 ${issued.code}）：`), issued.url);
      } }, t("Resume link", "恢复链接")),
      action(t("Reveal solution", "显示答案"), `${s.id}/reveal`),
      action(t("Reset", "重置"), `${s.id}/reset`, t(`Reset ${s.name}'s sandbox?`, `重置 ${s.name} 的沙箱？`)),
      action(t("Remove", "移除"), `${s.id}/remove`, t(`Remove ${s.name} and their sandbox?`, `移除 ${s.name} 及其沙箱？`))));
}

const banner = document.getElementById("version-banner");
let moved = null; // what the last move did, shown until the next move or reload

function removedText(removed) {
  return removed.map((r) => `“${pick(r.title)}”` + (r.students.length
    ? t(` (on it now: ${r.students.join(", ")})`, `（正在这一步：${r.students.join("、")}）`) : "")).join(t("; ", "；"));
}

function versionBanner() {
  const newer = board.latest > board.version;
  const parts = [];
  if (moved) {
    parts.push(el("p", { id: "version-moved" }, t(`Moved ${moved.moved} student(s) to version ${moved.version}; progress kept by step id.`,
      `已把 ${moved.moved} 名学生移到第 ${moved.version} 版，进度按步骤 id 保留。`),
    moved.removed.length ? el("strong", { class: "lab-removed" }, " ", t("Removed steps: ", "已删除的步骤："), removedText(moved.removed)) : null));
  }
  if (newer) {
    parts.push(el("p", {}, t(`This lab has a newer version (${board.latest}); this class uses version ${board.version}, and each student keeps theirs.`,
      `这个实验有新版本（第 ${board.latest} 版）；本班使用第 ${board.version} 版，每名学生保留自己的版本。`), " ",
    board.removed_if_moved.length ? el("span", { class: "lab-removed", id: "version-removed" },
      t("It removes: ", "新版本删除了："), removedText(board.removed_if_moved), " ") : null,
    el("button", { type: "button", id: "version-move", onclick: async () => {
      const dropped = board.removed_if_moved.length
        ? t(`\n\nRemoved in the new version: ${removedText(board.removed_if_moved)}`, `\n\n新版本删除了：${removedText(board.removed_if_moved)}`) : "";
      if (!confirm(t(`Move the class to version ${board.latest}? Progress is kept by step id; steps the new version does not have are dropped.`,
        `把全班移到第 ${board.latest} 版？进度按步骤 id 保留，新版本没有的步骤会被丢弃。`) + dropped)) return;
      moved = await send(banner.dataset.url, {});
      refresh();
    } }, t(`Move the class to version ${board.latest}`, `把全班移到第 ${board.latest} 版`))));
  }
  banner.hidden = !parts.length;
  banner.replaceChildren(...parts);
}

// A course's class: its labs (how many students on each), and the teacher's "open next lab".
const courseBar = document.getElementById("course-bar");

function courseLine() {
  const c = board.course;
  courseBar.hidden = !c;
  if (!c) return;
  const labs = el("ol", { class: "labs-course-progress" }, c.labs.map((lab, i) => el("li", {
    class: i < c.open || c.pace === "student" ? "is-open" : "is-locked", "data-lab": i },
  `${pick(lab.title)} `, el("span", { class: "lab-found" }, t(`(${lab.students})`, `（${lab.students} 人）`)))));
  const next = c.pace === "teacher" && c.open < c.labs.length ? el("button", { type: "button", class: "labs-primary", id: "open-next",
    onclick: async () => {
      const title = pick(c.labs[c.open].title);
      if (!confirm(t(`Open “${title}” for everyone? Every student on an earlier lab moves to it; what they did is kept.`,
        `为全班打开“${title}”？还在前面实验的学生都会进入它；他们做过的内容会保留。`))) return;
      const answer = await send(courseBar.dataset.url, {});
      if (answer.error) alert(answer.error);
      refresh();
    } }, t("Open next lab for everyone", "为全班打开下一个实验")) : null;
  const pace = c.pace === "student"
    ? el("span", { class: "lab-found", id: "course-pace" }, t("Students go on at their own pace.", "学生按自己的进度进入下一个实验。"))
    : el("span", { class: "lab-found", id: "course-pace" }, t(`${c.open} of ${c.labs.length} labs open.`, `已打开 ${c.open} / ${c.labs.length} 个实验。`));
  courseBar.replaceChildren(...[labs, pace, next].filter(Boolean));
}

function draw() {
  if (!board) return;
  // The class's version of the lab (its title may differ from the newest version's); a course's title.
  document.querySelector(".labs-board-title h1").textContent = pick(board.course ? board.course.title : board.lab.title);
  root.classList.toggle("is-course", Boolean(board.course));
  courseLine();
  versionBanner();
  histogram();
  legend();
  const students = shown(board.students);
  layout(students.length);
  list.replaceChildren(...students.map(row));
  const filtered = students.length !== board.students.length;
  document.getElementById("board-shown").textContent = filtered
    ? t(`Showing ${students.length} of ${board.students.length}`, `显示 ${students.length} / ${board.students.length} 人`)
    : t(board.students.length === 1 ? "1 student" : `${board.students.length} students`, `${board.students.length} 名学生`);
  document.getElementById("board-clear").hidden = !filtered;
  drawDetail();
}

function render(next) {
  board = next;
  receivedAt = Date.now();
  if (!board.students.some((s) => s.id === view.selected)) view.selected = null;
  const form = document.getElementById("stuck-form");
  if (!form.contains(document.activeElement)) {
    document.getElementById("stuck-attempts").value = board.stuck.attempts;
    document.getElementById("stuck-minutes").value = board.stuck.minutes;
  }
  document.getElementById("stuck-lab").textContent = t(
    `The lab's: ${board.stuck.lab.attempts} attempts, ${board.stuck.lab.minutes} min`,
    `实验默认：${board.stuck.lab.attempts} 次尝试，${board.stuck.lab.minutes} 分钟`);
  const chosen = target.value;
  target.replaceChildren(el("option", { value: "all" }, t("Whole class", "全班")),
    ...board.students.map((s) => el("option", { value: s.id }, s.name)));
  target.value = [...target.options].some((o) => o.value === chosen) ? chosen : "all";
  draw();
}

const refresh = () => fetch(root.dataset.json, { credentials: "same-origin" }).then((r) => r.json()).then(render);

document.getElementById("stuck-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  const attempts = Number(document.getElementById("stuck-attempts").value);
  const minutes = Number(document.getElementById("stuck-minutes").value);
  await send(form.dataset.url, { attempts, minutes });
  document.activeElement.blur();
  refresh();
});

document.getElementById("hint-send").addEventListener("click", async () => {
  const en = document.getElementById("hint-en"), zh = document.getElementById("hint-zh");
  await send(root.dataset.hintUrl, { student: target.value, en: en.value, zh: zh.value });
  en.value = zh.value = "";
});

document.getElementById("board-search").addEventListener("input", (event) => { view.search = event.target.value; draw(); });
document.getElementById("board-sort").addEventListener("change", (event) => { view.sort = event.target.value; draw(); });
document.getElementById("board-clear").addEventListener("click", () => {
  Object.assign(view, { status: "", step: null, search: "" });
  document.getElementById("board-search").value = "";
  draw();
});
document.addEventListener("keydown", (event) => { if (event.key === "Escape" && view.selected !== null) select(view.selected); });
window.addEventListener("resize", draw);
// Time on step ticks between the server's updates.
setInterval(() => {
  if (!board) return;
  for (const cell of list.querySelectorAll(".lab-row[data-id] .c-time")) {
    const s = board.students.find((x) => String(x.id) === cell.parentElement.dataset.id);
    if (s && !s.done) cell.textContent = duration(secondsNow(s));
  }
}, 1000);

refresh();
live(root.dataset.ws, (message) => { if (message.type === "board") render(message.board); });
setInterval(refresh, 15000);
