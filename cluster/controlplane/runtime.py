"""The control plane of a cluster: the controller manager, the scheduler and the kubelets.

Each component lists, then watches the event log (cluster/client/informer.py), and writes back only
through cluster.apiserver. Two ways to drive them:

- `supervise()`: for every cluster, campaign for its Lease (cluster/client/leader.py) and, while leading,
  run `ControlPlane.start()`'s long-running loops, each woken by nudges and by a short poll, so a
  lost nudge only delays (the scale-out profile: `manage.py controlplane`, several processes);
- `supervise(elect=False)`: the embedded default (`manage.py serve`), where one process holds every
  control plane and every write's nudge reaches it: no election (the Lease is written once, naming
  this process), no polling, and idle clusters pause their heartbeats, then park
  (cluster/controlplane/activity.py);
- `await run_until_idle(cluster_name)`: process all pending work now and return (tests, benchmarks).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time

from django.db import transaction

from cluster.apiserver import fence
from cluster.broadcast import nudge
from cluster.client import event_recorder, leader, workmeter
from cluster.client.informer import db, reset_connection
from cluster.controllers.endpoints import EndpointsController
from cluster.controllers.garbage_collector import SWEEP_SECONDS, GarbageCollector
from cluster.controllers.manager import ControllerManager
from cluster.controllers.resourcequota import ResourceQuotaController
from cluster.controlplane import activity, simtime
from cluster.controlplane.lull import lull
from cluster.controlplane.parking import Parking
from cluster.controlplane.share import Share
from cluster.flow import gate
from cluster.kubelet import adoption, attachrelay, power
from cluster.kubelet.kubelet import KubeletManager
from cluster.models import Cluster
from cluster.schedulerport import scheduler_app
from database.sqlite import writers
from k8s import clock

logger = logging.getLogger(__name__)
POLL_SECONDS = 1.0
LEASE_RENEW_SECONDS = 10.0
EMBEDDED_SWEEP_SECONDS = 5.0
# Scale-out: the garbage collector sweeps after a write of another kind than these (node heartbeats'
# Lease renewals, Events: neither owns anything), and at least this often anyway.
SWEEP_IGNORES = ("Lease", "Event")
SWEEP_FALLBACK_SECONDS = 10.0
HEARTBEAT_BATCH = 10  # node heartbeats per transaction, spread over LEASE_RENEW_SECONDS
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
    def __init__(
        self, cluster_name: str, embedded: bool = False, leader: str | None = None, parks: bool = False
    ) -> None:
        self.cluster_name = cluster_name
        # The Lease holder identity whose leadership fences this control plane's writes.
        self.leader = leader
        self.work = workmeter.Meter()  # its database calls' CPU time (share.py weighs it)
        self.row: int | None = None  # a driven plane's Cluster row (run_until_idle)
        # Embedded: every write is made in this process, so its nudge cannot be lost: the loops
        # wait for nudges (and their own timers) only, and the heartbeats pause while idle.
        self.embedded = embedded
        # Its heartbeats pause while the cluster is quiet (a supervisor parks it when idle).
        self.parks = embedded or parks
        self.poll = None if embedded else POLL_SECONDS
        self.awake = asyncio.Event()
        self.controller_manager = ControllerManager(cluster_name)
        self.scheduler = scheduler_app().component(cluster_name)
        self.kubelets = KubeletManager(cluster_name)
        self.endpoints = EndpointsController(cluster_name)
        self.quotas = ResourceQuotaController(cluster_name)
        self.garbage_collector = GarbageCollector(cluster_name)
        self.tasks: list[asyncio.Task] = []
        self.listening = False

    @property
    def components(self) -> tuple:
        return (self.controller_manager, self.scheduler, self.kubelets, self.endpoints, self.quotas)

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
        """Start the long-running loops as tasks of the running event loop, each reading the
        cluster's own time (cluster/controlplane/simtime.py)."""
        shifted = clock.shifted(simtime.shift_of(self.cluster_name))
        with shifted, fence.leading(self.leader), workmeter.counting(self.work):
            for component in self.components:
                self.tasks.append(
                    asyncio.create_task(
                        self._loop(component), name=f"{self.cluster_name}/{component.component}"
                    )
                )
            self.tasks.append(asyncio.create_task(self._leases()))
            self.tasks.append(asyncio.create_task(self._write_events()))
            self.tasks.append(asyncio.create_task(self._collect_garbage()))
            self.tasks.append(asyncio.create_task(self.scheduler.explainer.run()))
        nudge.bind_loop()
        nudge.listen(self.cluster_name)
        self.listening = True

    async def stop(self, keep_processes: bool = False) -> None:
        """keep_processes: it parks; its containers' processes wait in this process (see
        cluster/kubelet/adoption.py)."""
        # The explanations this scheduler still holds are written before it goes (a bounded wait:
        # readers in other processes wait for them).
        try:
            with contextlib.suppress(Exception, TimeoutError):
                async with asyncio.timeout(STOP_EXPLAIN_SECONDS):  # not wait_for: see nudge.Waiter.wait
                    await self.scheduler.explainer.explain_all()
        finally:
            await self._end_tasks()
        # A cancelled task's call into the database thread still runs there: one more trip waits
        # for it, so nothing of this control plane writes after stop().
        with contextlib.suppress(Exception):
            await db(lambda: None)()
            await db(self.kubelets.stop_processes)(keep_processes)  # its containers' processes end (or wait)
            await db(gate.clear_gates)(self.cluster_name)

    async def _end_tasks(self) -> None:
        for task in self.tasks:
            task.cancel()
        try:
            # gather keeps a cancellation of stop()'s own caller, which a suppress around each
            # await would swallow along with the tasks' own CancelledError.
            await asyncio.gather(*self.tasks, return_exceptions=True)
        finally:
            self._release()

    def _release(self) -> None:
        """What stop() gives back even when its caller is cancelled midway."""
        for component in self.components:
            task_map = getattr(component, "workers", {})
            for task in task_map.values():
                task.cancel()
            component.informer.close()
        self.scheduler.explainer.close()
        self.tasks.clear()
        if self.listening:
            nudge.unlisten(self.cluster_name)
            self.listening = False

    async def _loop(self, component) -> None:
        waiter = nudge.NUDGES.subscribe(self.cluster_name)
        try:
            warm_up = getattr(component, "warm_up", None)
            if warm_up is not None:
                try:
                    await warm_up()
                except Exception:  # only a first pod's speed depends on it
                    logger.exception("%s of %s could not warm up", component.component, self.cluster_name)
            while True:
                try:
                    with nudge.working(self.cluster_name):
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
                timeout = self.poll
                wakeups = (
                    getattr(component, "next_wakeup", _none)(),
                    getattr(component, "flush_due", _none)(),
                )
                for wakeup in wakeups:
                    if wakeup is not None:
                        timeout = wakeup if timeout is None else min(timeout, wakeup)
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
                if not event_recorder.pending(self.cluster_name):  # some may be queued before we began
                    await waiter.wait(self.poll)
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
        swept_news, swept_at = nudge.news_except(self.cluster_name, SWEEP_IGNORES), time.monotonic()
        # Embedded: a sweep follows a nudge (nothing can dangle before something was written).
        waiter = nudge.NUDGES.subscribe(self.cluster_name) if self.embedded else None
        try:
            while True:
                try:
                    await db(collector.heal if first else collector.sweep)()
                    first = False
                except Exception:
                    logger.exception("the garbage collector of %s failed a sweep", self.cluster_name)
                    await db(reset_connection)()
                if waiter is not None:
                    await waiter.wait(None)
                    # A safety net in one process (deletes cascade in their own transaction):
                    # one sweep for the writes of a few seconds.
                    await asyncio.sleep(EMBEDDED_SWEEP_SECONDS)
                else:
                    await self._sweep_due(swept_news, swept_at)
                swept_news, swept_at = nudge.news_except(self.cluster_name, SWEEP_IGNORES), time.monotonic()
        finally:
            if waiter is not None:
                waiter.close()

    async def _sweep_due(self, swept_news, swept_at: float) -> None:
        """Scale-out: wait until a write that can leave a dependent dangling was announced since
        the last sweep (SWEEP_SECONDS apart at most once a second), or SWEEP_FALLBACK_SECONDS
        passed (a nudge lost between processes). Node heartbeats and Events alone do not wake it:
        a busy sandbox's sweep read the cluster and its every object each second for them."""
        while True:
            await asyncio.sleep(SWEEP_SECONDS)
            if nudge.news_except(self.cluster_name, SWEEP_IGNORES) != swept_news:
                return
            if time.monotonic() - swept_at >= SWEEP_FALLBACK_SECONDS:
                return

    async def _leases(self) -> None:
        """Node heartbeats: each node's Lease every 10 s, its status every 5 minutes (as upstream).

        The renewals are spread over the period, HEARTBEAT_BATCH nodes per database call and
        transaction, so a hundred nodes never hold the database thread (or SQLite's write lock) long.
        """
        renewals = 0
        while True:
            if self.parks and await self._sleep_while_quiet():
                renewals = 0  # awake again: every node renews now and reports its status soon
            nodes = self.kubelets.node_names()
            report = renewals and renewals % STATUS_REPORT_EVERY == 0
            batches = [nodes[i : i + HEARTBEAT_BATCH] for i in range(0, len(nodes), HEARTBEAT_BATCH)]
            for batch in batches:
                if self.parks and self.quiet():
                    break
                try:
                    await db(self._heartbeats)(batch, report)
                except Exception:
                    logger.exception("the heartbeats of %s failed", self.cluster_name)
                    await db(reset_connection)()
                await asyncio.sleep(LEASE_RENEW_SECONDS / len(batches))
            if not nodes:
                await asyncio.sleep(LEASE_RENEW_SECONDS)
            renewals += 1

    def _heartbeats(self, nodes: list[str], report: bool) -> None:
        """Renew the nodes' Leases (and report their status) in one transaction: SQLite serves
        one writer at a time, and a class of 60 ten-node sandboxes renews 60 Leases a second.
        A request queueing for the writer gate splits it (writers.write_in_turns)."""

        def beat(node: str) -> None:
            try:
                with transaction.atomic():
                    self.kubelets.renew_lease(node)
                    if report:
                        self.kubelets.report_node_status(node)
            except Exception:
                logger.exception("the heartbeat of %s in %s failed", node, self.cluster_name)

        while nodes:
            nodes = nodes[writers.write_in_turns(nodes, beat) :]

    def pending(self) -> bool:
        """Work of its own that no write will announce: pod workers, retries due, Events queued."""
        return (
            any(not task.done() for task in self.kubelets.workers.values())
            or self.kubelets.next_wakeup() is not None
            or self.scheduler.next_wakeup() is not None
            or event_recorder.pending(self.cluster_name) > 0
            or nudge.busy(self.cluster_name)
        )

    def quiet(self) -> bool:
        """Nobody acted on the cluster for a while, nobody watches it, and nothing is pending."""
        return (
            activity.idle_for(self.cluster_name) >= activity.QUIET_SECONDS
            and not activity.watched(self.cluster_name)
            and not self.pending()
        )

    async def _sleep_while_quiet(self) -> bool:
        """Pause (the heartbeats) until the cluster is touched; True when it paused."""
        if not self.quiet():
            return False
        self.awake.clear()
        activity.set_asleep(self.cluster_name, True)
        try:
            if not self.quiet():  # touched meanwhile: the waker may have come before set_asleep
                return False
            await self.awake.wait()
            return True
        finally:
            activity.set_asleep(self.cluster_name, False)

    def wake(self) -> None:
        """Touched: resume the heartbeats (event-loop code)."""
        self.awake.set()


