"""Nudges after commit ("cluster C has news") and the per-process hub that fans changes out.

A nudge carries no data: whoever wakes reads the event log (and new flow steps) itself, so a
lost nudge loses nothing (docs/architecture.md rule 2). Inside one process a nudge is a thread-safe wake-up
of asyncio events; across processes (REDIS_URL set) it is also a channel-layer group message: each process
subscribes once per cluster (`listen`), whatever number of sockets and components it serves.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
import weakref
from collections.abc import Hashable, Iterable

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from cluster.controlplane import activity

logger = logging.getLogger(__name__)


class Signal:
    """Wake coroutines waiting on a key, from any thread and any event loop of this process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiters: dict[Hashable, set[Waiter]] = {}

    def subscribe(self, key: Hashable) -> Waiter:
        waiter = Waiter(self, key, asyncio.get_running_loop())
        with self._lock:
            self._waiters.setdefault(key, set()).add(waiter)
        return waiter

    def fire(self, key: Hashable) -> None:
        with self._lock:
            waiters = list(self._waiters.get(key, ()))
        by_loop: dict[asyncio.AbstractEventLoop, list[Waiter]] = {}
        for waiter in waiters:
            by_loop.setdefault(waiter.loop, []).append(waiter)
        for loop, woken in by_loop.items():
            _wakes_of(loop).add(loop, woken)

    def _remove(self, waiter: Waiter) -> None:
        with self._lock:
            waiters = self._waiters.get(waiter.key)
            if waiters is not None:
                waiters.discard(waiter)
                if not waiters:
                    del self._waiters[waiter.key]


class _LoopWakes:
    """The waiters of one event loop woken since that loop last ran its wake-ups: one
    call_soon_threadsafe wakes them all. Each call writes to the loop's self-pipe, a system call
    that gives up the GIL (and waits to get it back): a commit woke each of its cluster's waiters
    with one of its own, and a burst commits hundreds of writes a second."""

    def __init__(self) -> None:
        # No reference to the loop itself: it is the key of `_wakes`, which must not keep it.
        self.lock = threading.Lock()
        self.pending: set[Waiter] = set()

    def add(self, loop: asyncio.AbstractEventLoop, waiters: list[Waiter]) -> None:
        with self.lock:
            on_its_way = bool(self.pending)  # the loop has not run the last call yet: ride on it
            self.pending.update(waiters)
        if on_its_way:
            return
        try:
            loop.call_soon_threadsafe(self._run)
        except RuntimeError:  # the loop is closed: nobody is waiting any more
            with self.lock:
                closed, self.pending = self.pending, set()
            for waiter in closed:
                waiter.signal._remove(waiter)

    def _run(self) -> None:
        # Taken before the events are set: a wake that came meanwhile schedules a call of its own.
        with self.lock:
            woken, self.pending = self.pending, set()
        for waiter in woken:
            waiter.event.set()


_wakes: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopWakes] = weakref.WeakKeyDictionary()
_wakes_lock = threading.Lock()


def _wakes_of(loop: asyncio.AbstractEventLoop) -> _LoopWakes:
    wakes = _wakes.get(loop)
    if wakes is None:
        with _wakes_lock:
            wakes = _wakes.get(loop)
            if wakes is None:
                wakes = _wakes[loop] = _LoopWakes()
    return wakes


class Waiter:
    def __init__(self, signal: Signal, key: Hashable, loop: asyncio.AbstractEventLoop) -> None:
        self.signal = signal
        self.key = key
        self.loop = loop
        self.event = asyncio.Event()

    def wake(self) -> None:
        _wakes_of(self.loop).add(self.loop, [self])

    async def wait(self, timeout: float | None = None) -> bool:
        """Wait for a wake-up (or the timeout); True when woken. Clears the flag for the next wait.

        `asyncio.timeout`, not `wait_for`: Python 3.11's wait_for returns the result when the
        task is cancelled just as the event is set, losing the cancellation, and a component's
        `while True` loop then never stops (a control plane's stop() waited for it forever)."""
        try:
            async with asyncio.timeout(timeout):
                await self.event.wait()
            woken = True
        except TimeoutError:
            woken = False
        self.event.clear()
        return woken

    def close(self) -> None:
        self.signal._remove(self)


