// The web console: a kubectl prompt whose output is rendered server-side (cluster.kubeapi's tables and describe),
// with history, tab completion of names, YAML pasted for apply/create/delete -f, and get -w.

import { $, BASE, clear, h, KINDS, request, t } from "./dom.js";
import { FollowUps } from "./followups.js";
import { ExecSession, statusText } from "./exec_session.js";

const VERBS = ["get", "describe", "label", "apply", "create", "delete", "run", "expose", "scale", "rollout", "set", "cordon", "uncordon", "drain", "taint", "top", "logs", "exec", "explain-scheduling", "version", "api-resources", "ls", "cat", "help", "clear"];
// The subcommands the console runs, after their command's words.
const SUBCOMMANDS = {
  create: ["deployment", "job", "service", "configmap", "secret", "priorityclass", "namespace", "-f"],
  "create service": ["clusterip", "nodeport", "loadbalancer", "externalname"],
  "create secret": ["generic"],
  rollout: ["status", "history", "undo", "restart"],
  set: ["image"],
  top: ["node", "pod"],
};
// Show that a command waits (rollout status, drain, delete) once it has been at it this long.
const WAITING_AFTER_MS = 700;
const TYPES = ["all", "pods", "nodes", "rc", "rs", "deploy", "events", "ns", "pod", "node", "replicationcontrollers", "replicasets", "deployments", "namespaces"];
const HISTORY_KEY = "kubesim.console.history";
const NEEDS_STDIN = /^(kubectl\s+)?(apply|create|delete)\b.*\s(-f|--filename)(\s+-|=-)?\s*$/;

