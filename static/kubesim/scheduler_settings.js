// The teacher's scheduler settings: each profile of ConfigMap kube-system/kube-scheduler (key
// config.yaml) with its score weights and its differences from the defaults; a weight changed here
// is edited into config.yaml (previewed, nothing written) and Save writes the ConfigMap. The
// scheduler uses it for its next decision (docs/scheduler.md §5).

import { $, BASE, BOOT, clear, failure, h, request, t, toast } from "./dom.js";

function describeChange(c) {
  const json = (value) => JSON.stringify(value);
  if (c.change === "weight") return t("settings_diff_weight", { plugin: c.plugin, from: c.from, to: c.to });
  if (c.change === "disabled") return t("settings_diff_disabled", { plugin: c.plugin, point: c.point });
  if (c.change === "enabled") return t("settings_diff_enabled", { plugin: c.plugin, point: c.point });
  if (c.change === "args") return t("settings_diff_args", { plugin: c.plugin, args: json(c.to) });
  return t("settings_diff_percentage", { value: c.to });
}

export class SettingsDialog {
  constructor() {
    this.dialog = null;
    this.profiles = [];
  }

  build() {
    const canSave = Boolean(BOOT.access && BOOT.access.teacher);
    this.dialog = h("dialog", { class: "dialog tool-dialog", id: "settings-dialog", "aria-labelledby": "settings-title" },
      h("header", { class: "tool-head" },
        h("h3", { id: "settings-title", text: t("settings_title") }),
        h("span", { class: "tool-note", text: t("settings_note") }),
        h("button", { type: "button", class: "btn btn-small", text: t("close"), onclick: () => this.dialog.close() })),
      h("div", { class: "tool-grid settings-grid" },
        h("section", { class: "settings-profiles" },
          h("label", { class: "whatif-field" }, h("span", { text: t("whatif_profile") }), h("select", { id: "settings-profile", onchange: () => this.renderProfile() })),
          h("h4", { text: t("settings_weights") }),
          h("table", { class: "settings-weights" }, h("thead", null, h("tr", null,
            h("th", { scope: "col", text: t("settings_plugin") }), h("th", { scope: "col", text: t("settings_weight") }), h("th", { scope: "col", text: t("settings_default") }))),
          h("tbody", { id: "settings-weights" })),
          h("h4", { text: t("settings_diff") }),
          h("ul", { class: "settings-diff", id: "settings-diff" })),
        h("section", { class: "settings-yaml" },
          h("label", { class: "whatif-field" }, h("span", { text: "config.yaml" }),
            h("textarea", { id: "settings-text", rows: "18", spellcheck: "false", autocomplete: "off", placeholder: t("settings_empty") })),
          h("p", { class: "dialog-error", id: "settings-error", role: "alert" }),
          h("div", { class: "tool-actions" },
            h("button", { type: "button", class: "btn", id: "settings-check", text: t("settings_check"), onclick: () => this.preview({}) }),
            h("button", { type: "button", class: "btn btn-primary", id: "settings-save", text: t("settings_save"), disabled: !canSave, title: canSave ? "" : t("read_only"), onclick: () => this.save() })))));
    document.body.append(this.dialog);
  }

  async open() {
    if (!this.dialog) this.build();
    const result = await request(`${BASE}/scheduling/config`);
    if (!result.ok) {
      toast(failure(result), "error");
      return;
    }
    $("settings-text").value = result.data.text || "";
    this.show(result.data);
    if (!this.dialog.open) this.dialog.showModal();
  }

  // A reading of config.yaml: its profiles and their differences, or why it is refused.
  show(reading) {
    $("settings-error").textContent = reading.error ? `${t("settings_refused")}: ${reading.error}` : "";
    if (!reading.profiles) return;
    this.profiles = reading.profiles;
    const select = $("settings-profile");
    const keep = select.value;
    select.replaceChildren(...this.profiles.map((p) => h("option", { value: p.schedulerName, text: p.schedulerName })));
    if (this.profiles.some((p) => p.schedulerName === keep)) select.value = keep;
    this.renderProfile();
  }

  renderProfile() {
    const profile = this.profiles.find((p) => p.schedulerName === $("settings-profile").value) || this.profiles[0];
    if (!profile) return;
    const rows = profile.scores.map((score) => {
      const changed = score.defaultWeight !== score.weight;
      const input = h("input", { type: "number", min: "0", max: "100", step: "1", value: String(score.weight), "data-plugin": score.name, "aria-label": `${score.name} ${t("weight")}`,
        onchange: (event) => this.preview({ profile: profile.schedulerName, plugin: score.name, weight: Number(event.target.value) }) });
      return h("tr", { class: changed ? "is-changed" : "", "data-plugin": score.name },
        h("th", { scope: "row", text: score.name }), h("td", null, input), h("td", { text: score.defaultWeight ?? "—" }));
    });
    clear($("settings-weights")).append(...rows);
    const diff = clear($("settings-diff"));
    if (!profile.diff.length) diff.append(h("li", { class: "muted", text: t("settings_no_diff") }));
    for (const change of profile.diff) diff.append(h("li", { "data-change": change.change, text: describeChange(change) }));
  }

  async preview(edit) {
    const result = await request(`${BASE}/scheduling/config/preview`, { method: "POST", body: { text: $("settings-text").value, ...edit } });
    if (!result.ok) {
      $("settings-error").textContent = failure(result);
      return;
    }
    $("settings-text").value = result.data.text;
    this.show(result.data);
  }

  async save() {
    const result = await request(`${BASE}/scheduling/config`, { method: "POST", body: { text: $("settings-text").value } });
    if (!result.ok) {
      $("settings-error").textContent = failure(result);
      return;
    }
    this.show(result.data);
    toast(t("settings_saved"));
  }
}
