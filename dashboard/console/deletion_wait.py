"""The console's `delete` waits as kubectl's does (`--wait=true`, its default): until every object
it deleted is gone, so that the next command (`apply` of a pod by the same name) finds it gone.

A pod deleted gracefully stays, Terminating, until its kubelet removes it: the console waits for
that only while a control plane runs the cluster (the embedded default runs every one in this
process, and wakes a parked one; elsewhere its Lease is fresh; a lab's self-test drives its
throwaway cluster itself) and at most the grace period and a little more.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

from cluster.apiserver import service as api
from cluster.client import leader
from cluster.controlplane import activity
from cluster.controlplane.runtime import DRIVEN_ELSEWHERE
from cluster.kubeapi.humanize import parse_time
from cluster.models import Cluster

POLL_SECONDS = 0.1
SLACK_SECONDS = 5


def control_plane_alive(cluster: Cluster) -> bool:
    if activity.announced():  # embedded: its Lease is written once and never renewed
        return not cluster.name.startswith(DRIVEN_ELSEWHERE)
    lease = leader.current(cluster)
    renewed = parse_time((lease or {}).get("renewTime"))
    if renewed is None:
        return False
    duration = (lease or {}).get("leaseDurationSeconds") or leader.LEASE_DURATION_SECONDS
    return datetime.now(UTC) - renewed < timedelta(seconds=duration + 2)


def _still_there(cluster: Cluster, kind: str, namespace: str, name: str, uid: str) -> bool:
    try:
        return api.get(cluster, kind, namespace, name)["metadata"].get("uid") == uid
    except api.ApiError:
        return False


def wait_gone(cluster: Cluster, deleted: list[tuple[str, str, dict]]) -> None:
    """`deleted`: (kind, namespace, the object as the DELETE answered). Returns when all are gone."""
    pending = [(kind, ns, obj) for kind, ns, obj in deleted if obj["metadata"].get("deletionTimestamp")]
    if not pending or not control_plane_alive(cluster):
        return
    grace = max(int(obj["metadata"].get("deletionGracePeriodSeconds") or 0) for _, _, obj in pending)
    deadline = time.monotonic() + grace + SLACK_SECONDS
    while time.monotonic() < deadline:
        pending = [
            (kind, ns, obj)
            for kind, ns, obj in pending
            if _still_there(cluster, kind, ns, obj["metadata"]["name"], obj["metadata"].get("uid", ""))
        ]
        if not pending:
            return
        time.sleep(POLL_SECONDS)
