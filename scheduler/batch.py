"""Scheduling a burst at pace 0: the queued pods decided one after another, bound together.

With a pace or in step mode every pod goes through `Scheduler.schedule_one`, waiting at the gate
between its steps. At pace 0 outside step mode nobody can see a moment between two pods' steps,
so the scheduler pops what is queued (up to MAX_BATCH), runs the cycles one after another in one
trip to a worker thread (each pod assumed on its node before the next is decided, as upstream's
assume-then-bind), and binds them in one trip to the database thread and one transaction. Each
pod still gets its own cycle, attempt, steps 9, 10 and 11 and Scheduled event; only the trips
are shared. A pod no node fits ends the run of decisions: it is handled as a failed cycle
(preemption may nominate a node the next decision must see), then the rest go on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from django.db import transaction

from cluster.apiserver.store import clone
from cluster.client.informer import db
from cluster.flow import gate
from database.sqlite import memo
from scheduler import attempt_rows
from scheduler.engine.queueing_hints import ADD, POD, ClusterEvent
from scheduler.queue import QueuedPod, SchedulingQueue

MAX_BATCH = 64
# Clusters up to this many nodes are scheduled on the event loop (the demo's 3 nodes: 0.1 ms),
# bigger ones in a worker thread.
INLINE_MAX_NODES = 10


async def gate_open(cluster_name: str) -> bool:
    """Pace 0 and no step mode: the flow's gate lets every step through at once."""
    settings = await gate.flow_settings(cluster_name)
    return not settings.step_mode and not settings.pace_ms


def take(queue: SchedulingQueue, first: QueuedPod) -> list[QueuedPod]:
    entries = [first]
    while len(entries) < MAX_BATCH and (entry := queue.pop()) is not None:
        entries.append(entry)
    return entries


async def schedule_all(scheduler, entries: list[QueuedPod]) -> None:
    pending = entries
    while pending:
        decided = await decide(scheduler, pending)
        pending = pending[len(decided) :]
        revision = scheduler.informer.revision or 0
        placed = [(entry, decision, assumed) for entry, decision, assumed in decided if decision.selected]
        if placed:
            await _bind_all(scheduler, placed, revision)
        entry, decision, _ = decided[-1]
        if decision.selected is None:
            await scheduler.failed_cycle(entry, decision, revision)


async def decide(
    scheduler, entries: list[QueuedPod], *, pdbs: Sequence = (), stop_at_unplaced: bool = True
) -> list[tuple[QueuedPod, object, dict | None]]:
    """Cycles for `entries` in order (`_decide`): inline on a small cluster, on a worker thread
    on a big one, where the cycles would hold the event loop too long."""
    if len(scheduler.snapshot) <= INLINE_MAX_NODES:
        return _decide(scheduler, entries, pdbs, stop_at_unplaced)
    return await asyncio.to_thread(_decide, scheduler, entries, pdbs, stop_at_unplaced)


def _decide(
    scheduler, entries: list[QueuedPod], pdbs: Sequence, stop_at_unplaced: bool
) -> list[tuple[QueuedPod, object, dict | None]]:
    """Cycles for `entries` in order, up to and including the first that finds no node when
    `stop_at_unplaced` (else all of them); each placed pod is assumed on its node in the snapshot
    (the next cycle sees it). `pdbs`: the budgets preemption respects."""
    decided = []
    for entry in entries:
        nominated = [(info, node) for key, (info, node) in scheduler.nominated.items() if key != entry.key]
        decision = scheduler.schedule_pod(entry.pod, nominated=nominated, pdbs=pdbs)
        if decision.selected is None:
            decided.append((entry, decision, None))
            if stop_at_unplaced:
                break
            continue
        scheduler.reserve_volumes(entry, decision.selected)
        assumed = clone(entry.pod)
        assumed["spec"]["nodeName"] = decision.selected
        known = scheduler.bound.get(entry.key)
        scheduler._account_bound(entry.key, assumed, decision.selected)
        decided.append((entry, decision, assumed if known is None else None))
    return decided


async def _bind_all(scheduler, placed: list, revision: int) -> None:
    for entry, decision, _ in placed:
        scheduler.scheduled(entry, decision, revision)
    attempts = scheduler._take_unsaved()
    try:
        bound, saved = await db(_place_all)(scheduler, [(e, d) for e, d, _ in placed], attempts)
    except BaseException:
        for entry, _, _ in placed:
            _forget(scheduler, entry.key)
        raise
    scheduler.explainer.add(saved)
    for (entry, _, assumed), ok in zip(placed, bound, strict=True):
        if not ok:
            _forget(scheduler, entry.key)  # deleted, or bound by someone else meanwhile
        elif assumed is not None:
            scheduler.queue.on_event(ClusterEvent(POD, ADD, None, assumed))


def _forget(scheduler, key: tuple[str, str]) -> None:
    info = scheduler.bound.pop(key, None)
    if info is not None:
        scheduler.snapshot.remove_pod(info)


def _place_all(scheduler, placements: list, attempts: list) -> tuple[list[bool], list]:
    """The attempts, then steps 9 and 10 and the binding (step 11) of each pod, in one transaction."""
    with memo.batch(), transaction.atomic():
        saved = attempt_rows.insert(attempts)
        bound = []
        for entry, decision in placements:
            node = decision.selected
            scheduler._record_placement(entry, decision, node, (9, 10))
            bound.append(scheduler._bind(entry, node))
    return bound, saved
