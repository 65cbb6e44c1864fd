"""Fencing: a control plane writes only while its process holds the cluster's Lease.

A leader stops its components the moment it cannot renew, and hands a lease over only after
they stopped; but a process that stalls (a long pause, a swapped-out machine) could wake up still
believing it leads after another took over. So every write a control plane's components make
checks, under the cluster row lock that the new leader's Lease write also takes, that the Lease
still names this process: a stale leader's write is refused and changes nothing, so a cluster's
control plane never runs twice. Only the scale-out profile's elected control planes set it; the
embedded default and API requests are not fenced.

A transaction checks each cluster once (database/held.py): a control plane's batch makes dozens
of writes under one lock, and the Lease cannot change while the lock is held, unless this
transaction writes it (`written`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

from cluster.apiserver import rows
from database import held

# Where the control planes' leader election keeps its Lease (cluster/client/leader.py).
LEASE_NAMESPACE = "kube-system"
LEASE_NAME = "kubesim-controlplane"

# The Lease holder identity the running code writes for (set in a control plane's tasks).
_LEADING: ContextVar[str | None] = ContextVar("kubesim_leading", default=None)


class NotLeading(RuntimeError):
    """A control plane's write after its process stopped leading the cluster."""


@contextlib.contextmanager
def leading(identity: str | None) -> Iterator[None]:
    """Tasks created inside carry `identity`: their writes are fenced by the Lease."""
    token = _LEADING.set(identity)
    try:
        yield
    finally:
        _LEADING.reset(token)


def check(cluster_id: int, cluster_name: str) -> None:
    """Under the cluster row lock: refuse a fenced write whose process no longer holds the Lease."""
    me = _LEADING.get()
    if me is None:
        return
    kept = held.kept()
    if kept is not None and kept.get(("fenced", cluster_id)) == me:
        return  # checked under the lock this transaction still holds
    row = rows.find(cluster_id, "Lease", LEASE_NAMESPACE, LEASE_NAME)
    spec = ((row.body if row is not None else None) or {}).get("spec") or {}
    holder = spec.get("holderIdentity") or ""
    if holder != me:
        raise NotLeading(
            f"{me} no longer leads the control plane of {cluster_name} (the Lease names {holder or 'nobody'})"
        )
    if kept is not None:
        kept[("fenced", cluster_id)] = me


def written(cluster_id: int, kind: str, namespace: str, name: str) -> None:
    """A write of this transaction (store.write): when it is the cluster's Lease, the next fenced
    write reads it again."""
    if kind == "Lease" and name == LEASE_NAME and namespace == LEASE_NAMESPACE:
        kept = held.kept()
        if kept is not None:
            kept.pop(("fenced", cluster_id), None)
