"""Leadership shared out between control-plane processes (the scale-out profile).

Every `manage.py controlplane` process campaigns for every cluster's Lease (cluster/client/leader.py),
but takes a free or expired one only while it leads less than its fair share, and hands leases over
while it leads more. Who is alive, and what each one leads, is in the database
(`ControlPlaneMember`, renewed every second with the database's own clock), so processes on several
machines sharing one PostgreSQL agree without synchronized clocks. That renewal is also the renewal
of every Lease the process leads (one statement, whatever their number), and every BOARD_SECONDS
one query reads all the clusters' Leases for all the campaigns (cluster/client/leaseboard.py):

- a cluster weighs 1 plus its measured work: the CPU seconds per second its control plane's
  database calls take (cluster/client/workmeter.py), times WORK_WEIGHT, averaged over about half a
  minute (a busy sandbox counts more than an idle one); a cluster's weight is the one its leader
  publishes (1 when nobody leads it);
- the fair share is the weight of all the clusters over the number of live processes;
- a process takes a free lease while its load is below the fair share: some process always is
  while a lease is free (the loads add up to less than the total), so no cluster is left without a
  leader; a lease expired (or released) ORPHAN_SECONDS ago is taken by anyone, whatever the views;
- a process at least one unit (and 5%) over its share hands its lightest clusters over (stops their
  components, then releases the lease) while it stays at or above the share, so the process that
  takes them is below it and nothing flaps; a handed-over cluster is not taken back for
  HANDED_OVER_SECONDS;
- a process that dies stops renewing its row: MEMBER_TTL_SECONDS later the others' share grows
  and, when its Leases expire (4 s), they take its clusters.

Fencing (cluster/apiserver/fence.py) makes sure a stale leader's writes are refused.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from datetime import timedelta

from django.db.models import BooleanField, ExpressionWrapper, Q
from django.db.models.functions import Now

from cluster.client import leaseboard
from cluster.client.informer import reset_connection
from cluster.client.leader import in_election_thread
from cluster.models import ControlPlaneMember

logger = logging.getLogger(__name__)

MEMBER_RENEW_SECONDS = 1.0
BOARD_SECONDS = 0.5  # the Leases are read this often (client-go's retryPeriod for a standby)
BOARD_WAIT_SECONDS = 2.0  # a campaign waits this long for a board before judging without one
MEMBER_TTL_SECONDS = 3.0  # shorter than a Lease's 4 s: a dead process's share is known first
FORGET_DEAD_AFTER = timedelta(hours=1)  # rows of processes that died are deleted after this
WORK_WEIGHT = 10.0  # a cluster taking a tenth of a core weighs 2
WORK_SMOOTHING = 1 / 30  # per second: an average over about half a minute
ORPHAN_SECONDS = 2.0
REBALANCE_MARGIN = 0.05  # over the share by this fraction (at least one unit) before handing over
HANDED_OVER_SECONDS = 10.0


class Share:
    """This process's side of the sharing: what it leads, what the others lead, its fair share.

    Called from the event loop (the campaigns, the renewal loop) and from the election thread
    (`may_take`, inside a lease attempt), hence the lock."""

    def __init__(self, identity: str, work_of: Callable[[str], float | None] = lambda name: None) -> None:
        self.identity = identity
        self.work_of = work_of  # seconds of work a running control plane has done so far
        self._lock = threading.Lock()
        self.clusters: list[str] = []
        self.members: int = 1  # live processes, this one included
        self.published: dict[str, float] = {}  # weights the other processes' rows publish
        self.leading: set[str] = set()
        self.taking: set[str] = set()  # leases being written for this process right now
        self.handing: set[str] = set()
        self.handed_at: dict[str, float] = {}
        self.busy: dict[str, float] = {}  # cluster -> smoothed fraction of time at work
        self._work_seen: dict[str, tuple[float, float]] = {}
        self.ready = asyncio.Event()
        self.ids: dict[str, int] = {}  # cluster name -> pk, of `clusters`
        self.renewed_at: float | None = None  # time.monotonic() this process's last renewal began
        self.renewals: dict = {}  # identity -> (renewed_at, the clusters it leads): leaseboard
        self.board: leaseboard.Board | None = None
        self._next_board: asyncio.Event | None = None

    # -- weights --------------------------------------------------------------------------
    def weight(self, name: str) -> float:
        if name in self.busy:
            # In half units: an idle sandbox (its heartbeats) weighs exactly 1, and the noise of
            # the measurement moves nothing.
            return round(2.0 * (1.0 + WORK_WEIGHT * self.busy[name])) / 2.0
        return self.published.get(name, 1.0)

    def fair_share(self) -> float:
        return sum(self.weight(name) for name in self.clusters) / max(1, self.members)

    def load(self) -> float:
        return sum(self.weight(name) for name in (self.leading | self.taking) - self.handing)

    # -- the campaigns' questions ---------------------------------------------------------
    def may_take(self, name: str, expired_for: float) -> bool:
        """A free lease (or one expired `expired_for` seconds ago): take it? Reserves it if so."""
        with self._lock:
            if name in self.leading or name in self.taking:
                return True
            orphaned = expired_for >= ORPHAN_SECONDS
            handed = time.monotonic() - self.handed_at.get(name, -1e9) < HANDED_OVER_SECONDS
            if orphaned or (not handed and self.load() < self.fair_share()):
                self.taking.add(name)
                return True
            return False

    def settled(self, name: str, leading: bool) -> None:
        """The outcome of an attempt (or the campaign's end)."""
        with self._lock:
            self.taking.discard(name)
            if leading:
                self.leading.add(name)
            else:
                self._forget(name)

    def hands_over(self, name: str) -> bool:
        return name in self.handing

    def handed_over(self, name: str) -> None:
        with self._lock:
            self.handed_at[name] = time.monotonic()
            self._forget(name)

    def _forget(self, name: str) -> None:
        self.leading.discard(name)
        self.handing.discard(name)
        self.busy.pop(name, None)
        self._work_seen.pop(name, None)

    async def next_board(self) -> leaseboard.Board | None:
        """The next board read (None when none came within BOARD_WAIT_SECONDS)."""
        if self._next_board is None:
            self._next_board = asyncio.Event()
        waiting = self._next_board
        try:
            async with asyncio.timeout(BOARD_WAIT_SECONDS):
                await waiting.wait()
        except TimeoutError:
            return None
        return self.board

    def _publish(self, board: leaseboard.Board) -> None:
        self.board = board
        waiting, self._next_board = self._next_board, None
        if waiting is not None:
            waiting.set()

    # -- the renewal loop -----------------------------------------------------------------
    async def run(self) -> None:
        """Renew this process's row (and so its Leases) every second, rebalancing after each
        renewal, and read the board every BOARD_SECONDS. The row is deleted when the process
        stops cleanly (its leases are released by the campaigns)."""
        renew_due = 0.0
        try:
            while True:
                renew = time.monotonic() >= renew_due
                if renew:
                    renew_due = time.monotonic() + MEMBER_RENEW_SECONDS
                    self._measure()
                try:
                    board = await in_election_thread(self._poll, renew)
                    if renew:
                        self.ready.set()
                        self._rebalance()
                    self._publish(board)
                except Exception:
                    logger.exception("could not renew the control-plane member row of %s", self.identity)
                    await in_election_thread(reset_connection)
                await asyncio.sleep(BOARD_SECONDS)
        finally:
            try:
                await asyncio.shield(in_election_thread(self._leave))
            except (Exception, asyncio.CancelledError):  # best effort: the row expires anyway
                logger.warning("could not delete the control-plane member row of %s", self.identity)

    def _measure(self) -> None:
        now = time.monotonic()
        with self._lock:
            for name in self.leading:
                work = self.work_of(name)
                seen = self._work_seen.get(name)
                if work is None:  # parked (cluster/controlplane/parking.py): no work since
                    if seen is None:
                        continue
                    work = seen[0]
                self._work_seen[name] = (work, now)
                if seen is None or now <= seen[1]:
                    continue
                fraction = min(1.0, max(0.0, (work - seen[0]) / (now - seen[1])))
                share = min(1.0, WORK_SMOOTHING * (now - seen[1]))
                self.busy[name] = self.busy.get(name, fraction) * (1 - share) + fraction * share

    def _poll(self, renew: bool) -> leaseboard.Board:
        """Election thread: renew (when due), then read every process's row and every Lease."""
        if renew:
            self._renew()
        else:
            self._read_members()
        return leaseboard.read(dict(self.ids), self.renewals)

    def _renew(self) -> None:
        """One statement renews this process's row, and with it every Lease it leads."""
        started = time.monotonic()
        with self._lock:
            leads = {name: round(self.weight(name), 2) for name in sorted(self.leading)}
        updated = ControlPlaneMember.objects.filter(identity=self.identity).update(
            renewed_at=Now(), leads=leads
        )
        if not updated:
            ControlPlaneMember.objects.create(
                identity=self.identity,
                host=socket.gethostname(),
                pid=os.getpid(),
                renewed_at=Now(),
                leads=leads,
            )
            ControlPlaneMember.objects.filter(renewed_at__lt=Now() - FORGET_DEAD_AFTER).delete()
        self.renewed_at = started
        self._read_members()

    def _read_members(self) -> None:
        """Every row: who is alive (renewed within MEMBER_TTL_SECONDS), what each publishes,
        and each one's last renewal (the board judges the Leases by it)."""
        alive = ExpressionWrapper(
            Q(renewed_at__gte=Now() - timedelta(seconds=MEMBER_TTL_SECONDS)), output_field=BooleanField()
        )
        rows = list(
            ControlPlaneMember.objects.annotate(alive=alive).values_list(
                "identity", "leads", "renewed_at", "alive"
            )
        )
        published = {}
        for identity, their, _, live in rows:
            if live and identity != self.identity:
                published.update({name: float(w) for name, w in (their or {}).items()})
        with self._lock:
            self.members = len({identity for identity, _, _, live in rows if live} | {self.identity})
            self.published = published
            self.renewals = {identity: (at, set(their or ())) for identity, their, at, _ in rows}

    def _leave(self) -> None:
        ControlPlaneMember.objects.filter(identity=self.identity).delete()

    def _rebalance(self) -> None:
        """At least one unit over the fair share: hand the lightest clusters over while this
        process stays at or above it."""
        with self._lock:
            fair, load = self.fair_share(), self.load()
            if load < fair + max(1.0, REBALANCE_MARGIN * fair):
                return
            keep = sorted(self.leading - self.handing, key=lambda name: (self.weight(name), name))
            for name in keep:
                weight = self.weight(name)
                if load - weight < fair:
                    break
                self.handing.add(name)
                load -= weight
            if self.handing:
                logger.warning(
                    "%s hands %d clusters over (load %.1f, fair share %.1f of %d processes)",
                    self.identity,
                    len(self.handing),
                    self.load() + sum(self.weight(n) for n in self.handing),
                    fair,
                    self.members,
                )
