// The course form: add labs, order them with ↑ ↓, remove them. The list posts as `labs` in order.
import { t, el } from "./common.js";

const list = document.getElementById("course-labs");
const add = document.getElementById("course-add");

function item(slug, title) {
  return el("li", { "data-lab": slug }, el("input", { type: "hidden", name: "labs", value: slug }),
    el("span", { class: "labs-course-lab" }, title, " ", el("code", {}, slug)),
    el("button", { type: "button", "data-move": "-1", "aria-label": t("Move up", "上移") }, "↑"),
    el("button", { type: "button", "data-move": "1", "aria-label": t("Move down", "下移") }, "↓"),
    el("button", { type: "button", "data-remove": "", "aria-label": t("Remove", "移除") }, "×"));
}

list.addEventListener("click", (event) => {
  const button = event.target.closest("button");
  if (!button) return;
  const li = button.closest("li");
  if (button.hasAttribute("data-remove")) li.remove();
  else if (button.dataset.move === "-1" && li.previousElementSibling) li.previousElementSibling.before(li);
  else if (button.dataset.move === "1" && li.nextElementSibling) li.nextElementSibling.after(li);
});

document.getElementById("course-add-button").addEventListener("click", () => {
  const option = add.selectedOptions[0];
  if (option) list.append(item(option.value, option.dataset.title));
});