export class ConsoleView {
  constructor(store, hooks) {
    this.store = store;
    this.hooks = hooks;
    this.out = $("console-out");
    this.input = $("console-input");
    this.stdin = $("console-stdin");
    this.history = JSON.parse(localStorage.getItem(HISTORY_KEY) || "[]");
    this.cursor = this.history.length;
    this.pendingCommand = "";
    this.watch = null;
    this.files = [];
    this.followUps = new FollowUps(store);
    this.exec = null; // the open exec session: the input line goes to the container's shell
    this.print(t("console_hint"), "hint");
    this.refreshFiles();
    $("console-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.submit();
    });
    this.input.addEventListener("keydown", (event) => this.onKey(event));
    this.stdin.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        this.runWithStdin();
      } else if (event.key === "Escape") {
        this.leaveStdin();
      }
    });
    $("console").addEventListener("click", (event) => {
      if (event.target === this.out && !window.getSelection().toString()) (this.stdin.hidden ? this.input : this.stdin).focus();
    });
    store.subscribe((change) => this.onStoreChange(change));
  }

  print(text, cls = "out") {
    if (!text) return null;
    const span = h("span", { class: `c-${cls}`, text: text.endsWith("\n") ? text : `${text}\n` });
    this.out.append(span);
    while (this.out.childNodes.length > 600) this.out.firstChild.remove();
    this.out.scrollTop = this.out.scrollHeight;
    return span;
  }

  onKey(event) {
    if (this.exec && event.ctrlKey && (event.key === "c" || event.key === "d")) {
      event.preventDefault();
      if (event.key === "c") {
        this.exec.session.interrupt();
        this.input.value = "";
      } else if (!this.input.value) this.exec.session.endOfInput();
      return;
    }
    if (this.exec && (event.key === "ArrowUp" || event.key === "ArrowDown")) {
      // the shell's own history: lines typed in this session, not kubectl commands
      event.preventDefault();
      const exec = this.exec;
      exec.cursor = Math.max(0, Math.min(exec.history.length, exec.cursor + (event.key === "ArrowUp" ? -1 : 1)));
      this.input.value = exec.history[exec.cursor] || "";
      return;
    }
    if (event.key === "ArrowUp" || event.key === "ArrowDown") {
      event.preventDefault();
      this.cursor = Math.max(0, Math.min(this.history.length, this.cursor + (event.key === "ArrowUp" ? -1 : 1)));
      this.input.value = this.history[this.cursor] || "";
    } else if (event.key === "Tab") {
      event.preventDefault();
      this.complete();
    } else if (event.key === "c" && event.ctrlKey && !this.input.selectionEnd) {
      if (this.watch) this.print("^C", "cmd");
      this.watch = null;
    } else if (event.key === "l" && event.ctrlKey) {
      event.preventDefault();
      clear(this.out);
    }
  }

  remember(line) {
    if (line && this.history[this.history.length - 1] !== line) this.history.push(line);
    this.history = this.history.slice(-200);
    this.cursor = this.history.length;
    localStorage.setItem(HISTORY_KEY, JSON.stringify(this.history));
  }

  submit() {
    if (this.exec) {
      const { session, screen, history } = this.exec;
      if (this.input.value.trim()) history.push(this.input.value);
      this.exec.cursor = history.length;
      if (!session.tty) this.stream(screen, `${this.input.value}\n`); // no terminal echoes it
      session.sendLine(this.input.value);
      this.input.value = "";
      return;
    }
    const line = this.input.value.trim();
    this.input.value = "";
    this.watch = null;
    // A leading "kubectl" is optional: the prompt shows it once.
    const bare = line.replace(/^kubectl(\s+|$)/, "");
    this.print(`$ kubectl ${bare}`, "cmd");
    if (!line) return;
    this.remember(line);
    if (bare === "clear") {
      clear(this.out);
      return;
    }
    if (NEEDS_STDIN.test(line)) {
      this.pendingCommand = line;
      this.print(t("paste_yaml"), "hint");
      this.input.hidden = true;
      this.stdin.hidden = false;
      this.stdin.value = "";
      this.stdin.focus();
      return;
    }
    this.run(line, "");
  }

  runWithStdin() {
    const yaml = this.stdin.value;
    this.print(yaml, "stdin");
    const command = this.pendingCommand;
    this.leaveStdin();
    this.run(command, yaml);
  }

  leaveStdin() {
    this.stdin.hidden = true;
    this.input.hidden = false;
    this.pendingCommand = "";
    this.input.focus();
  }

  async run(command, stdin) {
    const sent = Date.now();
    let waiting = null;
    const timer = setTimeout(() => {
      waiting = this.print(t("console_waiting"), "hint");
      waiting.classList.add("c-waiting");
    }, WAITING_AFTER_MS);
    const result = await request(`${BASE}/ui/console`, { method: "POST", body: { command, stdin }, detail: "web console" });
    clearTimeout(timer);
    if (waiting) waiting.remove();
    const data = typeof result.data === "object" ? result.data : { output: String(result.data), exit_code: 1 };
    this.print(data.output, data.exit_code ? "err" : "out");
    const ui = data.ui || {};
    if (ui.created) this.followUps.watch(ui.created, sent, (text) => this.print(text, "hint"));
    if (ui.exec) this.startExec(ui.exec);
    if (ui.panel === "scheduler") this.hooks.openScheduler(`${ui.namespace}/${ui.pod}`);
    if (ui.watch) {
      this.watch = ui.watch;
      this.print(t("watching"), "hint");
    }
  }

  // exec -it: the console becomes the session's terminal until the shell exits.
  startExec(target) {
    const screen = h("span", { class: "c-exec" });
    this.out.append(screen);
    const prompt = document.querySelector("#console-form .console-prompt");
    const label = prompt.textContent;
    prompt.textContent = "";
    prompt.hidden = true;
    const session = new ExecSession(target.path, {
      tty: target.tty,
      onText: (text) => this.stream(screen, text),
      onEnd: (status) => {
        this.exec = null;
        prompt.textContent = label;
        prompt.hidden = false;
        this.print(statusText(status), "err");
        this.input.focus();
      },
    });
    this.exec = { session, target, screen, history: [], cursor: 0 };
    this.input.focus();
  }

  // Terminal output into one element: CR LF is a newline, "\b \b" erases what the shell echoed,
  // `clear`'s erase-screen empties it and other escape sequences are dropped.
  stream(screen, text) {
    let content = screen.textContent;
    if (text.includes("\u001b[2J")) {
      content = "";
      text = text.slice(text.lastIndexOf("\u001b[2J"));
    }
    text = text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "");
    for (const char of text) {
      if (char === "\b") content = content.slice(0, -1);
      else if (char !== "\r") content += char;
    }
    screen.textContent = content;
    this.out.scrollTop = this.out.scrollHeight;
  }

  // get -w: print the server's row for each change of a watched object, as kubectl does.
  onStoreChange(change) {
    const w = this.watch;
    if (!w || change.type !== "object" || change.kind !== w.kind) return;
    const obj = change.object;
    const ns = obj.metadata.namespace;
    if (w.namespace && ns !== w.namespace) return;
    if (w.name && obj.metadata.name !== w.name) return;
    if (change.action === "deleted") return;
    const flags = [w.wide ? "-o wide" : "", ns ? `-n ${ns}` : ""].join(" ");
    request(`${BASE}/ui/console`, { method: "POST", body: { command: `get ${w.resource} ${obj.metadata.name} --no-headers ${flags}`, stdin: "", background: true }, detail: "web console" })
      .then((result) => {
        if (this.watch === w && result.ok && !result.data.exit_code) this.print(result.data.output, "out");
      });
  }

  // The working directory's files, for Tab after -f and after cat.
  async refreshFiles() {
    const result = await request(`${BASE}/ui/console`, { method: "POST", body: { command: "ls", stdin: "", background: true }, detail: "web console" });
    if (result.ok && typeof result.data === "object" && !result.data.exit_code) this.files = result.data.output.split("\n").filter(Boolean);
  }

  candidates(tokens) {
    const words = tokens.slice(tokens[0] === "kubectl" ? 1 : 0);
    if (words.length <= 1) return VERBS;
    const parent = words.slice(0, -1).join(" ");
    if (parent in SUBCOMMANDS) return SUBCOMMANDS[parent];
    const previous = words[words.length - 2];
    if (["-f", "--filename"].includes(previous) || words[0] === "cat") return this.files;
    const verb = words[0];
    const pods = [...this.store.pods.values()].map((p) => p.metadata.name);
    const nodes = [...this.store.nodes.keys()];
    if (["cordon", "uncordon", "drain"].includes(verb)) return nodes;
    if (["rollout", "set"].includes(verb)) {
      return [...this.store.workloads.values()].map((w) => `${KINDS.resources[w.kind].plural}/${w.metadata.name}`);
    }
    if (["logs", "exec", "explain-scheduling"].includes(verb)) return pods;
    if (words.length === 2) return TYPES;
    const type = words[1];
    if (/^(no|nodes?)$/.test(type)) return nodes;
    if (/^(po|pods?)$/.test(type)) return pods;
    const kinds = Object.fromEntries(KINDS.workloads.map((k) => [KINDS.resources[k].shortNames[0] || k.toLowerCase(), k]));
    const kind = kinds[type] || Object.values(kinds).find((k) => type.startsWith(k.toLowerCase()));
    return [...this.store.workloads.values()].filter((w) => w.kind === kind).map((w) => w.metadata.name);
  }

  complete() {
    const value = this.input.value;
    const tokens = value.split(/\s+/);
    const partial = tokens[tokens.length - 1];
    const matches = [...new Set(this.candidates(tokens))].filter((c) => c.startsWith(partial)).sort();
    if (!matches.length) return;
    let common = matches[0];
    for (const m of matches) while (!m.startsWith(common)) common = common.slice(0, -1);
    const head = value.slice(0, value.length - partial.length);
    if (matches.length === 1) this.input.value = `${head}${matches[0]} `;
    else if (common.length > partial.length) this.input.value = head + common;
    else this.print(matches.join("  "), "hint");
  }
}
