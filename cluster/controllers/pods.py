"""What the workload controllers share about pods: ownership, readiness, names, ranking."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from cluster.kubeapi.humanize import parse_time

# k8s.io/apimachinery/pkg/util/rand: the alphabet of generated name suffixes (no vowels, no 0/1/3).
ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"

MERGE_PATCH = "application/merge-patch+json"


def random_suffix(length: int = 5) -> str:
    return "".join(random.choice(ALPHANUMS) for _ in range(length))


def controller_ref(obj: dict) -> dict | None:
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("controller"):
            return ref
    return None


def owner_reference(owner: dict) -> dict:
    meta = owner["metadata"]
    return {
        "apiVersion": owner.get("apiVersion", "v1"),
        "kind": owner["kind"],
        "name": meta["name"],
        "uid": meta["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def is_active(pod: dict) -> bool:
    """controller.FilterActivePods: not terminal and not being deleted."""
    phase = (pod.get("status") or {}).get("phase")
    return phase not in ("Succeeded", "Failed") and not (pod.get("metadata") or {}).get("deletionTimestamp")


def is_ready(pod: dict) -> bool:
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return condition.get("status") == "True"
    return False


def is_available(pod: dict, min_ready_seconds: int, now: datetime) -> bool:
    """podutil.IsPodAvailable: ready, and for longer than minReadySeconds."""
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            if condition.get("status") != "True":
                return False
            if not min_ready_seconds:
                return True
            since = parse_time(condition.get("lastTransitionTime"))
            return since is not None and since + timedelta(seconds=min_ready_seconds) < now
    return False


def pod_from_template(owner: dict, template: dict, name: str) -> dict:
    template_meta = template.get("metadata") or {}
    meta = {
        "name": name,
        "generateName": f"{owner['metadata']['name']}-",
        "namespace": owner["metadata"].get("namespace", "default"),
        "labels": dict(template_meta.get("labels") or {}),
        "ownerReferences": [owner_reference(owner)],
    }
    if template_meta.get("annotations"):
        meta["annotations"] = dict(template_meta["annotations"])
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": dict(template.get("spec") or {})}


def deletion_rank(pod: dict) -> tuple:
    """controller.ActivePods ordering: the first pods are the first to delete when scaling down.

    Unassigned before assigned, Pending before Running, not ready before ready, newer before older.
    creationTimestamp has one-second precision, so pods made in the same second (a pod applied just
    after its RC's pods) are told apart by the newer write first, which keeps the newcomer the one
    that goes instead of whichever name sorts last.
    """
    phase_rank = {"Pending": 0, "Unknown": 1, "Running": 2}
    status = pod.get("status") or {}
    created = (pod.get("metadata") or {}).get("creationTimestamp") or ""
    return (
        bool((pod.get("spec") or {}).get("nodeName")),
        phase_rank.get(status.get("phase", "Pending"), 0),
        is_ready(pod),
        _negated(created),
        -_revision(pod),
    )


def _revision(pod: dict) -> int:
    try:
        return int((pod.get("metadata") or {}).get("resourceVersion") or 0)
    except ValueError:
        return 0


def _negated(timestamp: str) -> tuple[int, ...]:
    return tuple(-ord(ch) for ch in timestamp)


def labels_of(obj: dict) -> dict[str, str]:
    return (obj.get("metadata") or {}).get("labels") or {}
