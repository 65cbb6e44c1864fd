"""What the page shows of a pod and would otherwise re-derive, computed once by the server: its
STATUS, READY and RESTARTS as kubectl prints them (cluster/kubeapi/podstatus.py) and its requests
as kube-scheduler sums them (scheduler/engine/resources.py: sidecars added, init containers
maxed, overhead)."""

from __future__ import annotations

from cluster.kubeapi.podstatus import pod_summary
from scheduler.engine.resources import shared_pod_requests


def key(pod: dict) -> str:
    meta = pod["metadata"]
    return f"{meta.get('namespace') or 'default'}/{meta['name']}"


def requests(pod: dict) -> dict[str, int]:
    """{"cpu": millicores, "memory": bytes}: what the node cards' capacity bars add up."""
    try:
        summed = shared_pod_requests(pod)[0]
    except (ValueError, ArithmeticError):  # a quantity the API server should have refused
        return {"cpu": 0, "memory": 0}
    return {"cpu": summed.milli_cpu, "memory": summed.memory}


def facts(pod: dict) -> tuple[str, dict[str, int], dict]:
    """(kubectl's STATUS, requests, the other columns) of the pod. The columns: READY ("0/1"),
    RESTARTS and, when there was one, the last restart's time (kubectl prints "2 (35s ago)")."""
    summary = pod_summary(pod)
    columns: dict = {"ready": f"{summary.ready}/{summary.total}", "restarts": summary.restarts}
    if summary.last_restart is not None:
        columns["lastRestart"] = summary.last_restart.strftime("%Y-%m-%dT%H:%M:%SZ")
    return summary.reason, requests(pod), columns


# The page's view of a pod (`?view=page` on the snapshot): what the dashboard draws and keys by,
# about a seventh of the stored object. The inspector fetches the whole object when asked.
SUMMARY_METADATA = (
    "name",
    "generateName",
    "namespace",
    "uid",
    "resourceVersion",
    "labels",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
)
SUMMARY_SPEC = ("nodeName", "priority", "priorityClassName")
SUMMARY_STATUS = ("phase", "reason", "message", "podIP", "nominatedNodeName")


def summary(pod: dict) -> dict:
    """The pod's page view: identity, owners, node, phase, and the conditions that are not met
    (the Pending lane shows PodScheduled's message)."""
    meta = pod.get("metadata") or {}
    spec = pod.get("spec") or {}
    status = pod.get("status") or {}
    out_meta = {k: meta[k] for k in SUMMARY_METADATA if k in meta}
    if meta.get("ownerReferences"):
        out_meta["ownerReferences"] = [
            {k: ref[k] for k in ("apiVersion", "kind", "name", "uid", "controller") if k in ref}
            for ref in meta["ownerReferences"]
        ]
    out_spec = {k: spec[k] for k in SUMMARY_SPEC if k in spec}
    containers = spec.get("containers") or []
    out_spec["containers"] = [{"name": c.get("name"), "image": c.get("image")} for c in containers]
    out_status = {k: status[k] for k in SUMMARY_STATUS if k in status}
    unmet = [c for c in status.get("conditions") or [] if c.get("status") != "True"]
    if unmet:
        out_status["conditions"] = unmet
    return {
        "apiVersion": pod.get("apiVersion", "v1"),
        "kind": "Pod",
        "metadata": out_meta,
        "spec": out_spec,
        "status": out_status,
    }
