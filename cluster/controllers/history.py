"""ControllerRevisions: the history a DaemonSet or a StatefulSet keeps of its pod templates, as
upstream's controllers write it (`pkg/controller/daemon/update.go` constructHistory/cleanupHistory,
`pkg/controller/history` for StatefulSets).

A revision's `data` is the patch that puts its template back, `{"spec": {"template": {...,
"$patch": "replace"}}}`, written as Go writes it (every map's keys sorted, the template's
`creationTimestamp: null`): `kubectl rollout undo ds/sts` sends it back as a strategic merge patch.
Its `revision` is the rollout's number; a template rolled out again (an undo) gets the next
number on its old ControllerRevision.
"""

from __future__ import annotations

import contextlib
import copy
import json
from dataclasses import dataclass

from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from cluster.controllers.deployment.util import compute_hash, safe_encode
from cluster.controllers.host import ControllerHost
from cluster.controllers.pods import controller_ref, owner_reference

# The pods' label naming their revision (apps.ControllerRevisionHashLabelKey): a DaemonSet's
# pods carry the hash, a StatefulSet's the revision's name.
REVISION_LABEL = "controller-revision-hash"
# pkg/controller/history's label on a StatefulSet's ControllerRevisions.
HISTORY_HASH_LABEL = "controller.kubernetes.io/hash"


