// Follow-ups of objects just created: a trace that ends with its object deleted (a controller
// took the pod, say) is reported where the object was created, in the Apply result and the
// console: "pod/pod-example created — then deleted by replicationcontroller/nginx: ...".

import { pick, t } from "./dom.js";

const KEPT = 50;

function key(kind, namespace, name) {
  return `${kind}/${namespace || ""}/${name}`;
}

export class FollowUps {
  constructor(store) {
    this.recent = []; // endings with the time they arrived, for a reply slower than its ending
    this.waiting = new Map(); // object key -> {since, report}
    store.subscribe((change) => {
      const msg = change.step;
      if (change.type !== "step" || !msg || msg.type !== "flow.end" || !msg.final) return;
      this.recent.push({ at: Date.now(), msg });
      if (this.recent.length > KEPT) this.recent.shift();
      this.match(msg);
    });
  }

  // objects: [{kind, namespace, name, ref}]; since: Date.now() when the request was sent.
  watch(objects, since, report) {
    for (const obj of objects) {
      const id = key(obj.kind, obj.namespace, obj.name);
      this.waiting.set(id, { since, report, ref: obj.ref || `${obj.kind.toLowerCase()}/${obj.name}` });
      // Endings that arrived before the reply: all of them (a pod can complete, then be deleted).
      for (const early of this.recent) {
        const obj = early.msg.object || {};
        if (early.at >= since && key(obj.kind, obj.namespace, obj.name) === id) this.match(early.msg);
      }
    }
  }

  match(msg) {
    const obj = msg.object || {};
    const id = key(obj.kind, obj.namespace, obj.name);
    const entry = this.waiting.get(id);
    if (!entry || msg.outcome !== "deleted") return;
    this.waiting.delete(id);
    const detail = pick(msg.detail);
    entry.report(`${entry.ref} ${t("created_then_deleted", { by: msg.by })}${detail ? `: ${detail}` : ""}`);
  }
}
