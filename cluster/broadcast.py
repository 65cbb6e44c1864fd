"""Nudges after commit ("cluster C has news") and the per-process hub that fans changes out.

A nudge carries no data: whoever wakes reads the event log (and new flow steps) itself, so a
lost nudge loses nothing (DESIGN.md rule 2). Inside one process a nudge is a thread-safe wake-up
of asyncio events; across processes (REDIS_URL set) it is also a channel-layer group message.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Hashable

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer


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
        for waiter in waiters:
            waiter.wake()

    def _remove(self, waiter: Waiter) -> None:
        with self._lock:
            waiters = self._waiters.get(waiter.key)
            if waiters is not None:
                waiters.discard(waiter)
                if not waiters:
                    del self._waiters[waiter.key]


class Waiter:
    def __init__(self, signal: Signal, key: Hashable, loop: asyncio.AbstractEventLoop) -> None:
        self.signal = signal
        self.key = key
        self.loop = loop
        self.event = asyncio.Event()

    def wake(self) -> None:
        try:
            self.loop.call_soon_threadsafe(self.event.set)
        except RuntimeError:  # the loop is closed: nobody is waiting any more
            self.signal._remove(self)

    async def wait(self, timeout: float | None = None) -> bool:
        """Wait for a wake-up (or the timeout); True when woken. Clears the flag for the next wait."""
        try:
            await asyncio.wait_for(self.event.wait(), timeout)
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


def latest_revision(cluster_name: str) -> int:
    """The newest revision any nudge in this process announced (0 when none did)."""
    return _latest.get(cluster_name, 0)


def _remember(cluster_name: str, revision: int) -> None:
    with _latest_lock:
        if revision > _latest.get(cluster_name, 0):
            _latest[cluster_name] = revision


def group_name(cluster_name: str) -> str:
    return f"kubesim.cluster.{cluster_name}"


def _cross_process_layer():
    layer = get_channel_layer()
    # The in-memory layer lives in this process only, where NUDGES already reaches everyone.
    if layer is None or type(layer).__name__ == "InMemoryChannelLayer":
        return None
    return layer


def notify(cluster_name: str, revision: int | None) -> None:
    """Tell listeners that the cluster's log reached `revision` (None: new flow steps or settings)."""
    if revision is not None:
        _remember(cluster_name, revision)
    NUDGES.fire(cluster_name)
    layer = _cross_process_layer()
    if layer is not None:
        message = {"type": "cluster.nudge", "cluster": cluster_name, "revision": revision}
        async_to_sync(layer.group_send)(group_name(cluster_name), message)


async def relay_layer_nudges(cluster_name: str) -> None:
    """Across processes: turn the channel layer's group messages into local nudges (one per process)."""
    layer = _cross_process_layer()
    if layer is None:
        return
    channel = await layer.new_channel()
    await layer.group_add(group_name(cluster_name), channel)
    try:
        while True:
            message = await layer.receive(channel)
            if message.get("revision") is not None:
                _remember(cluster_name, int(message["revision"]))
            NUDGES.fire(cluster_name)
    finally:
        await layer.group_discard(group_name(cluster_name), channel)
