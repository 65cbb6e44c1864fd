"""A controller's writes checked against its owner's live row, under the cluster lock.

A controller acts on its informer's copy of an owner, which may be stale by the time it writes:
the owner may have been scaled down, changed or deleted meanwhile. Each batch of creations or
deletions re-reads the owner in the same transaction as its writes, so a deleted owner gets no
new dependents (they would be orphans) and a scale-down stops a scale-up at the next batch.
"""

from __future__ import annotations

from cluster.apiserver import store
from cluster.controllers.ownedrows import active_pod_count
from cluster.models import Cluster


def live_owner(locked: Cluster, owner: dict) -> dict | None:
    """The owner's stored body when it still exists with the same uid and is not being deleted."""
    meta = owner["metadata"]
    row = store.find(locked, owner["kind"], meta.get("namespace", ""), meta["name"])
    if row is None or row.uid != meta.get("uid") or row.body["metadata"].get("deletionTimestamp"):
        return None
    return row.body


def wanted_replicas(owner: dict) -> int:
    replicas = (owner.get("spec") or {}).get("replicas", 1)
    return replicas if isinstance(replicas, int) else 1


def active_pods(locked: Cluster, owner_uid: str) -> int:
    """How many pods the owner controls that are neither terminal nor terminating (counted in the
    database): as upstream's FilterActivePods, a pod with a deletionTimestamp is replaced at once."""
    return active_pod_count(locked.pk, owner_uid)
