// The YAML editor: paste, open a file, drop one, or pick an example; Apply posts it to
// /clusters/<c>/apply (all or nothing) and shows each error at its line and field.

import { $, BASE, BOOT, clear, h, request, t, toast } from "./dom.js";
import { FollowUps } from "./followups.js";

function errorsOf(data) {
  if (!data || typeof data !== "object") return [{ message: String(data || "") }];
  if (Array.isArray(data.errors)) return data.errors;
  if (data.details && Array.isArray(data.details.errors)) return data.details.errors;
  const causes = (data.details || {}).causes;
  if (Array.isArray(causes) && causes.length) return causes;
  return [{ message: data.message || JSON.stringify(data) }];
}

export class YamlView {
  constructor(store) {
    this.followUps = store ? new FollowUps(store) : null;
    this.text = $("yaml-text");
    this.gutter = $("yaml-gutter");
    this.errorLines = new Set();
    for (const example of BOOT.examples) $("yaml-example").append(h("option", { value: example.name, text: `${example.name}.yaml` }));
    $("yaml-example").addEventListener("change", (event) => {
      const example = BOOT.examples.find((e) => e.name === event.target.value);
      if (example) this.setText(example.text);
    });
    $("yaml-file").addEventListener("change", (event) => this.load(event.target.files[0]));
    $("yaml-apply").addEventListener("click", () => this.apply());
    this.text.addEventListener("input", () => {
      this.errorLines.clear();
      this.renderGutter();
    });
    this.text.addEventListener("scroll", () => { this.gutter.scrollTop = this.text.scrollTop; });
    this.text.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        this.apply();
      } else if (event.key === "Tab" && !event.shiftKey) {
        event.preventDefault();
        this.text.setRangeText("  ", this.text.selectionStart, this.text.selectionEnd, "end");
        this.renderGutter();
      }
    });
    const editor = $("yaml-editor");
    editor.addEventListener("dragover", (event) => { event.preventDefault(); editor.classList.add("is-drop"); });
    editor.addEventListener("dragleave", () => editor.classList.remove("is-drop"));
    editor.addEventListener("drop", (event) => {
      event.preventDefault();
      editor.classList.remove("is-drop");
      if (event.dataTransfer.files.length) this.load(event.dataTransfer.files[0]);
    });
    this.text.placeholder = t("drop_here");
    this.renderGutter();
  }

  setText(text) {
    this.text.value = text;
    this.errorLines.clear();
    clear($("yaml-result"));
    this.renderGutter();
  }

  async load(file) {
    if (!file) return;
    const text = await file.text();
    this.setText(text);
    // The console's working directory keeps every uploaded file (`ls`, `apply -f NAME`), within
    // the server's bounds (files per browser, bytes, saves per minute): a refusal says which.
    const saved = await request(`${BASE}/ui/files`, { method: "POST", body: { name: file.name, text } });
    if (!saved.ok) toast(`${t("file_not_kept")} ${saved.data?.error || saved.status}`, "error");
  }

  renderGutter() {
    const count = Math.max(1, this.text.value.split("\n").length);
    const gutter = clear(this.gutter);
    for (let line = 1; line <= count; line += 1) {
      gutter.append(h("span", { class: this.errorLines.has(line) ? "gl is-error" : "gl", text: String(line) }), "\n");
    }
    this.gutter.scrollTop = this.text.scrollTop;
  }

  async apply() {
    const sent = Date.now();
    const result = await request(`${BASE}/apply`, { method: "POST", body: this.text.value, type: "application/yaml", client: "upload", detail: "YAML upload form" });
    const box = clear($("yaml-result"));
    this.errorLines.clear();
    if (result.ok) {
      const items = (result.data && result.data.objects) || [];
      const list = h("ul", null, items.map((item) => h("li", { text: `${(item.kind || "").toLowerCase()}/${item.name} ${item.action}` })));
      box.append(h("div", { class: "result-ok" }, h("strong", { text: `✓ ${t("applied")}` }), list));
      const created = items.filter((item) => item.action === "created");
      if (this.followUps) this.followUps.watch(created, sent, (text) => list.append(h("li", { class: "result-followup", text })));
      toast(`✓ ${t("applied")}`);
      this.renderGutter();
      return;
    }
    const errors = errorsOf(result.data);
    box.append(h("div", { class: "result-fail" }, h("strong", { text: t("nothing_applied") }),
      h("ul", null, errors.map((err) => {
        const line = err.line || null;
        if (line) this.errorLines.add(line);
        const where = [err.document !== undefined && err.document !== null ? `${t("document")} ${err.document}` : "",
          line ? `${t("line")} ${line}` : "", err.field || ""].filter(Boolean).join(" · ");
        return h("li", { class: "yaml-error", "data-line": line ? String(line) : null },
          where ? h("button", { type: "button", class: "linkish err-where", text: where, onclick: () => this.goTo(line) }) : null,
          h("span", { class: "err-msg", text: err.message || "" }));
      }))));
    this.renderGutter();
    const first = errors.find((e) => e.line);
    if (first) this.goTo(first.line);
  }

  goTo(line) {
    if (!line) return;
    const lines = this.text.value.split("\n");
    const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
    this.text.focus();
    this.text.setSelectionRange(start, start + (lines[line - 1] || "").length);
    const lineHeight = parseFloat(getComputedStyle(this.text).lineHeight) || 20;
    this.text.scrollTop = Math.max(0, (line - 4) * lineHeight);
  }
}
