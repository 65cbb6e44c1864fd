"""The pod a port-forward goes to: kube-apiserver's checks before the upgrade, and the pod as
the runtime finds it at each dial (it may have restarted a container or gone meanwhile)."""

from __future__ import annotations

from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError, bad_request
from cluster.models import Cluster


def pod_for_forward(cluster: Cluster, namespace: str, name: str) -> dict:
    """The pod, or kube-apiserver's ApiError (404, or 400 for a pod not yet on a node)."""
    pod = api.get(cluster, "Pod", namespace, name)
    if not (pod.get("spec") or {}).get("nodeName"):
        raise bad_request(f"pod {name} does not have a host assigned")
    return pod


def current(cluster: Cluster, pod: dict) -> dict | None:
    """The same pod (same uid) as it is now, or None once it is gone."""
    meta = pod["metadata"]
    try:
        now = api.get(cluster, "Pod", meta.get("namespace", "default"), meta["name"])
    except ApiError:
        return None
    return now if now["metadata"].get("uid") == meta.get("uid") else None


def still_there(cluster: Cluster, pod: dict) -> bool:
    return current(cluster, pod) is not None
