// The lab editor: validates while the instructor types; "Test lab" runs the checklab self-test.
import { t, send, el } from "./common.js";

const root = document.querySelector(".labs-editor");
const source = document.getElementById("lab-source");
const list = document.getElementById("lab-errors");
const result = document.getElementById("lab-test-result");
const gutter = document.getElementById("lab-lines");
let timer = null;
let errorLines = new Set();

// Line numbers beside the text, so "line 61" in an error can be found.
function renderLines() {
  const count = Math.max(1, source.value.split("\n").length);
  gutter.replaceChildren(...Array.from({ length: count }, (_, i) =>
    el("span", { class: errorLines.has(i + 1) ? "is-error" : "" }, `${i + 1}\n`)));
  gutter.scrollTop = source.scrollTop;
}

function goTo(line) {
  const lines = source.value.split("\n");
  const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
  source.focus();
  source.setSelectionRange(start, start + (lines[line - 1] || "").length);
  const height = parseFloat(getComputedStyle(source).lineHeight) || 20;
  source.scrollTop = Math.max(0, (line - 4) * height);
}

function show(errors) {
  errorLines = new Set(errors.map((e) => e.line).filter(Boolean));
  list.replaceChildren(...errors.map((e) => el("li", {},
    e.line ? el("button", { type: "button", class: "lab-error-line", onclick: () => goTo(e.line) }, t(`line ${e.line}`, `第 ${e.line} 行`)) : null,
    e.line ? " " : null, e.text)));
  if (!errors.length) list.append(el("li", { class: "ok" }, t("✓ Valid", "✓ 格式正确")));
  renderLines();
}

source.addEventListener("scroll", () => { gutter.scrollTop = source.scrollTop; });
renderLines();

source.addEventListener("input", () => {
  renderLines();
  clearTimeout(timer);
  timer = setTimeout(async () => show((await send(root.dataset.validateUrl, source.value, "application/yaml")).errors), 400);
});

document.getElementById("lab-test").addEventListener("click", async () => {
  result.textContent = t("Testing…", "测试中…");
  const report = await send(root.dataset.testUrl, source.value, "application/yaml");
  show(report.errors);
  result.textContent = report.ok ? t(`✓ ${report.steps_passed} steps fail before and pass after their solutions`,
    `✓ ${report.steps_passed} 个步骤在答案前不通过、答案后通过`) : t("✗ The self-test failed", "✗ 自测未通过");
});