# "Cluster C has a new revision or new flow steps": components and the hub wait on this.
NUDGES = Signal()
_latest: dict[str, int] = {}
_latest_lock = threading.Lock()


# The newest revision announced per kind written, and the newest announced without its kinds (a
# nudge from an older process): an informer skips its read when no kind it watches was written.
_latest_of_kind: dict[str, dict[str, int]] = {}
_latest_kindless: dict[str, int] = {}


# Components of this process at work for a cluster (cluster/controlplane/runtime.py, the kubelet's pod
# workers), and those of them waiting at the flow's gate for pace or "next": the hub holds its
# fan-out while some are at work and not waiting (cluster/broadcast/hub.py). Event-loop code only.
_working: dict[str, int] = {}
_waiting: dict[str, int] = {}


# Who waits for a cluster's control plane to start or stop being at work (`next_change`), and
# when it last did (`changed_at`): a lull of sixty busy sandboxes polled every 10 ms was
# thousands of timer wake-ups a second.
_changes: dict[str, list[asyncio.Future]] = {}
_changed_at: dict[str, float] = {}


@contextlib.contextmanager
def _counted(table: dict[str, int], cluster_name: str):
    was_busy = busy(cluster_name)
    table[cluster_name] = table.get(cluster_name, 0) + 1
    _changed(cluster_name, was_busy)
    try:
        yield
    finally:
        was_busy = busy(cluster_name)
        table[cluster_name] -= 1
        _changed(cluster_name, was_busy)


def _changed(cluster_name: str, was_busy: bool) -> None:
    if busy(cluster_name) != was_busy:
        _changed_at[cluster_name] = time.monotonic()
        for future in _changes.pop(cluster_name, ()):
            if not future.done():
                future.set_result(None)


def changed_at(cluster_name: str) -> float:
    """When (time.monotonic()) the cluster's control plane last started or stopped being at
    work; 0 when it never did in this process."""
    return _changed_at.get(cluster_name, 0.0)


async def next_change(cluster_name: str, timeout: float) -> bool:
    """Wait until the cluster's control plane starts or stops being at work (`busy`), at most
    `timeout` seconds; True when it did."""
    future = asyncio.get_running_loop().create_future()
    waiting_here = _changes.setdefault(cluster_name, [])
    waiting_here.append(future)
    try:
        async with asyncio.timeout(max(0.0, timeout)):  # not wait_for: see Waiter.wait
            await future
        return True
    except TimeoutError:
        return False
    finally:
        waiting_now = _changes.get(cluster_name)
        if waiting_now is not None and future in waiting_now:
            waiting_now.remove(future)
            if not waiting_now:
                del _changes[cluster_name]


def working(cluster_name: str):
    """Mark a component of this process as at work on the cluster (a context manager)."""
    return _counted(_working, cluster_name)


def waiting(cluster_name: str):
    """Mark a component as waiting (for pace or a permit): not at work meanwhile."""
    return _counted(_waiting, cluster_name)


def busy(cluster_name: str) -> bool:
    return _working.get(cluster_name, 0) > _waiting.get(cluster_name, 0)


def latest_revision(cluster_name: str) -> int:
    """The newest revision any nudge in this process announced (0 when none did)."""
    return _latest.get(cluster_name, 0)


def latest_revision_of(cluster_name: str, kinds: tuple[str, ...]) -> int:
    """The newest announced revision that may hold a change of one of `kinds` (0: none)."""
    newest = _latest_kindless.get(cluster_name, 0)
    of_kind = _latest_of_kind.get(cluster_name)
    if of_kind:
        for kind in kinds:
            newest = max(newest, of_kind.get(kind, 0))
    return newest


