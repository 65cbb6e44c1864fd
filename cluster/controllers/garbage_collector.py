"""The garbage collector: dependents whose owner no longer exists are deleted (or orphaned).

Kubernetes' garbage collector watches every object's ownerReferences and deletes a dependent once
none of its owners exists. KubeSim's API server already cascades a DELETE in the same transaction
(`cluster/apiserver/cascade.py`), so the collector is the safety net for everything else: a pod a
controller created while its owner was being deleted by another process, or the leftovers of a
process killed (`kill -9`) halfway through. It also ends Foreground deletions: an owner kept
with the `foregroundDeletion` finalizer loses it once its last dependent is gone. It sweeps at
start-up and then after writes (cluster/controlplane/runtime.py: in the scale-out profile at most
every SWEEP_SECONDS, after a write of another kind than Leases and Events, and every ten seconds
anyway): one query finds the rows whose controller owner uid names
no live object, and each is judged under the cluster lock by `cascade.collect` (the one
definition of how deletion cascades).

At start-up it also ends the traces left running for an object that is gone, so the flow panel
does not show a trace stuck "running" forever after a crash. Its sweeps also keep the cluster's
remembered past within its bounds (`cluster/retention.py`).
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from cluster import retention
from cluster.apiserver import cascade, finalizers, store
from cluster.apiserver.actor import Actor
from cluster.apiserver.rows import cluster_named
from cluster.controllers import ownedrows
from cluster.flow.writers import COMPONENT
from cluster.models import ApiObject, Cluster, FlowTrace

SWEEP_SECONDS = 1.0
BATCH = 200  # dependents judged per transaction, so a large sweep never holds the lock long
ACTOR = Actor("controller-manager", "garbage collector", flow=COMPONENT)


class GarbageCollector:
    component = "garbage-collector"

    def __init__(self, cluster_name: str) -> None:
        self.cluster_name = cluster_name
        self.swept_at: int | None = None  # the revision the last sweep saw: nothing new, no query
        self.pruner = retention.Pruner()

    def _cluster(self) -> Cluster | None:
        return cluster_named(self.cluster_name)

    def dangling(self, cluster: Cluster, limit: int = BATCH) -> list[tuple[str, str, str]]:
        """(kind, namespace, name) of objects whose controller owner uid names no live object."""
        return ownedrows.dangling(cluster.pk, limit)  # terminating ones are already on their way

    def sweep(self) -> int:
        """Collect every dangling dependent (database thread); returns how many were changed."""
        cluster = self._cluster()
        if cluster is None or cluster.revision == self.swept_at:
            return 0
        changed = 0
        while found := self.dangling(cluster):
            before = changed
            with transaction.atomic():
                locked = store.lock(cluster)
                for kind, namespace, name in found:
                    row = store.find(locked, kind, namespace, name)
                    if row is not None and cascade.collect(locked, row, ACTOR) != "kept":
                        changed += 1
            cluster.revision = locked.revision
            if len(found) < BATCH or changed == before:
                break
        changed += self.finish_foreground(cluster)
        self.swept_at = cluster.revision
        if self.pruner.due():
            retention.prune(cluster)
        return changed

    def finish_foreground(self, cluster: Cluster) -> int:
        """Remove the `foregroundDeletion` finalizer of owners whose dependents are all gone."""
        waiting = [
            (kind, namespace, name)
            for kind, namespace, name, body in ApiObject.objects.filter(cluster=cluster, deleting=True)
            .exclude(kind="Pod")
            .values_list("kind", "namespace", "name", "body")[:BATCH]
            if finalizers.FOREGROUND in finalizers.of(body)
        ]
        if not waiting:
            return 0
        changed = 0
        with transaction.atomic():
            locked = store.lock(cluster)
            for kind, namespace, name in waiting:
                row = store.find(locked, kind, namespace, name)
                if row is not None and cascade.finish_foreground(locked, row, ACTOR):
                    changed += 1
        cluster.revision = locked.revision
        return changed

    def heal(self) -> int:
        """At start-up: sweep, and end the traces still running for an object that is gone."""
        changed = self.sweep()
        cluster = self._cluster()
        if cluster is None:
            return changed
        running = FlowTrace.objects.filter(cluster=cluster, finished_at=None)
        live = set(
            ApiObject.objects.filter(cluster=cluster).values_list("kind", "namespace", "name").iterator()
        )
        gone = [
            pk
            for pk, kind, namespace, name in running.values_list("pk", "kind", "namespace", "name")
            if (kind, namespace, name) not in live
        ]
        if gone:
            FlowTrace.objects.filter(pk__in=gone).update(finished_at=timezone.now())
        return changed + len(gone)
