"""Scheduling attempts' explanations, built off the critical path.

An attempt's row (result, node, message, queue facts) is written with the pod's binding; its
explanation (every node × every filter and score, ~4 ms of CPU on 100 nodes, more than the cycle
itself) is not needed to bind, so the row is written with `decision` NULL and the Explainer of the
scheduler that made it fills it in a lull of the control plane. The Decision objects it keeps hold
only immutable inputs (scheduler.engine.framework.ScoreColumn.lazy), so an explanation built later
is the one built at once.

Readers ask for a pod's explanations with `ready()` first: in the process whose scheduler made the
attempt they are built there and then, in another process (the scaled profile) it waits for the
control plane's writer.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from datetime import timedelta

from django.db import connection, transaction
from django.utils import timezone

from cluster.apiserver import rows
from cluster.broadcast import nudge
from cluster.client.informer import db
from cluster.controlplane.lull import lull
from scheduler.engine.compact import to_compact
from scheduler.models import SchedulingAttempt

# How long a burst of the control plane may put the explainer off (cluster/controlplane/lull.py), and how many
# decisions it may keep waiting meanwhile (each holds its cycle's score columns).
MAX_DEFER_SECONDS = 30.0
MAX_PENDING = 1500
# Attempts explained per trip to a worker thread and written per transaction (~20 ms of CPU on
# 100 nodes: a lull's work must not hold up the next pod for long).
CHUNK = 5
# A reader in another process waits this long for the control plane's writer.
WAIT_SECONDS = 10.0
WAIT_POLL_SECONDS = 0.05
RECENT_SECONDS = 60.0

# cluster id -> the explainer of this process's scheduler for it.
_explainers: dict[int, Explainer] = {}
_registry_lock = threading.Lock()


def explain(decision) -> str:
    """The decision in the compact stored form, as JSON text."""
    return json.dumps(to_compact(decision), ensure_ascii=False, separators=(",", ":"))


class Explainer:
    """The pending explanations of one cluster's scheduler: attempt id -> (namespace, pod, decision)."""

    def __init__(self, cluster_name: str) -> None:
        self.cluster_name = cluster_name
        self.cluster_id: int | None = None
        self.pending: dict[int, tuple[str, str, object]] = {}
        self.in_flight: set[int] = set()
        self.lock = threading.Condition()
        self.queued = nudge.Signal()
        self.oldest = 0.0  # monotonic time the oldest pending attempt was added

    def register(self, cluster_id: int) -> None:
        self.cluster_id = cluster_id
        with _registry_lock:
            _explainers[cluster_id] = self

    def close(self) -> None:
        with _registry_lock:
            if self.cluster_id is not None and _explainers.get(self.cluster_id) is self:
                del _explainers[self.cluster_id]

    def add(self, items: list[tuple[int, str, str, object]]) -> None:
        """Attempts just stored with no explanation: (id, namespace, pod, decision)."""
        if not items:
            return
        with self.lock:
            if not self.pending:
                self.oldest = time.monotonic()
            for attempt_id, namespace, pod, decision in items:
                self.pending[attempt_id] = (namespace, pod, decision)
        self.queued.fire(self.cluster_name)

    def _take(self, wanted=None, limit: int | None = None) -> list[tuple[int, object]]:
        with self.lock:
            ids = [i for i, (ns, pod, _) in self.pending.items() if wanted is None or (ns, pod) == wanted]
            ids = ids[:limit] if limit else ids
            taken = [(i, self.pending.pop(i)[2]) for i in ids]
            self.in_flight.update(ids)
        return taken

    def _done(self, ids) -> None:
        with self.lock:
            self.in_flight.difference_update(ids)
            self.lock.notify_all()

    def _explain_and_store(self, taken: list[tuple[int, object]], own_thread: bool) -> None:
        """Build and write the explanations of `taken` (a worker thread's connection is closed
        afterwards: the thread is not one the process keeps connections on)."""
        try:
            store([(attempt_id, explain(decision)) for attempt_id, decision in taken])
        finally:
            self._done([attempt_id for attempt_id, _ in taken])
            if own_thread and not connection.in_atomic_block:
                connection.close()

    # -- the control plane's writer --------------------------------------------------------------
    async def run(self) -> None:
        """Explain in the control plane's lulls (a long burst puts it off MAX_DEFER_SECONDS at most)."""
        waiter = self.queued.subscribe(self.cluster_name)
        try:
            while True:
                if not self.pending:
                    await waiter.wait(1.0)
                    continue
                if len(self.pending) < MAX_PENDING:
                    await lull(self.cluster_name, self.oldest + MAX_DEFER_SECONDS)
                await self.explain_some(CHUNK)
        finally:
            waiter.close()

    async def explain_some(self, limit: int | None = None) -> int:
        taken = self._take(limit=limit)
        if taken:
            # Not on the database thread: a reader there may be waiting for these (explain_pod).
            await asyncio.to_thread(self._explain_and_store, taken, True)
        return len(taken)

    async def explain_all(self) -> None:
        """Everything pending, now (run_until_idle: tests read attempts right after). On the
        database thread, as run_until_idle's other work: a caller's open transaction (a test's, a
        lab self-test's) is that thread's, and another connection would wait for it in vain."""
        while taken := self._take(limit=CHUNK):
            await db(self._explain_and_store)(taken, False)

    # -- readers (any thread) --------------------------------------------------------------------
    def explain_pod(self, namespace: str, pod: str) -> None:
        """Build and store the pod's pending explanations in the calling thread; wait for those
        the writer has in hand."""
        taken = self._take((namespace, pod))
        if taken:
            self._explain_and_store(taken, False)
        with self.lock:
            self.lock.wait_for(lambda: not self.in_flight, timeout=WAIT_SECONDS)