def _none() -> None:
    return None


_running: dict[str, ControlPlane] = {}


def _row_of(cluster_name: str) -> int | None:
    return Cluster.objects.filter(name=cluster_name).values_list("pk", flat=True).first()


async def run_until_idle(cluster_name: str) -> ControlPlane:
    """Process all pending work for the cluster with a control plane kept for this process.

    A cluster deleted and made again under the same name (a test's fresh "demo", a lab's
    throwaway) gets a new plane: the kept one's informers and components read the old row. (A
    started plane is the supervisor's to replace.)"""
    row = await db(_row_of)(cluster_name)
    plane = _running.get(cluster_name)
    if plane is None or (not plane.tasks and plane.row not in (None, row)):
        plane = _running[cluster_name] = ControlPlane(cluster_name)
    plane.row = row
    with clock.shifted(simtime.shift_of(cluster_name)):
        await plane.run_until_idle()
    return plane


def _managed(names: list[str]) -> list[str]:
    return [name for name in names if not name.startswith(DRIVEN_ELSEWHERE)]


async def supervise(interval: float = 5.0, identity: str | None = None, elect: bool = True) -> None:
    """Run the control plane of every cluster (sandboxes created later too).

    elect: campaign for each cluster's Lease and run the control plane of each cluster this
    process leads, stopping it the moment the lease is lost (the scale-out profile). Without it
    (the embedded default), see `Embedded`."""
    me = identity or leader.identity()
    if not elect:
        await Embedded(me, interval).run()
        return
    campaigns: dict[str, asyncio.Task] = {}
    logger.warning("control plane candidate %s", me)
    share = Share(me, work_of=_work_of)

    async def start_plane(name: str) -> None:
        if name in _running:
            await stop(name)
        plane = _running[name] = ControlPlane(name, leader=me, parks=True)
        plane.start()

    parking = Parking(start_plane, stop, _running.get)
    parking.bind()
    sharing = asyncio.create_task(share.run(), name="control-plane share")
    # kubectl attach reaches the containers this process runs from any web process.
    relay = asyncio.create_task(attachrelay.serve(me), name="attach relay")
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(10):  # who else is alive, before the first campaign
            await share.ready.wait()
    try:
        while True:
            try:
                rows = await db(
                    lambda: list(
                        Cluster.objects.values_list(
                            "name", "pk", "revision", "clock_offset", "stopped_kubelets"
                        )
                    )
                )()
                for name, _, _, offset, stopped_kubelets in rows:
                    simtime.observe(name, offset)
                    power.observe(name, stopped_kubelets)
                names = _managed([row[0] for row in rows])
                share.ids = {name: pk for name, pk, *_ in rows if name in names}
                revisions = {name: revision for name, _, revision, *_ in rows if name in names}
            except Exception:
                logger.exception("could not list the clusters")
                await db(reset_connection)()
                names, revisions = list(campaigns), {}
            share.clusters = names
            for gone in set(campaigns) - set(names):
                campaigns.pop(gone).cancel()  # its cluster was deleted
            for name in names:
                if name not in campaigns or campaigns[name].done():
                    campaigns[name] = asyncio.create_task(
                        _campaign(name, me, share, parking), name=f"lease/{name}"
                    )
            try:
                await parking.park_idle(revisions)
            except Exception:
                logger.exception("could not park the idle control planes")
            await asyncio.sleep(interval)
    finally:
        parking.unbind()
        for task in campaigns.values():
            task.cancel()
        await asyncio.gather(*campaigns.values(), return_exceptions=True)
        relay.cancel()
        sharing.cancel()  # after the campaigns released their leases: its row goes last
        await asyncio.gather(sharing, relay, return_exceptions=True)


