"""The teacher's node failure: a kubelet stopped ("systemctl stop kubelet" on node2), which
kubectl cannot do, so the simulation offers it (`POST /clusters/<c>/nodes/<node>/kubelet`, the
node's menu on the page).

A stopped kubelet posts nothing: no Lease renewals, no node status, and it neither starts nor
stops a pod (the containers it already runs keep running, as a real node's do when only its
kubelet is down). The node lifecycle controller sees the silence
(`cluster/controllers/nodelifecycle.py`). Which kubelets are stopped, and since when on the
cluster's clock, is stored on the Cluster row, so every process agrees: the request that changes
it updates this process at once, the control plane scans read it (as the clock's offset).
"""

from __future__ import annotations

from django.db import transaction

from cluster.apiserver.defaults import now_rfc3339
from cluster.broadcast import nudge
from cluster.models import Cluster

_stopped: dict[str, dict[str, str]] = {}  # cluster -> node -> when it stopped (RFC 3339)


def stopped(cluster_name: str) -> dict[str, str]:
    """The kubelets of the cluster that are stopped, and since when (read-only)."""
    return _stopped.get(cluster_name) or {}


def is_stopped(cluster_name: str, node: str) -> bool:
    return node in (_stopped.get(cluster_name) or {})


def observe(cluster_name: str, value: object) -> None:
    """A fresh reading of the row's `stopped_kubelets`; a change wakes this process's control plane."""
    fresh = {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}
    if fresh != (_stopped.get(cluster_name) or {}):
        _stopped[cluster_name] = fresh
        nudge.NUDGES.fire(cluster_name)


def set_running(cluster: Cluster, node: str, running: bool) -> dict[str, str]:
    """Stop or start the node's kubelet (database thread); returns the stopped kubelets."""
    with transaction.atomic():
        row = Cluster.objects.select_for_update().get(pk=cluster.pk)
        value = dict(row.stopped_kubelets or {})
        if running:
            value.pop(node, None)
        else:
            value.setdefault(node, now_rfc3339())
        if value != (row.stopped_kubelets or {}):
            Cluster.objects.filter(pk=cluster.pk).update(stopped_kubelets=value)
    observe(cluster.name, value)
    nudge.notify(cluster.name, None)  # news for the page and for other processes
    return value


def forget(cluster_name: str) -> None:
    _stopped.pop(cluster_name, None)
