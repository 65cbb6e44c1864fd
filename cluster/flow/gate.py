"""Pace and step mode: the gate a component passes before it performs a step.

(docs/architecture.md rule 5.)

Steps 1–4 happen inside the user's API request, one atomic write, so they cannot wait; the gate
applies from step 5 on. A component awaits `before_step` BEFORE it acts, so while it waits the
cluster really is in the state between two steps (a pod written but not yet bound, bound but not
yet started) and every API read shows that state.

- pace: sleep `cluster.pace_ms` before each step (0 = as fast as possible);
- step mode: wait until the trace holds a permit; "next" adds one (exactly one step of that
  trace happens), "continue" lets the traces in flight run to their end at the pace while step
  mode stays on for the next ones; switching step mode off lets everything go at the pace.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from dataclasses import dataclass

from django.db import transaction
from django.db.models import F

from cluster.apiserver.rows import cluster_named
from cluster.broadcast import nudge
from cluster.client.informer import db
from cluster.models import Cluster, FlowTrace

# Permits and mode changes wake waiters in this process at once; other processes poll this often.
POLL_SECONDS = 0.5
SETTINGS_TTL = 0.5
PERMITS = nudge.Signal()
# "continue" gives a trace this many permits: it then runs to its end at the pace.
RUN_TO_END = 1 << 30


@dataclass(slots=True)
class FlowSettings:
    pace_ms: int
    step_mode: bool
    read_at: float


_settings: dict[str, FlowSettings] = {}


def _name(cluster: Cluster | str) -> str:
    return cluster if isinstance(cluster, str) else cluster.name


def _trace_id(trace: FlowTrace | str | None) -> str | None:
    return trace.pk if isinstance(trace, FlowTrace) else trace


def read_settings(cluster_name: str) -> FlowSettings:
    cached = _cached(cluster_name)
    if cached is not None:
        return cached
    now = time.monotonic()
    cluster = cluster_named(cluster_name)
    if cluster is None:
        raise Cluster.DoesNotExist(f"no cluster named {cluster_name!r}")
    fresh = FlowSettings(cluster.pace_ms, cluster.step_mode, now)
    _settings[cluster_name] = fresh
    return fresh


def _forget(cluster_name: str) -> None:
    _settings.pop(cluster_name, None)


async def before_step(cluster: Cluster | str, trace: FlowTrace | str | None, step: int) -> None:
    """Wait as pace and step mode require before performing `step` of `trace`.

    Work that belongs to no trace (a controller catching up after a restart) is not the flow the
    class watches: it neither waits for pace nor for "next".
    """
    trace_id = _trace_id(trace)
    if trace_id is None:
        return
    name = _name(cluster)
    settings = await flow_settings(name)
    if settings.step_mode:
        with nudge.waiting(name):
            paced = await _wait_for_permit(name, trace_id, step)
            if paced and settings.pace_ms:
                await asyncio.sleep(settings.pace_ms / 1000)
    elif settings.pace_ms:
        with nudge.waiting(name):
            await asyncio.sleep(settings.pace_ms / 1000)


async def is_open(cluster: Cluster | str, trace: FlowTrace | str | None) -> bool:
    """True when `before_step` would not wait (no trace, or pace 0 outside step mode): a component
    may then perform several steps in one go, as nobody could see a moment between them."""
    if _trace_id(trace) is None:
        return True
    settings = await flow_settings(_name(cluster))
    return not settings.step_mode and not settings.pace_ms


def is_open_now(cluster_name: str) -> bool:
    """`is_open` for a trace, from synchronous code (the API server's write)."""
    settings = read_settings(cluster_name)
    return not settings.step_mode and not settings.pace_ms


async def flow_settings(cluster_name: str) -> FlowSettings:
    """The cluster's pace and step mode, from a cache refreshed every SETTINGS_TTL seconds.

    When it is stale, the coroutines that ask meanwhile share one read: a burst's pod workers
    asked together, each made its own trip to the database thread, and they came back in
    different turns of the event loop, so their writes no longer went in one batch."""
    cached = _cached(cluster_name)
    if cached is not None:
        return cached
    loop = asyncio.get_running_loop()
    reading = _reading.get(cluster_name)
    if reading is None or reading.get_loop() is not loop:
        reading = _reading[cluster_name] = loop.create_task(db(read_settings)(cluster_name))
        reading.add_done_callback(lambda done: _read_done(cluster_name, done))
    # Shielded: one asker cancelled does not cancel the read the others wait for.
    return await asyncio.shield(reading)


_reading: dict[str, asyncio.Task] = {}  # the read in flight per cluster (flow_settings)


def _read_done(cluster_name: str, done: asyncio.Task) -> None:
    if _reading.get(cluster_name) is done:  # not a newer read (of another event loop)
        del _reading[cluster_name]


def _cached(cluster_name: str) -> FlowSettings | None:
    cached = _settings.get(cluster_name)
    if cached is not None and time.monotonic() - cached.read_at < SETTINGS_TTL:
        return cached
    return None


# Who waits at the gate for each trace in this process: (step, ticket). A trace with several pods
# has several components waiting at once (the controller to create the next pod, the scheduler
# and kubelets for the earlier ones); a permit goes to the lowest step, first come first served,
# so the chains move in order (7, 7, 8, 8, …) and one "next" is exactly one step.
_queues: dict[str, list[tuple[int, int]]] = {}
_tickets = itertools.count()


async def _wait_for_permit(cluster_name: str, trace_id: str, step: int) -> bool:
    """Wait for "next" (False) or for "continue" / step mode off (True: the step keeps the pace)."""
    ticket = (step, next(_tickets))
    queue = _queues.setdefault(trace_id, [])
    queue.append(ticket)
    waiter = PERMITS.subscribe(cluster_name)
    try:
        while True:
            if min(queue) == ticket:
                taken = await db(_take_permit)(trace_id)
                if taken:
                    return taken == "run"
            if not (await db(read_settings)(cluster_name)).step_mode:
                return True
            await waiter.wait(POLL_SECONDS)
    finally:
        waiter.close()
        queue.remove(ticket)
        if not queue:
            _queues.pop(trace_id, None)
        PERMITS.fire(cluster_name)  # the next in line may hold a permit already


def _take_permit(trace_id: str) -> str:
    """ "run" for a trace told to continue, "one" for a permit taken, "" for none."""
    traces = FlowTrace.objects.filter(pk=trace_id)
    if traces.filter(permits__gte=RUN_TO_END).exists():
        return "run"
    return "one" if traces.filter(permits__gt=0).update(permits=F("permits") - 1) == 1 else ""


def _after_commit(cluster_name: str) -> None:
    _forget(cluster_name)
    PERMITS.fire(cluster_name)
    nudge.notify(cluster_name, None)


def release_next(cluster_name: str, trace_id: str | None = None) -> str | None:
    """ "next": let one more step of the trace happen (the newest unfinished trace by default)."""
    traces = FlowTrace.objects.filter(cluster__name=cluster_name)
    if trace_id is None:
        trace_id = (
            traces.filter(finished_at=None).order_by("-created_at").values_list("pk", flat=True).first()
        )
    if trace_id is None or not traces.filter(pk=trace_id).update(permits=F("permits") + 1):
        return None
    transaction.on_commit(lambda: _after_commit(cluster_name))
    return trace_id


def continue_all(cluster_name: str) -> None:
    """ "continue": the traces in flight run to their end at the cluster's pace; step mode stays
    as the teacher set it, so the next trace waits for "next" again."""
    with transaction.atomic():
        unfinished = FlowTrace.objects.filter(cluster__name=cluster_name, finished_at=None)
        unfinished.update(permits=RUN_TO_END)
        transaction.on_commit(lambda: _after_commit(cluster_name))


def leave_step_mode(cluster_name: str) -> None:
    """Step mode off: every waiting step goes ahead at the cluster's pace."""
    with transaction.atomic():
        Cluster.objects.filter(name=cluster_name).update(step_mode=False)
        FlowTrace.objects.filter(cluster__name=cluster_name, permits__gt=0).update(permits=0)
        transaction.on_commit(lambda: _after_commit(cluster_name))


def set_step_mode(cluster_name: str, on: bool) -> None:
    if not on:
        leave_step_mode(cluster_name)
        return
    with transaction.atomic():
        Cluster.objects.filter(name=cluster_name).update(step_mode=True)
        transaction.on_commit(lambda: _after_commit(cluster_name))


def set_pace(cluster_name: str, pace_ms: int) -> None:
    with transaction.atomic():
        Cluster.objects.filter(name=cluster_name).update(pace_ms=max(0, min(int(pace_ms), 60_000)))
        transaction.on_commit(lambda: _after_commit(cluster_name))
