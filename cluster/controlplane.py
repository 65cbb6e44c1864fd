"""The control plane of a cluster: the controller manager, the scheduler and the kubelets.

Each component lists, then watches the event log (cluster/informer.py), and writes back only
through cluster.apiserver. Two ways to drive them:

- `supervise()`: for every cluster, campaign for its Lease (cluster/leader.py) and, while leading,
  run `ControlPlane.start()`'s long-running loops, each woken by nudges and by a short poll, so a
  lost nudge only delays (`manage.py serve` and `manage.py controlplane` run this);
- `await run_until_idle(cluster_name)`: process all pending work now and return (tests, benchmarks).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from cluster import broadcast, event_recorder, leader
from cluster.controllers.garbage_collector import SWEEP_SECONDS, GarbageCollector
from cluster.controllers.manager import ControllerManager
from cluster.informer import db, reset_connection
from cluster.kubelet.kubelet import KubeletManager
from cluster.lull import lull
from cluster.models import Cluster
from scheduler.service import Scheduler

logger = logging.getLogger(__name__)
POLL_SECONDS = 1.0
LEASE_RENEW_SECONDS = 10.0
# A burst puts the Events it queued off this long at most, or until this many wait.
EVENT_MAX_DEFER_SECONDS = 5.0
EVENT_MAX_PENDING = 2000
EVENT_BATCH = 20
# Throwaway clusters that their creator drives itself with run_until_idle (labs' self-test,
# bench_flow): a second control plane would act on them twice.
DRIVEN_ELSEWHERE = ("checklab-", "bench-")
STATUS_REPORT_EVERY = 30  # lease renewals: 5 minutes
STOP_EXPLAIN_SECONDS = 5.0


class ControlPlane:
    def __init__(self, cluster_name: str) -> None:
        self.cluster_name = cluster_name
        self.controller_manager = ControllerManager(cluster_name)
        self.scheduler = Scheduler(cluster_name)
        self.kubelets = KubeletManager(cluster_name)
        self.garbage_collector = GarbageCollector(cluster_name)
        self.tasks: list[asyncio.Task] = []
        self.listening = False

    @property
    def components(self) -> tuple:
        return (self.controller_manager, self.scheduler, self.kubelets)

    async def run_until_idle(self, max_rounds: int = 10_000) -> None:
        """Step every component until a whole round finds nothing to do and no pod worker runs."""
        for component in self.components:
            component.informer.stale = True  # writes of other processes send no nudge here
        for _ in range(max_rounds):
            worked = False
            for component in self.components:
                worked = await component.step() or worked
            while await db(event_recorder.flush)(self.cluster_name):
                worked = True
            if not worked and await db(self.garbage_collector.sweep)():
                worked = True  # a quiet round: collect, and go round again if it changed anything
            if self.kubelets.workers:
                await self.kubelets.idle()
                worked = True
                self.kubelets.workers.clear()
            if not worked:
                await self.scheduler.save_attempts()  # idle now: nothing waits for the lull
                await self.scheduler.explainer.explain_all()
                return
        raise RuntimeError(f"control plane of {self.cluster_name!r} did not settle in {max_rounds} rounds")

    def start(self) -> None:
        """Start the long-running loops as tasks of the running event loop."""
        for component in self.components:
            self.tasks.append(
                asyncio.create_task(self._loop(component), name=f"{self.cluster_name}/{component.component}")
            )
        self.tasks.append(asyncio.create_task(self._leases()))
        self.tasks.append(asyncio.create_task(self._write_events()))
        self.tasks.append(asyncio.create_task(self._collect_garbage()))
        self.tasks.append(asyncio.create_task(self.scheduler.explainer.run()))
        broadcast.bind_loop()
        broadcast.listen(self.cluster_name)
        self.listening = True

    async def stop(self) -> None:
        # The explanations this scheduler still holds are written before it goes (a bounded wait:
        # readers in other processes wait for them).
        with contextlib.suppress(Exception, TimeoutError):
            await asyncio.wait_for(self.scheduler.explainer.explain_all(), STOP_EXPLAIN_SECONDS)
        for task in self.tasks:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for component in self.components:
            task_map = getattr(component, "workers", {})
            for task in task_map.values():
                task.cancel()
            component.informer.close()
        self.scheduler.explainer.close()
        self.tasks.clear()
        # A cancelled task's call into the database thread still runs there: one more trip waits
        # for it, so nothing of this control plane writes after stop().
        with contextlib.suppress(Exception):
            await db(lambda: None)()
        if self.listening:
            broadcast.unlisten(self.cluster_name)
            self.listening = False

    async def _loop(self, component) -> None:
        waiter = broadcast.NUDGES.subscribe(self.cluster_name)
        try:
            warm_up = getattr(component, "warm_up", None)
            if warm_up is not None:
                try:
                    await warm_up()
                except Exception:  # only a first pod's speed depends on it
                    logger.exception("%s of %s could not warm up", component.component, self.cluster_name)
            while True:
                try:
                    with broadcast.working(self.cluster_name):
                        worked = await component.step()
                except Exception:
                    logger.exception(
                        "%s of %s failed a pass; retrying", component.component, self.cluster_name
                    )
                    worked = False
                    await db(reset_connection)()  # a broken connection is replaced on the next call
                    await asyncio.sleep(POLL_SECONDS)
                if worked:
                    continue  # more may have landed meanwhile: read the log again before sleeping
                timeout = POLL_SECONDS
                wakeup = getattr(component, "next_wakeup", lambda: None)()
                if wakeup is not None:
                    timeout = min(timeout, wakeup)
                if not await waiter.wait(timeout):
                    component.informer.stale = True  # a poll: read the log even without a nudge
        finally:
            waiter.close()

    async def _write_events(self) -> None:
        """The event broadcaster: Events queued by the components are written in order, in batches
        of one transaction each, in the control plane's lulls: they are news about its work, not
        part of it."""
        waiter = event_recorder.QUEUED.subscribe(self.cluster_name)
        try:
            while True:
                await waiter.wait(POLL_SECONDS)
                deadline = time.monotonic() + EVENT_MAX_DEFER_SECONDS
                try:
                    while event_recorder.pending(self.cluster_name):
                        quiet = event_recorder.pending(self.cluster_name) < EVENT_MAX_PENDING and (
                            await lull(self.cluster_name, deadline)
                        )
                        # Short batches: a request arriving in the lull waits for one at most.
                        await db(event_recorder.flush)(self.cluster_name, EVENT_BATCH)
                        if not quiet:  # the control plane still at work: the next one a second later
                            deadline = time.monotonic() + 1.0
                except Exception:
                    logger.exception("events of %s could not be written", self.cluster_name)
                    await db(reset_connection)()
        finally:
            waiter.close()

    async def _collect_garbage(self) -> None:
        """Heal what a crash left (orphans, traces of objects that are gone), then keep sweeping."""
        collector, first = self.garbage_collector, True
        while True:
            try:
                await db(collector.heal if first else collector.sweep)()
                first = False
            except Exception:
                logger.exception("the garbage collector of %s failed a sweep", self.cluster_name)
                await db(reset_connection)()
            await asyncio.sleep(SWEEP_SECONDS)

    async def _leases(self) -> None:
        """Node heartbeats: each node's Lease every 10 s, its status every 5 minutes (as upstream).

        Each kubelet renews on its own: the renewals are spread over the period, one node per
        database call, so a hundred nodes never hold the database thread at once.
        """
        renewals = 0
        while True:
            nodes = self.kubelets.node_names()
            report = renewals and renewals % STATUS_REPORT_EVERY == 0
            for node in nodes:
                try:
                    await db(self.kubelets.renew_lease)(node)
                    if report:
                        await db(self.kubelets.report_node_status)(node)
                except Exception:
                    logger.exception("the heartbeat of %s in %s failed", node, self.cluster_name)
                await asyncio.sleep(LEASE_RENEW_SECONDS / max(len(nodes), 1))
            if not nodes:
                await asyncio.sleep(LEASE_RENEW_SECONDS)
            renewals += 1


_running: dict[str, ControlPlane] = {}


async def run_until_idle(cluster_name: str) -> ControlPlane:
    """Process all pending work for the cluster with a control plane kept for this process."""
    plane = _running.get(cluster_name)
    if plane is None:
        plane = _running[cluster_name] = ControlPlane(cluster_name)
    await plane.run_until_idle()
    return plane


def _managed(names: list[str]) -> list[str]:
    return [name for name in names if not name.startswith(DRIVEN_ELSEWHERE)]


async def supervise(interval: float = 5.0, identity: str | None = None) -> None:
    """Campaign for the lease of every cluster (sandboxes created later too); run the control
    plane of each cluster this process leads, and stop it the moment the lease is lost."""
    me = identity or leader.identity()
    campaigns: dict[str, asyncio.Task] = {}
    logger.warning("control plane candidate %s", me)
    try:
        while True:
            try:
                names = _managed(await db(lambda: list(Cluster.objects.values_list("name", flat=True)))())
            except Exception:
                logger.exception("could not list the clusters")
                await db(reset_connection)()
                names = list(campaigns)
            for gone in set(campaigns) - set(names):
                campaigns.pop(gone).cancel()  # its cluster was deleted
            for name in names:
                if name not in campaigns or campaigns[name].done():
                    campaigns[name] = asyncio.create_task(_campaign(name, me), name=f"lease/{name}")
            await asyncio.sleep(interval)
    finally:
        for task in campaigns.values():
            task.cancel()
        await asyncio.gather(*campaigns.values(), return_exceptions=True)


async def _campaign(cluster_name: str, me: str) -> None:
    async def started() -> None:
        await stop(cluster_name)
        plane = _running[cluster_name] = ControlPlane(cluster_name)
        plane.start()

    async def stopped() -> None:
        await stop(cluster_name)

    await leader.campaign(leader.Elector(cluster_name, me), started, stopped)


async def stop(cluster_name: str) -> None:
    plane = _running.pop(cluster_name, None)
    if plane is not None:
        await plane.stop()


def forget(cluster_name: str) -> None:
    """Drop a driven (not started) control plane, e.g. between tests."""
    _running.pop(cluster_name, None)
