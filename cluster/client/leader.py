"""Leader election for the control plane, as kube-controller-manager and kube-scheduler do it.

Each cluster has a coordination.k8s.io/v1 Lease, kube-system/kubesim-controlplane, written through
the API server like any object. A candidate judges it from the board its process reads once per
period for every cluster (cluster/client/leaseboard.py); when it is free or expired it writes
itself in as holder (an update carrying the resourceVersion it read, so of two racing candidates
one gets 409 Conflict and stays standby). A process renews all the Leases it holds with one
statement per period (its member row), not one API write each. client-go's rules (leaderelection.go):

- a lease is expired when the candidate has not seen it renewed for leaseDurationSeconds, measured
  on the candidate's own clock from when it last observed a change (not from renewTime);
- taking a lease from another holder (or an empty one) bumps leaseTransitions and acquireTime;
- a leader that cannot renew within RENEW_DEADLINE stops leading at once;
- a leader that shuts down cleanly releases the lease (empty holder), so a standby need not wait.

The durations are shorter than upstream's 15 s / 10 s / 2 s so that a takeover happens within 5 s,
in front of the class.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import socket
import time
import uuid
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

from cluster.apiserver import fence
from cluster.apiserver import service as api
from cluster.apiserver.actor import Actor
from cluster.apiserver.errors import ApiError
from cluster.client import event_recorder, leaseboard
from cluster.client.informer import db, reset_connection
from cluster.flow.writers import COMPONENT
from cluster.kubeapi.humanize import parse_time
from cluster.models import ApiObject, Cluster
from k8s import clock

logger = logging.getLogger(__name__)

NAMESPACE = fence.LEASE_NAMESPACE
NAME = fence.LEASE_NAME
LEASE_DURATION_SECONDS = 4
RENEW_PERIOD = 1.0  # the leader renews this often (upstream's retryPeriod)
RENEW_DEADLINE = 3.0  # ... and gives up leading when no renewal succeeded for this long
RETRY_PERIOD = 0.5  # a standby looks at the lease this often
ACTOR = Actor("controller-manager", "leader election", flow=COMPONENT)

# Lease attempts (and the processes' member rows, cluster/controlplane/share.py) run on a thread and
# connection of their own, not the database thread every control plane of the process queues on:
# a process busy leading many clusters still renews in time, and takes a dead one's within 5 s.
_ELECTIONS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="leader-election")


async def in_election_thread(function: Callable, *args):
    return await asyncio.get_running_loop().run_in_executor(_ELECTIONS, functools.partial(function, *args))


def identity() -> str:
    """Like client-go's `hostname_uuid`, with the process id so a teacher knows what to kill."""
    return f"{socket.gethostname()}_{os.getpid()}_{uuid.uuid4().hex[:6]}"


def election_needed() -> bool:
    """Whether `manage.py serve`'s control plane must campaign: only when another process may run
    control planes on the same database (PostgreSQL or Redis configured: the scale-out profile)."""
    from django.conf import settings
    from django.db import connection

    forced = str(settings.KUBESIM_LEADER_ELECTION).lower()
    if forced in ("1", "true", "yes", "on"):
        return True
    if forced in ("0", "false", "no", "off"):
        return False
    return bool(settings.REDIS_URL) or connection.vendor != "sqlite"


def claim(cluster_name: str, me: str) -> None:
    """The embedded default: this process runs the cluster's control plane and nobody competes, so
    the Lease is written once (when it names someone else, or is missing) and never renewed."""
    elector = Elector(cluster_name, me)
    elector.cluster = Cluster.objects.get(name=cluster_name)
    try:
        lease = api.get(elector.cluster, "Lease", NAMESPACE, NAME)
    except ApiError as error:
        if error.code != 404:
            raise
        elector._create()
        elector.announce()
        return
    spec = lease.get("spec") or {}
    if spec.get("holderIdentity") == me:
        return
    stamp = micro_time()
    lease["spec"] = {
        "holderIdentity": me,
        "leaseDurationSeconds": LEASE_DURATION_SECONDS,
        "acquireTime": stamp,
        "renewTime": stamp,
        "leaseTransitions": (spec.get("leaseTransitions") or 0) + 1,
    }
    api.update(elector.cluster, lease, ACTOR)
    elector._became_leader(lease)
    elector.announce()


def micro_time() -> str:
    """metav1.MicroTime: RFC 3339 with microseconds."""
    return clock.now().strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def current(cluster: Cluster) -> dict | None:
    """Who leads the cluster's control plane: {holder, renewTime, acquireTime, ...} or None."""
    body = (
        ApiObject.objects.filter(cluster=cluster, kind="Lease", namespace=NAMESPACE, name=NAME)
        .values_list("body", flat=True)
        .first()
    )
    spec = (body or {}).get("spec") or {}
    if not spec.get("holderIdentity"):
        return None
    renewed = leaseboard.renewed_at(cluster.name, spec["holderIdentity"])  # the batched renewals
    return {
        "holder": spec["holderIdentity"],
        "renewTime": leaseboard.micro(renewed) if renewed is not None else spec.get("renewTime"),
        "acquireTime": spec.get("acquireTime"),
        "leaseDurationSeconds": spec.get("leaseDurationSeconds"),
        "transitions": spec.get("leaseTransitions") or 0,
    }