class Embedded:
    """Every control plane in this one process (`manage.py serve`, SQLite, in-memory layer).

    No other process runs control planes here, so there is nobody to elect against: each
    cluster's Lease is written once, naming this process (the header and `kubectl get lease` still
    say who runs it), and never renewed. Every write is made in this process, so its nudge wakes
    the components: nothing polls. A cluster nobody touched for `activity.park_after()` seconds,
    that nobody watches and whose control plane has nothing pending, is parked (its tasks stop);
    the next touch (a write, a request, a socket or watch opening) starts it again. Every
    `interval` seconds one query lists the clusters: new ones start, deleted ones stop, and a
    revision that moved without a nudge (a write by another process, e.g. a management command)
    is announced as one.
    """

    def __init__(self, me: str, interval: float) -> None:
        self.me = me
        self.interval = interval
        self.known: dict[str, int] = {}  # cluster -> the revision the last scan read
        self.parked: set[str] = set()
        self.stopping: set[str] = set()
        self.loop: asyncio.AbstractEventLoop | None = None

    async def run(self) -> None:
        self.loop = asyncio.get_running_loop()
        logger.warning("control plane %s (embedded: every cluster, no election)", self.me)
        activity.set_waker(self._waker)
        try:
            while True:
                await self._scan()
                for name, plane in list(_running.items()):
                    if plane.embedded and self._idle(name, plane):
                        await self._park(name)
                await asyncio.sleep(self.interval)
        finally:
            activity.set_waker(None)
            for name in [name for name, plane in _running.items() if plane.embedded]:
                await stop(name)

    async def _scan(self) -> None:
        try:
            rows = await db(
                lambda: list(
                    Cluster.objects.values_list("name", "revision", "clock_offset", "stopped_kubelets")
                )
            )()
        except Exception:
            logger.exception("could not list the clusters")
            await db(reset_connection)()
            return
        for name, _, offset, stopped_kubelets in rows:
            simtime.observe(name, offset)
            power.observe(name, stopped_kubelets)
        seen = {name: revision for name, revision, _, _ in rows if not name.startswith(DRIVEN_ELSEWHERE)}
        for gone in set(self.known) - set(seen):
            del self.known[gone]
            self.parked.discard(gone)
            activity.forget(gone)
            await stop(gone)
        for name, revision in seen.items():
            if name not in self.known:
                self.known[name] = revision
                if name not in _running and name not in self.parked:
                    await self._start(name)
                continue
            if revision > max(self.known[name], nudge.latest_revision(name)):
                nudge.notify(name, revision)  # written by another process: no nudge came
            self.known[name] = revision

    def _idle(self, name: str, plane: ControlPlane) -> bool:
        return activity.idle_for(name) >= activity.park_after() and plane.quiet()

    async def _start(self, name: str) -> None:
        self.parked.discard(name)
        activity.set_asleep(name, False)
        try:
            await db(leader.claim)(name, self.me)
        except Exception:
            logger.exception("could not write the Lease of %s", name)
            await db(reset_connection)()
        if name in _running or name in self.stopping:
            return
        plane = _running[name] = ControlPlane(name, embedded=True)
        plane.start()

    async def _park(self, name: str) -> None:
        last = activity.last_touch(name)
        plane = _running.get(name)
        if plane is not None:
            await plane.scheduler.save_attempts()  # nothing waits for the lull any more
        self.parked.add(name)
        self.stopping.add(name)
        try:
            await stop(name, keep_processes=True)
        finally:
            self.stopping.discard(name)
        activity.set_asleep(name, True)
        if activity.last_touch(name) != last:  # touched while it stopped: the waker found no plane
            await self._start(name)
        else:
            logger.info("parked the control plane of %s", name)

    def _waker(self, name: str) -> None:
        """A sleeping cluster was touched (any thread)."""
        loop = self.loop
        if loop is not None and not loop.is_closed():
            # In a context of its own: the caller's (a request's thread-sensitive context) must not
            # become the control plane's, whose database calls would then go to that thread.
            loop.call_soon_threadsafe(self._wake, name, context=contextvars.Context())

    def _wake(self, name: str) -> None:
        plane = _running.get(name)
        if plane is not None:
            plane.wake()
        elif name not in self.stopping and not name.startswith(DRIVEN_ELSEWHERE):
            task = asyncio.ensure_future(self._start(name))
            _starting.add(task)
            task.add_done_callback(_starting.discard)


_starting: set[asyncio.Task] = set()


async def _campaign(cluster_name: str, me: str, share: Share, parking: Parking) -> None:
    async def started() -> None:
        await parking.won(cluster_name)

    async def stopped() -> None:
        await parking.lost(cluster_name)

    await leader.campaign(leader.Elector(cluster_name, me), started, stopped, share)


def _work_of(cluster_name: str) -> float | None:
    plane = _running.get(cluster_name)
    return plane.work.seconds if plane is not None else None


async def stop(cluster_name: str, keep_processes: bool = False) -> None:
    """Stop the cluster's control plane (keep_processes: it parks, see ControlPlane.stop); a parked
    cluster stopped for good (deleted, led elsewhere now) has its kept processes killed."""
    plane = _running.pop(cluster_name, None)
    if plane is not None:
        await plane.stop(keep_processes)
    elif not keep_processes:
        await db(adoption.drop_kept)(cluster_name)


def forget(cluster_name: str) -> None:
    """Drop a driven (not started) control plane, e.g. between tests."""
    _running.pop(cluster_name, None)
    adoption.discard_kept(cluster_name)
    simtime.forget(cluster_name)
    power.forget(cluster_name)