def news_except(cluster_name: str, kinds: tuple[str, ...]) -> tuple[int, int, int]:
    """A key that changes with every nudge except those announcing only writes of `kinds` (e.g.
    Lease renewals): the newest revision of the other kinds, of kindless nudges, and the count of
    nudges without a revision."""
    with _latest_lock:
        of_kind = _latest_of_kind.get(cluster_name) or {}
        others = max((rev for kind, rev in of_kind.items() if kind not in kinds), default=0)
        return others, _latest_kindless.get(cluster_name, 0), _other_news.get(cluster_name, 0)


def revisions_by_kind(cluster_name: str) -> tuple[dict[str, int], int]:
    """The newest revision announced for each kind, and for kindless nudges (see `news_of`)."""
    with _latest_lock:
        return dict(_latest_of_kind.get(cluster_name) or {}), _latest_kindless.get(cluster_name, 0)


def news_of(revisions: tuple[dict[str, int], int], kinds: Iterable[str]) -> tuple[int, int]:
    """A key (from `revisions_by_kind`) that changes with every nudge announcing a write of one of
    `kinds`, or of a kind not known."""
    of_kind, kindless = revisions
    return max((of_kind.get(kind, 0) for kind in kinds), default=0), kindless


_other_news: dict[str, int] = {}


def other_news(cluster_name: str) -> int:
    """How many nudges without a revision (new flow steps, settings) this process has seen."""
    return _other_news.get(cluster_name, 0)


def _count_other_news(cluster_name: str) -> None:
    with _latest_lock:
        _other_news[cluster_name] = _other_news.get(cluster_name, 0) + 1


def _remember(cluster_name: str, revision: int, kinds: Iterable[str] | None = None) -> None:
    """The log reached `revision`; `kinds`: every kind written up to it since the last nudge
    (None: not known, any kind)."""
    with _latest_lock:
        if revision > _latest.get(cluster_name, 0):
            _latest[cluster_name] = revision
        if kinds is None:
            if revision > _latest_kindless.get(cluster_name, 0):
                _latest_kindless[cluster_name] = revision
            return
        of_kind = _latest_of_kind.setdefault(cluster_name, {})
        for kind in kinds:
            if revision > of_kind.get(kind, 0):
                of_kind[kind] = revision


def group_name(cluster_name: str) -> str:
    return f"kubesim.cluster.{cluster_name}"


def _cross_process_layer():
    layer = get_channel_layer()
    # The in-memory layer lives in this process only, where NUDGES already reaches everyone.
    if layer is None or type(layer).__name__ == "InMemoryChannelLayer":
        return None
    return layer


# The process's serving event loop: commits happen in database threads, and their cross-process
# nudges are sent from here without making the committing thread wait for Redis.
_loop: asyncio.AbstractEventLoop | None = None
# cluster -> (highest revision, other news?, kinds written up to it or None when not known)
_outbox: dict[str, tuple[int, bool, frozenset[str] | None]] = {}
_outbox_lock = threading.Lock()


def bind_loop() -> None:
    """Send cross-process nudges from the running loop (called by the hub and the control plane)."""
    global _loop
    _loop = asyncio.get_running_loop()


def notify(cluster_name: str, revision: int | None, kind: str | None = None) -> None:
    """Tell listeners that the cluster's log reached `revision` with a change of `kind` (None: not
    known), or (revision None) that it has new flow steps or settings."""
    if revision is not None:
        _remember(cluster_name, revision, None if kind is None else (kind,))
    else:
        _count_other_news(cluster_name)
    if kind != "Lease":  # heartbeats and lease renewals are nobody acting on the cluster
        activity.touch(cluster_name)
    NUDGES.fire(cluster_name)
    layer = _cross_process_layer()
    if layer is None:
        return
    loop = _loop
    news = revision is None
    if loop is None or loop.is_closed() or not loop.is_running():
        kinds = frozenset((kind,)) if kind is not None else None
        nudge = _nudge(cluster_name, revision or 0, news, kinds)
        async_to_sync(layer.group_send)(group_name(cluster_name), nudge)
        return
    # Nudges carry no data, so the ones that pile up while one is in flight become one.
    with _outbox_lock:
        queued = cluster_name in _outbox
        top, had_news, kinds = _outbox.get(cluster_name, (0, False, frozenset()))
        if revision is not None:
            kinds = None if kinds is None or kind is None else kinds | {kind}
        _outbox[cluster_name] = (max(top, revision or 0), had_news or news, kinds)
    if not queued:
        loop.call_soon_threadsafe(_spawn_send, cluster_name)