def sorted_json(value: object) -> object:
    """The value as Go marshals a map[string]interface{}: keys in sorted order, at every depth."""
    if isinstance(value, dict):
        return {key: sorted_json(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [sorted_json(item) for item in value]
    return value


def template_patch(owner: dict) -> dict:
    """getPatch: the patch of the owner that replaces spec.template."""
    template = copy.deepcopy((owner.get("spec") or {}).get("template") or {})
    meta = template.setdefault("metadata", {})
    meta.setdefault("creationTimestamp", None)  # a zero metav1.Time, which Go writes as null
    template["$patch"] = "replace"
    return sorted_json({"spec": {"template": template}})


def compact(data: object) -> bytes:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


def fnv32(data: bytes) -> int:
    """hash/fnv New32 (FNV-1, not FNV-1a), which HashControllerRevision uses."""
    value = 0x811C9DC5
    for byte in data:
        value = ((value * 0x01000193) & 0xFFFFFFFF) ^ byte
    return value


def hash_revision(data: object, collision_count: int | None) -> str:
    """HashControllerRevision: FNV-1 of the data's JSON and the collision count."""
    raw = compact(data)
    if collision_count is not None:
        raw += str(collision_count).encode()
    return safe_encode(fnv32(raw))


def revision(history: dict) -> int:
    value = history.get("revision", 0)
    return value if isinstance(value, int) else 0


def max_revision(histories: list[dict]) -> int:
    return max((revision(h) for h in histories), default=0)


def by_revision(histories: list[dict]) -> list[dict]:
    """historiesByRevision / ByRevision: ascending, ties by creation and name."""
    return sorted(
        histories,
        key=lambda h: (revision(h), h["metadata"].get("creationTimestamp") or "", h["metadata"]["name"]),
    )


@dataclass
class Snapshot:
    """A ControllerRevision to create for the owner's current template."""

    name: str
    hash: str
    labels: dict[str, str]


def daemon_set_snapshot(ds: dict) -> Snapshot:
    """A DaemonSet's: named by ComputeHash of its template, the hash its pods carry."""
    template = (ds.get("spec") or {}).get("template") or {}
    pod_hash = compute_hash(template, (ds.get("status") or {}).get("collisionCount"))
    labels = {**((template.get("metadata") or {}).get("labels") or {}), REVISION_LABEL: pod_hash}
    return Snapshot(f"{ds['metadata']['name']}-{pod_hash}", pod_hash, labels)


def stateful_set_snapshot(sts: dict) -> Snapshot:
    """A StatefulSet's (history.NewControllerRevision): named by the hash of its data; its pods
    carry the revision's name."""
    template = (sts.get("spec") or {}).get("template") or {}
    data_hash = hash_revision(template_patch(sts), (sts.get("status") or {}).get("collisionCount"))
    labels = {**((template.get("metadata") or {}).get("labels") or {}), HISTORY_HASH_LABEL: data_hash}
    name = f"{sts['metadata']['name'][:223]}-{data_hash}"
    return Snapshot(name, name, labels)


class RevisionHistory:
    """constructHistory and cleanupHistory for one controller, on the controller manager's
    informer (which watches ControllerRevisions) and through the API server."""

    def __init__(self, cm: ControllerHost, title: str) -> None:
        self.cm = cm
        self.title = title

    def controlled(self, owner: dict) -> list[dict]:
        uid = owner["metadata"]["uid"]
        namespace = owner["metadata"].get("namespace", "")
        return [
            h
            for h in self.cm.informer.items("ControllerRevision")
            if h["metadata"].get("namespace", "") == namespace and (controller_ref(h) or {}).get("uid") == uid
        ]

    def split(self, owner: dict) -> tuple[list[dict], list[dict]]:
        """(the revisions of the current template, the old ones)."""
        patch = template_patch(owner)
        current, old = [], []
        for history in self.controlled(owner):
            (current if history.get("data") == patch else old).append(history)
        return current, old

    def needs_writes(self, owner: dict) -> bool:
        """Whether construct() would write: no current revision, or one numbered too low."""
        current, old = self.split(owner)
        return not current or len(current) > 1 or revision(current[0]) <= max_revision(old)

    def construct(
        self, owner: dict, snapshot: Snapshot, trace_id: str | None
    ) -> tuple[dict | None, list[dict]]:
        """(the current revision, created or renumbered when needed; the old ones). Database thread."""
        current, old = self.split(owner)
        next_number = max_revision(old) + 1
        actor = self.cm.actor(trace_id, self.title)
        if not current:
            return self._snapshot(owner, snapshot, next_number, actor), old
        current = by_revision(current)
        keep = current[-1]
        for duplicate in current[:-1]:  # dedupCurHistories: one revision per template
            self._delete(duplicate, actor)
        if revision(keep) < next_number:
            changed = copy.deepcopy(keep)
            changed["revision"] = next_number
            try:
                keep = api.update(self.cm.cluster, changed, actor)
            except ApiError:
                return None, old
            self.cm.assume(keep)
        return keep, old

    def _snapshot(self, owner: dict, snapshot: Snapshot, number: int, actor) -> dict | None:
        meta = owner["metadata"]
        body = {
            "apiVersion": "apps/v1",
            "kind": "ControllerRevision",
            "metadata": {
                "name": snapshot.name,
                "namespace": meta.get("namespace", "default"),
                "labels": snapshot.labels,
                "ownerReferences": [owner_reference(owner)],
            },
            "data": template_patch(owner),
            "revision": number,
        }
        if meta.get("annotations"):
            body["metadata"]["annotations"] = dict(meta["annotations"])
        try:
            created = api.create(self.cm.cluster, body, actor)
        except ApiError as error:
            if error.code != 409:
                return None
            found = self.cm.informer.get("ControllerRevision", meta.get("namespace", ""), snapshot.name)
            if found is not None and found.get("data") == body["data"]:
                return found
            self._count_collision(owner, actor)  # a name taken by another template: rename next time
            return None
        self.cm.assume(created)
        return created

    def _count_collision(self, owner: dict, actor) -> None:
        body = copy.deepcopy(owner)
        body["metadata"].pop("resourceVersion", None)
        status = body.setdefault("status", {})
        status["collisionCount"] = (status.get("collisionCount") or 0) + 1
        try:
            self.cm.assume(api.update(self.cm.cluster, body, actor, subresource="status"))
        except ApiError:
            return

    def cleanup(self, owner: dict, old: list[dict], live: set[str], label: str, trace_id: str | None) -> None:
        """cleanupHistory: keep revisionHistoryLimit old revisions, the oldest go first, never one
        whose pods still run (`label` of a revision is what its pods carry). Database thread."""
        limit = (owner.get("spec") or {}).get("revisionHistoryLimit", 10)
        surplus = len(old) - (limit if isinstance(limit, int) else 10)
        actor = self.cm.actor(trace_id, self.title)
        for history in by_revision(old):
            if surplus <= 0:
                break
            if _pod_label(history, label) in live:
                continue
            self._delete(history, actor)
            surplus -= 1

    def _delete(self, history: dict, actor) -> None:
        meta = history["metadata"]
        with contextlib.suppress(ApiError):  # already gone
            api.delete(self.cm.cluster, "ControllerRevision", meta.get("namespace"), meta["name"], actor)
        self.cm.informer.store["ControllerRevision"].pop((meta.get("namespace", ""), meta["name"]), None)


def _pod_label(history: dict, label: str) -> str:
    """What the revision's pods carry: its hash label (a DaemonSet's) or its name (label "")."""
    if not label:
        return history["metadata"]["name"]
    return (history["metadata"].get("labels") or {}).get(label, "")
