"""What the page shows of a pod and would otherwise re-derive, computed once by the server: its
STATUS as kubectl prints it (cluster/kubeapi/podstatus.py) and its requests as kube-scheduler sums
them (scheduler/engine/resources.py: sidecars added, init containers maxed, overhead)."""

from __future__ import annotations

from cluster.kubeapi.podstatus import status_text
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


def facts(pod: dict) -> tuple[str, dict[str, int]]:
    """(kubectl's STATUS, requests) of the pod."""
    return status_text(pod), requests(pod)