def show_renewal(cluster: Cluster, namespace: str | None = None) -> None:
    """Before a client reads Leases (of `namespace`, or of all namespaces): write the holder's last
    renewal into the control plane's Lease's renewTime when it shows one a period or more older,
    as an update (its resourceVersion moves, as an upstream renewal's does)."""
    if namespace not in (None, "", NAMESPACE):
        return
    try:
        lease = api.get(cluster, "Lease", NAMESPACE, NAME)
    except ApiError:
        return
    spec = lease.get("spec") or {}
    holder = spec.get("holderIdentity") or ""
    renewed = leaseboard.renewed_at(cluster.name, holder) if holder else None
    shown = parse_time(spec.get("renewTime"))
    if renewed is None or (shown is not None and (renewed - shown).total_seconds() < RENEW_PERIOD):
        return
    spec["renewTime"] = leaseboard.micro(renewed)
    lease["spec"] = spec
    try:
        api.update(cluster, lease, ACTOR)  # carries the resourceVersion read: a takeover wins
    except ApiError as error:
        if error.code != 409:
            logger.warning("could not show the renewal of the Lease of %s: %s", cluster.name, error)


def with_leader(state: dict, cluster: Cluster) -> dict:
    """A snapshot with `leader` (the dashboard's header shows it), unless it has one already."""
    if "leader" not in state:
        state["leader"] = current(cluster)
    return state


class Elector:
    """One candidate for one cluster's lease."""

    def __init__(self, cluster_name: str, me: str) -> None:
        self.cluster_name = cluster_name
        self.identity = me
        self.cluster: Cluster | None = None
        self.observed: tuple | None = None  # the lease's LeaseView.token last seen
        self.observed_at = 0.0  # time.monotonic() it was seen to change
        self.renewed_at: float | None = None  # time.monotonic() our last renewal began
        self.taken_at = float("-inf")  # when our last take (or create) committed
        self.won: dict | None = None  # the lease we took, until `announce` recorded it

    @property
    def leading(self) -> bool:
        return self.renewed_at is not None and time.monotonic() - self.renewed_at < RENEW_DEADLINE

    def judge(
        self, board: leaseboard.Board, renewed_at: float | None, may_take: Callable[[float], bool]
    ) -> bool:
        """From the newest board (event loop, no query): whether to try to take the lease now.

        renewed_at: when this process's last renewal of its Leases began (time.monotonic());
        may_take(seconds it has been expired or released): whether this process wants the lease
        when nobody holds it (cluster/controlplane/share.py: its fair share)."""
        if board.read_at < self.taken_at:
            return False  # read before our own take was written: it says nothing of it
        view = board.leases.get(self.cluster_name)
        if view is None:
            self.renewed_at = None
            return may_take(0.0)
        now = time.monotonic()
        if view.token != self.observed:
            self.observed, self.observed_at = view.token, now
        if view.holder == self.identity:
            if renewed_at is not None and self.renewed_at is not None:
                self.renewed_at = max(self.renewed_at, renewed_at)  # our row renews all we hold
            return False
        self.renewed_at = None  # held by another or by nobody: if we led, we do no more
        duration = view.duration or LEASE_DURATION_SECONDS
        if view.holder and now < self.observed_at + duration:
            return False
        return may_take(max(0.0, now - (self.observed_at + duration)))  # released: 1 s after

    def take(self) -> bool:
        """Write ourselves in as the holder (election thread); True when we hold the lease now.
        The update carries the resourceVersion read, so of two racing candidates one gets 409
        Conflict; a lease that moved since the board was read is left for the next judgement."""
        started = time.monotonic()
        if self.cluster is None:
            self.cluster = Cluster.objects.get(name=self.cluster_name)
        try:
            lease = api.get(self.cluster, "Lease", NAMESPACE, NAME)
        except ApiError as error:
            if error.code != 404:
                raise
            return self._create()
        spec = lease.get("spec") or {}
        holder = spec.get("holderIdentity") or ""
        transitions = spec.get("leaseTransitions") or 0
        ours = holder == self.identity
        if not ours and (self.observed is None or (holder, transitions) != self.observed[:2]):
            return False
        stamp = micro_time()
        lease["spec"] = {
            "holderIdentity": self.identity,
            "leaseDurationSeconds": LEASE_DURATION_SECONDS,
            "acquireTime": spec.get("acquireTime") if ours else stamp,
            "renewTime": stamp,
            "leaseTransitions": transitions + (0 if ours else 1),
        }
        try:
            api.update(self.cluster, lease, ACTOR)
        except ApiError as error:
            if error.code == 409:
                return False  # another candidate wrote first
            raise
        self._renewed(started)
        if not ours:
            self._became_leader(lease)
        return True

    def _create(self) -> bool:
        stamp = micro_time()
        body = {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": NAME, "namespace": NAMESPACE},
            "spec": {
                "holderIdentity": self.identity,
                "leaseDurationSeconds": LEASE_DURATION_SECONDS,
                "acquireTime": stamp,
                "renewTime": stamp,
                "leaseTransitions": 0,
            },
        }
        started = time.monotonic()
        try:
            lease = api.create(self.cluster, body, ACTOR)
        except ApiError as error:
            if error.code == 409:
                return False
            raise
        self._renewed(started)
        self._became_leader(lease)
        return True

    def _renewed(self, started: float) -> None:
        """Our write (begun at `started`) committed: it renews the lease; a board read before
        now does not show it."""
        self.renewed_at = started
        self.taken_at = time.monotonic()

    def _became_leader(self, lease: dict) -> None:
        self.won = lease

    def announce(self) -> None:
        """The LeaderElection Event of a lease we took (client-go records it on the lock object),
        queued from the database thread, where the components' Events are queued."""
        lease, self.won = self.won, None
        if lease is None:
            return
        message = f"{self.identity} became leader"
        event_recorder.record(
            self.cluster, lease, "LeaderElection", message, ACTOR, component="kubesim-controlplane"
        )

    def release(self) -> None:
        """Hand the lease back (client-go's ReleaseOnCancel): an empty holder, expiring in 1 s."""
        if not self.leading or self.cluster is None:
            return
        try:
            lease = api.get(self.cluster, "Lease", NAMESPACE, NAME)
            spec = lease.get("spec") or {}
            if spec.get("holderIdentity") != self.identity:
                return
            stamp = micro_time()
            lease["spec"] = {
                "leaseDurationSeconds": 1,
                "acquireTime": stamp,
                "renewTime": stamp,
                "leaseTransitions": spec.get("leaseTransitions") or 0,
            }
            api.update(self.cluster, lease, ACTOR)
        except ApiError:
            logger.warning("could not release the lease of %s", self.cluster_name)
        self.renewed_at = None


