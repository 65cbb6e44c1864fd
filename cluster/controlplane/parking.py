"""Idle sandboxes park in the scale-out profile too (`manage.py controlplane`).

A process that leads a cluster keeps its Lease (renewed with every other one it holds, in one
statement: cluster/client/leaseboard.py) but stops the cluster's components once nobody wrote to
it for `activity.park_after()` seconds and its control plane has nothing pending, as the embedded
default does (cluster/controlplane/runtime.py `Embedded`). Here every write reaches the leader as a
nudge through Redis (`nudge.listen`, kept while parked; a relayed write touches the cluster), and
one query every few seconds (the supervisor's list of clusters) catches a revision that moved
without one. A write, or a lease won, starts the components again: they list the cluster afresh,
as a new leader's do. What other processes serve (reads, open pages) is not seen here: a page left
open on a cluster nobody writes to does not keep its components running.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Awaitable, Callable

from cluster.broadcast import nudge
from cluster.controlplane import activity

logger = logging.getLogger(__name__)


class Parking:
    """The clusters this process leads whose components are parked, and what wakes them.

    start(name) starts a cluster's control plane, stop(name, keep_processes=False) stops it
    (keep_processes: it parks, its containers' processes wait in this process); running(name) is
    its plane or None."""

    def __init__(
        self,
        start: Callable[[str], Awaitable[None]],
        stop: Callable[..., Awaitable[None]],
        running: Callable[[str], object | None],
    ) -> None:
        self.start, self.stop, self.running = start, stop, running
        self.parked: set[str] = set()
        self.stopping: set[str] = set()
        self.known: dict[str, int] = {}  # parked cluster -> the revision it was parked at
        self.loop: asyncio.AbstractEventLoop | None = None
        self._waking: set[asyncio.Task] = set()

    def bind(self) -> None:
        self.loop = asyncio.get_running_loop()
        activity.set_waker(self._waker, announced=False)

    def unbind(self) -> None:
        activity.set_waker(None)

    async def won(self, name: str) -> None:
        """The lease was won: run the components (for park_after at least: they may have work
        a dead leader left)."""
        self._unpark(name)
        activity.touch(name)
        await self.start(name)

    async def lost(self, name: str) -> None:
        self._unpark(name)
        await self.stop(name)

    def _unpark(self, name: str) -> None:
        if name in self.parked:
            self.parked.discard(name)
            self.known.pop(name, None)
            activity.set_asleep(name, False)
            nudge.unlisten(name)

    async def park_idle(self, revisions: dict[str, int]) -> None:
        """Park the running planes that have been idle long enough; wake the parked ones whose
        revision moved without a nudge (`revisions`: every cluster's, just read)."""
        for name in list(self.parked):
            revision = revisions.get(name)
            if revision is not None and revision > max(self.known.get(name, 0), nudge.latest_revision(name)):
                nudge.notify(name, revision)  # written by a process whose nudge was lost: it touches
                await self._wake(name)
        for name in list(revisions):
            plane = self.running(name)
            if plane is None or name in self.parked or getattr(plane, "leader", None) is None:
                continue
            if activity.idle_for(name) >= activity.park_after() and plane.quiet():
                await self._park(name, revisions[name])

    async def _park(self, name: str, revision: int) -> None:
        plane = self.running(name)
        last = activity.last_touch(name)
        if plane is not None:
            await plane.scheduler.save_attempts()  # nothing waits for the lull any more
        nudge.bind_loop()
        nudge.listen(name)  # before the plane lets go of its own subscription: no write slips by
        self.parked.add(name)
        self.known[name] = revision
        self.stopping.add(name)
        try:
            await self.stop(name, keep_processes=True)  # its containers' processes wait here
        finally:
            self.stopping.discard(name)
        if name not in self.parked:
            return  # the lease was lost meanwhile
        activity.set_asleep(name, True)
        if activity.last_touch(name) != last:  # touched while it stopped: the waker found no plane
            await self._wake(name)
        else:
            logger.info("parked the control plane of %s", name)

    async def _wake(self, name: str) -> None:
        if name not in self.parked:
            return
        self._unpark(name)
        await self.start(name)

    def _waker(self, name: str) -> None:
        """A sleeping cluster was touched (any thread)."""
        loop = self.loop
        if loop is not None and not loop.is_closed():
            # A context of its own: the toucher's must not become the control plane's.
            loop.call_soon_threadsafe(self._touched, name, context=contextvars.Context())

    def _touched(self, name: str) -> None:
        plane = self.running(name)
        if plane is not None:
            plane.wake()  # its heartbeats paused
        elif name in self.parked and name not in self.stopping:
            task = asyncio.ensure_future(self._wake(name))
            self._waking.add(task)
            task.add_done_callback(self._waking.discard)
