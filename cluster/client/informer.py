"""List, then watch: how every component of the control plane learns about the cluster.

An informer lists each kind it cares about through the API server, then reads the event log from
the revision it listed at (`store.watch_page`: the entries of the kinds it watches). A nudge only
says "read the log now": a lost nudge loses nothing, and a relist after 410 Gone (the log was
compacted) heals any gap.
Informers run in the database thread (their methods are synchronous).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from asgiref.sync import sync_to_async
from django.db import connection

from cluster.apiserver import service as api
from cluster.apiserver import store
from cluster.apiserver.errors import Gone
from cluster.broadcast import nudge
from cluster.client import workmeter
from cluster.controlplane import turns
from cluster.flow import watches
from cluster.models import ApiObject, Cluster

# Reading the log in pages keeps one pass short when a burst of writes landed.
PAGE = 2000
# An informer whose kinds saw no change still reads this often (see Informer.up_to_date).
REFRESH_SECONDS = 10.0


@dataclass(slots=True)
class Delta:
    type: str  # ADDED | MODIFIED | DELETED
    kind: str
    obj: dict  # the object now (for DELETED: as it was deleted)
    old: dict | None  # the object as this informer knew it before
    revision: int
    trace_id: str | None  # the flow trace the change belongs to, when one does

    @property
    def key(self) -> tuple[str, str]:
        meta = self.obj.get("metadata") or {}
        return meta.get("namespace", ""), meta.get("name", "")


def key_of(obj: dict) -> tuple[str, str]:
    meta = obj.get("metadata") or {}
    return meta.get("namespace", ""), meta.get("name", "")


class Informer:
    def __init__(
        self,
        cluster_name: str,
        component: str,
        kinds: tuple[str, ...],
        resources: str,
        port: str,
        node: str = "",
    ) -> None:
        self.cluster_name = cluster_name
        self.component = component
        self.kinds = kinds
        self.watch = watches.OpenWatch(component, resources, port, 0, node)
        self.store: dict[str, dict[tuple[str, str], dict]] = {kind: {} for kind in kinds}
        self.revision: int | None = None
        self.cluster: Cluster | None = None
        # True when the last sync filled a whole page: there is more log to read right away.
        self.behind = False
        # Set when a nudge may have been missed (a poll timeout): read the log even if no
        # nudge announced a newer revision.
        self.stale = True
        self.read_at = 0.0  # time.monotonic() of the last read

    def up_to_date(self) -> bool:
        """Nothing newer than what we read was announced for the kinds we watch: skip the query (a
        nudge for flow steps, for a Lease renewal or an Event, or for a revision already read
        while we were busy). Every REFRESH_SECONDS we read anyway, so our revision follows the
        log even when only other kinds change (and is never compacted away under us)."""
        return (
            self.revision is not None
            and not self.behind
            and not self.stale
            and time.monotonic() - self.read_at < REFRESH_SECONDS
            and nudge.latest_revision_of(self.cluster_name, self.kinds) <= self.revision
        )

    def sync(self) -> list[Delta]:
        """Bring the store up to date; returns what changed (everything, as ADDED, after a (re)list)."""
        if self.cluster is None:
            self.cluster = Cluster.objects.get(name=self.cluster_name)
        self.stale = False
        self.read_at = time.monotonic()
        if self.revision is None:
            return self._list()
        try:
            events, upto = store.watch_page(self.cluster, self.revision, self.kinds, PAGE)
        except Gone:
            return self._list()
        self.behind = len(events) == PAGE
        deltas = [self._apply(event) for event in events]
        if upto > self.revision:
            self.revision = upto
            watches.advance(self.cluster_name, self.component, self.revision, self.watch.node)
        return deltas

    def _apply(self, event) -> Delta:
        store = self.store[event.kind]
        key = (event.namespace, event.name)
        old = store.get(key)
        if event.type == "DELETED":
            store.pop(key, None)
        else:
            store[key] = event.object
        return Delta(event.type, event.kind, event.object, old, event.revision, event.trace_id)

    def _list(self) -> list[Delta]:
        revisions = []
        deltas = []
        previous = self.store
        self.store = {}
        for kind in self.kinds:
            items, revision = api.list_objects(self.cluster, kind)
            revisions.append(revision)
            self.store[kind] = {key_of(item): item for item in items}
            traces = _traces_of(self.cluster, kind)
            known = previous.get(kind, {})
            deltas.extend(
                Delta("ADDED", kind, item, known.get(key), revision, traces.get(key))
                for key, item in self.store[kind].items()
            )
            for key, gone in previous.get(kind, {}).items():
                if key not in self.store[kind]:
                    deltas.append(Delta("DELETED", kind, gone, gone, revision, None))
        # Kinds were listed one after another: watch from the oldest list, replaying the events
        # the later lists already include (they are idempotent upserts, in log order).
        self.revision = min(revisions)
        self.watch.revision = self.revision
        watches.register(self.cluster_name, self.watch)
        return deltas

    def get(self, kind: str, namespace: str, name: str) -> dict | None:
        return self.store[kind].get((namespace, name))

    def items(self, kind: str) -> list[dict]:
        return list(self.store[kind].values())

    def close(self) -> None:
        watches.unregister(self.cluster_name, self.component, self.watch.node)


def _traces_of(cluster: Cluster, kind: str) -> dict[tuple[str, str], str]:
    """The flow trace each object carries: a list (a new leader's first, or one after 410 Gone)
    resumes half-done work inside the trace that started it, so that trace still completes."""
    rows = ApiObject.objects.filter(cluster=cluster, kind=kind, trace__isnull=False)
    return {(ns, name): trace for ns, name, trace in rows.values_list("namespace", "name", "trace_id")}


def db(function):
    """Run `function` in the database thread, keeping that thread's connection open.

    The control plane is a long-running worker: unlike a request (database_sync_to_async closes
    the connection around every call), it reuses its connection, which for SQLite saves a connect,
    its PRAGMAs and a close on every one of thousands of small calls. A failed pass closes it
    (`reset_connection`), so a broken connection is replaced on the next call. It starts once no
    request of this process is in its thread (at most 50 ms later).
    """
    call = sync_to_async(workmeter.metered(function), thread_sensitive=True)

    async def after_requests(*args, **kwargs):
        await turns.after_requests()  # a student's request goes first (cluster/controlplane/turns.py)
        return await call(*args, **kwargs)

    return after_requests


def reset_connection() -> None:
    connection.close()