class Sharing(Protocol):
    """How the processes share the leases out, and the board they all read
    (cluster/controlplane/share.py)."""

    renewed_at: float | None

    async def next_board(self) -> leaseboard.Board | None: ...
    def may_take(self, cluster_name: str, expired_for: float) -> bool: ...
    def settled(self, cluster_name: str, leading: bool) -> None: ...
    def hands_over(self, cluster_name: str) -> bool: ...
    def handed_over(self, cluster_name: str) -> None: ...


async def campaign(
    elector: Elector,
    started: Callable[[], Awaitable[None]],
    stopped: Callable[[], Awaitable[None]],
    share: Sharing,
) -> None:
    """Run for leader forever: `started` when we win, `stopped` when we lose (or are cancelled).

    Each board `share` reads (every process's Leases, one query) is judged here without a query
    of its own; only taking a lease writes. A free or expired lease is taken when the share says
    so, and a held one handed over (the components stopped first, then the lease released) when
    it asks."""
    name = elector.cluster_name

    def may_take(expired_for: float) -> bool:
        return share.may_take(name, expired_for)

    leading = False
    try:
        while True:
            if leading and share.hands_over(name):
                leading = False
                logger.warning("%s hands the lease of %s over", elector.identity, name)
                try:
                    await stopped()
                finally:
                    with contextlib.suppress(Exception):
                        await in_election_thread(elector.release)
                    share.handed_over(name)
            board = await share.next_board()  # None: none came in time (leading ends by its deadline)
            try:
                if board is not None and elector.judge(board, share.renewed_at, may_take):
                    await in_election_thread(elector.take)
            except Exception:
                logger.exception("leader election of %s failed an attempt", name)
                with contextlib.suppress(Exception):
                    await in_election_thread(reset_connection)
            share.settled(name, elector.leading)
            if elector.leading and not leading:
                leading = True
                logger.warning("%s leads the control plane of %s", elector.identity, name)
                await started()
                with contextlib.suppress(Exception):
                    await db(elector.announce)()
            elif leading and not elector.leading:
                leading = False
                logger.warning("%s lost the lease of %s", elector.identity, name)
                await stopped()
    finally:
        share.settled(name, False)
        if leading:
            with contextlib.suppress(Exception):
                await stopped()
            with contextlib.suppress(Exception):
                await in_election_thread(elector.release)
