"""A trace's pods scheduled together, with a pace or in step mode: one step of the story for all.

The class follows one story per trace: the replicas a controller created go through steps 8–11
together (one pace, one "next" per step for all of them), as at pace 0 they go in one batch
(scheduler/batch.py). Each pod still gets its own cycle (decided one after another, each assumed
on its node before the next is decided, as upstream's assume-then-bind), attempt, steps and
Scheduled event; a pod no node fits is handled as a failed cycle (its step 9 says it waits).
"""

from __future__ import annotations

from django.db import transaction

from cluster.client.informer import db
from cluster.flow import gate, podevent
from scheduler.batch import _forget, decide
from scheduler.engine.queueing_hints import ADD, POD, ClusterEvent
from scheduler.queue import QueuedPod


async def schedule_together(scheduler, first: QueuedPod) -> None:
    name, trace_id = scheduler.cluster_name, first.trace_id
    group = [first, *await _others(scheduler, trace_id)]
    if await db(podevent.pending_any)(trace_id, [entry.pod for entry in group]):
        await gate.before_step(name, trace_id, 8)
        # Pods created while the step waited (a controller's later batches) join it.
        group += await _others(scheduler, trace_id)
        await db(podevent.record_all)(trace_id, [entry.pod for entry in group])
    # A retry of a pod that waited for the cluster to change goes ahead at once: the change moved
    # it, Next could not have (the page says so).
    if any(not entry.attempts for entry in group):
        await gate.before_step(name, trace_id, 9)
    pdbs = list(scheduler.pdbs.values())
    decided = await decide(scheduler, group, pdbs=pdbs, stop_at_unplaced=False)
    revision = scheduler.informer.revision or 0
    placed = [(entry, decision, assumed) for entry, decision, assumed in decided if decision.selected]
    for entry, decision, _ in placed:
        scheduler.scheduled(entry, decision, revision)
    for entry, decision, _ in decided:
        if decision.selected is None:
            await scheduler.failed_cycle(entry, decision, revision)
    if not placed:
        return
    # The attempts before step 9: while the binding waits for Next, the pick is explained (the
    # Scheduler panel, a prediction round's answer) and no attempt is read after its binding.
    await scheduler.save_attempts()
    await db(_record)(scheduler, placed, 9)
    await gate.before_step(name, trace_id, 10)
    await db(_record)(scheduler, placed, 10)
    await gate.before_step(name, trace_id, 11)
    bound = await db(_bind_all)(scheduler, placed)
    for (entry, _, assumed), ok in zip(placed, bound, strict=True):
        if not ok:
            _forget(scheduler, entry.key)  # deleted, or bound by someone else meanwhile
        elif assumed is not None:
            scheduler.queue.on_event(ClusterEvent(POD, ADD, None, assumed))


async def _others(scheduler, trace_id: str) -> list[QueuedPod]:
    """The trace's other pods the scheduler has seen by now, taken from the queue."""
    await scheduler.catch_up()
    return scheduler.queue.pop_trace(trace_id)


def _record(scheduler, placed: list, step: int) -> None:
    with transaction.atomic():
        for entry, decision, _ in placed:
            scheduler._record_placement(entry, decision, decision.selected, (step,))


def _bind_all(scheduler, placed: list) -> list[bool]:
    """Step 11 for every pod: each binding is its own write (and step), in one transaction."""
    with transaction.atomic():
        return [scheduler._bind(entry, decision.selected) for entry, decision, _ in placed]