def _nudge(cluster_name: str, revision: int, news: bool, kinds: frozenset[str] | None = None) -> dict:
    """`revision`: the log reached it (0: not known); `news`: new flow steps or settings too;
    `kinds`: the kinds written up to `revision` (absent: not known)."""
    nudge = {"type": "cluster.nudge", "cluster": cluster_name, "revision": revision, "news": news}
    if kinds is not None and revision:
        nudge["kinds"] = sorted(kinds)
    return nudge


_sending: set[asyncio.Task] = set()


def _spawn_send(cluster_name: str) -> None:
    task = asyncio.ensure_future(_send(cluster_name))
    _sending.add(task)
    task.add_done_callback(_sending.discard)


async def _send(cluster_name: str) -> None:
    with _outbox_lock:
        revision, news, kinds = _outbox.pop(cluster_name, (0, True, None))
    layer = _cross_process_layer()
    try:
        await layer.group_send(group_name(cluster_name), _nudge(cluster_name, revision, news, kinds))
    except Exception:  # a lost nudge only delays: every listener also polls
        logger.warning("could not publish a nudge for %s", cluster_name, exc_info=True)


# One subscription to the cluster's group per process, shared by its hub and its control plane.
_listeners: dict[str, tuple[asyncio.Task, int]] = {}


def listen(cluster_name: str) -> None:
    """Relay the cluster's cross-process nudges into this process (no-op without REDIS_URL)."""
    if _cross_process_layer() is None:
        return
    task, users = _listeners.get(cluster_name, (None, 0))
    if task is None or task.done() or task.get_loop() is not asyncio.get_running_loop():
        task, users = asyncio.create_task(_relay(cluster_name), name=f"relay/{cluster_name}"), 0
    _listeners[cluster_name] = (task, users + 1)


def unlisten(cluster_name: str) -> None:
    task, users = _listeners.get(cluster_name, (None, 0))
    if task is None:
        return
    if users <= 1:
        task.cancel()
        del _listeners[cluster_name]
    else:
        _listeners[cluster_name] = (task, users - 1)


async def _relay(cluster_name: str) -> None:
    layer = _cross_process_layer()
    channel = await layer.new_channel()
    await layer.group_add(group_name(cluster_name), channel)
    member = asyncio.create_task(_stay_member(layer, group_name(cluster_name), channel))
    try:
        while True:
            try:
                message = await layer.receive(channel)
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.warning("nudges of %s: channel layer failed; retrying", cluster_name, exc_info=True)
                await asyncio.sleep(1.0)
                await layer.group_add(group_name(cluster_name), channel)
                continue
            kinds = message.get("kinds")
            if message.get("revision"):
                _remember(cluster_name, int(message["revision"]), kinds if isinstance(kinds, list) else None)
            news = message.get("news", True)
            if news:
                _count_other_news(cluster_name)
            if news or kinds != ["Lease"]:
                activity.touch(cluster_name)  # someone acted (heartbeats and renewals: nobody)
            NUDGES.fire(cluster_name)
    finally:
        member.cancel()
        with contextlib.suppress(Exception):
            await layer.group_discard(group_name(cluster_name), channel)


GROUP_REFRESH_SECONDS = 3600.0


async def _stay_member(layer, group: str, channel: str) -> None:
    """Group membership expires in channels-redis (a day by default): renew it while we listen."""
    while True:
        await asyncio.sleep(GROUP_REFRESH_SECONDS)
        with contextlib.suppress(Exception):
            await layer.group_add(group, channel)
