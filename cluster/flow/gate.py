"""Pace and step mode: the gate a component passes before it performs a step.

(docs/architecture.md rule 5.)

Steps 1–4 happen inside the user's API request, one atomic write, so they cannot wait; the gate
applies from step 5 on. A component awaits `before_step` BEFORE it acts, so while it waits the
cluster really is in the state between two steps (a pod written but not yet bound, bound but not
yet started) and every API read shows that state.

- pace: sleep `cluster.pace_ms` before each step (0 = as fast as possible);
- step mode: wait until the trace holds a permit; "next" adds one, and the trace's lowest step
  waiting happens, for every pod waiting at it (one step of one story: a workload's replicas go
  through a step together); "continue" lets the traces in flight run to their end at the pace
  while step mode stays on for the next ones; switching step mode off lets everything go at the
  pace.

In step mode the lowest step a trace waits at is kept on its row (`FlowTrace.gate_step`, 0: none
waits), so the page, its N key and the server's "next" read the same state: "next" is accepted
only while a step waits and no permit is pending.
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
# has several components waiting at once (the kubelets of its replicas, the scheduler); a permit
# goes to the lowest step, and with it every ticket already waiting at that step passes too
# (`_released`), so one "next" is one step of the trace's story, for all its pods at once.
_queues: dict[str, list[tuple[int, int]]] = {}
_released: dict[str, tuple[int, int]] = {}  # trace -> (step, the last ticket the permit let through)
_published: dict[str, int] = {}  # trace -> the gate_step last written to its row
_tickets = itertools.count()


async def _wait_for_permit(cluster_name: str, trace_id: str, step: int) -> bool:
    """Wait for "next" (False) or for "continue" / step mode off (True: the step keeps the pace)."""
    ticket = (step, next(_tickets))
    queue = _queues.setdefault(trace_id, [])
    queue.append(ticket)
    waiter = PERMITS.subscribe(cluster_name)
    try:
        await _publish(cluster_name, trace_id)
        while True:
            released = _released.get(trace_id)
            if released is not None and released[0] == step and ticket[1] <= released[1]:
                return False  # released with the others at this step by one "next"
            if min(queue) == ticket:
                taken = await db(_take_permit)(trace_id)
                if taken == "one":
                    _released[trace_id] = (step, max(n for s, n in queue if s == step))
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
            _released.pop(trace_id, None)
        PERMITS.fire(cluster_name)  # the next in line may hold a permit already
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            _published.pop(trace_id, None)  # a control plane stopping: stop() clears the rows
        else:
            await _publish(cluster_name, trace_id)


async def _publish(cluster_name: str, trace_id: str) -> None:
    """Keep the trace's row saying the lowest step waiting at the gate (0: none), for the page."""
    queue = _queues.get(trace_id)
    step = min(queue)[0] if queue else 0
    if _published.get(trace_id, 0) == step:
        return
    if step:
        _published[trace_id] = step
    else:
        _published.pop(trace_id, None)
    await asyncio.shield(db(_store_gate)(cluster_name, trace_id, step))


def _store_gate(cluster_name: str, trace_id: str, step: int) -> None:
    FlowTrace.objects.filter(pk=trace_id).update(gate_step=step)
    nudge.notify(cluster_name, None)  # news for the hubs: they send the trace's gate state


def clear_gates(cluster_name: str) -> None:
    """A control plane stopped: nothing of this cluster waits at its gate any more."""
    FlowTrace.objects.filter(cluster__name=cluster_name).exclude(gate_step=0).update(gate_step=0)


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
    """ "next": let the trace's lowest waiting step happen (the newest trace waiting by default).

    Only while a step of the trace waits at the gate and no permit is pending (what the page's
    Next button shows): a second press before the step happened does not let two through."""
    traces = FlowTrace.objects.filter(cluster__name=cluster_name)
    waiting = traces.filter(gate_step__gt=0, permits=0)
    if trace_id is None:
        trace_id = waiting.order_by("-created_at").values_list("pk", flat=True).first()
    if trace_id is None or not waiting.filter(pk=trace_id).update(permits=F("permits") + 1):
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