def store(explained: list[tuple[int, str]]) -> None:
    """Write explanations into their attempts' rows, in one transaction."""
    if not explained:
        return
    table = connection.ops.quote_name(SchedulingAttempt._meta.db_table)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.executemany(
            f"UPDATE {table} SET decision = %s WHERE id = %s",
            [(rows.json_param(text), attempt_id) for attempt_id, text in explained],
        )


def ready_here(cluster, namespace: str, pod: str) -> bool:
    """`ready` when this process's scheduler made the pod's attempts (True); False at once, waiting
    for nothing, when another process's did (a hub's read must not wait for it)."""
    with _registry_lock:
        local = _explainers.get(cluster.pk)
    if local is not None:
        local.explain_pod(namespace, pod)
    return local is not None


def decision_of(cluster, namespace: str, pod: str, trace_id: str) -> dict | None:
    """The decision of the pod's newest attempt in a trace (what decided its placement), once it
    is explained; None while it is not (or there is no such attempt)."""
    attempts = SchedulingAttempt.objects.filter(cluster_id=cluster.pk, namespace=namespace, pod=pod)
    attempt = attempts.filter(trace_id=trace_id).order_by("-created_at", "-pk").first()
    if attempt is not None and attempt.decision is None and ready_here(cluster, namespace, pod):
        attempt.refresh_from_db()
    if attempt is None or attempt.decision is None:
        return None
    return attempt.to_json()["decision"]


def ready(cluster, namespace: str, pod: str) -> None:
    """Make sure the pod's attempts carry their explanations before they are read."""
    with _registry_lock:
        local = _explainers.get(cluster.pk)
    if local is not None:
        local.explain_pod(namespace, pod)
        return
    # Only recent ones are waited for: a control plane killed mid-burst leaves its last few
    # unexplained for good (they read as decision null).
    since = timezone.now() - timedelta(seconds=RECENT_SECONDS)
    unexplained = SchedulingAttempt.objects.filter(
        cluster=cluster, namespace=namespace, pod=pod, decision__isnull=True, created_at__gte=since
    )
    deadline = time.monotonic() + WAIT_SECONDS
    while unexplained.exists() and time.monotonic() < deadline:
        time.sleep(WAIT_POLL_SECONDS)
