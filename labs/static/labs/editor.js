// The lab editor: validates while the instructor types; "Test lab" runs the checklab self-test.
import { t, send, el } from "./common.js";

const root = document.querySelector(".labs-editor");
const source = document.getElementById("lab-source");
const list = document.getElementById("lab-errors");
const result = document.getElementById("lab-test-result");
let timer = null;

function show(errors) {
  list.replaceChildren(...errors.map((e) => el("li", {}, e.text)));
  if (!errors.length) list.append(el("li", { class: "ok" }, t("✓ Valid", "✓ 格式正确")));
}

source.addEventListener("input", () => {
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
