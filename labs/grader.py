"""Automatic checking: one small task per student that re-evaluates on each sandbox nudge.

The task waits on the cluster's nudges (cluster.broadcast.nudge.NUDGES, fired after every committed
write) and, with a slow poll as a safety net where nudges cross processes, runs `progress.check`
(a no-op when the revision did not move). News goes to the student's panel at once, with the state
worked out from the check's outcome; the outcome is stored after that (labs/outcome.py), and the
board redraws. Tasks are started by the student's and the instructor's websockets, so a class that
nobody watches costs nothing.
"""

from __future__ import annotations

import asyncio
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from cluster.broadcast import nudge
from cluster.controlplane import activity
from database.joined import JoinedLookup
from labs.models import Student
from labs.outcome import Outcome
from labs.progress import Evaluation, check, save, session_group, student_group
from labs.state import student_state
from labs.storequeue import StoreQueue

logger = logging.getLogger(__name__)
POLL_SECONDS = 5.0
IGNORED_KINDS = ("Lease",)
BUSY_INTERVAL_SECONDS = 1.0
_tasks: dict[int, asyncio.Task] = {}
# A student's action that left the step failing is judged (an attempt) once the sandbox wrote
# nothing but heartbeats for this long, plus three paces (a pull waits up to two): a correct
# `kubectl apply` whose pods are still starting passes the step before then.
SETTLE_SECONDS = 2.0


def settle_seconds(pace_ms: int) -> float:
    return SETTLE_SECONDS + 3 * pace_ms / 1000


# Checks run on threads of their own, not on the thread-sensitive executor behind the control
# planes' work (WAL readers do not block), in two lanes: a check after a person acted never queues
# behind the sixty sandboxes' own churn checks. Their outcomes are stored on a third, so that a
# check's thread is not held while the store waits its turn for SQLite's one writer; what queued
# meanwhile is stored in one transaction (labs/storequeue.py).
ACTED_LANE = ThreadPoolExecutor(max_workers=2, thread_name_prefix="lab-check")
CHURN_LANE = ThreadPoolExecutor(max_workers=2, thread_name_prefix="lab-churn")
STORE_LANE = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lab-store")


# A student with their session, lab and sandbox (select_related's rows, one plain statement).
_STUDENT = JoinedLookup(Student, "session", "session__lab", "sandbox", where=("id",))


@dataclass
class Checked:
    present: bool  # the student still has a sandbox
    watched: frozenset[str] | None = None  # the kinds its current step reads (progress.Evaluation)
    student: Student | None = None
    evaluation: Evaluation | None = None
    state: dict | None = None  # the panel's state with the outcome, before it is stored
    stamp: float = 0.0  # time.time() before the state was read (labs.consumers drops older ones)


def _check_sync(student_id: int, acted: bool, pending: Outcome | None, settled: bool = False) -> Checked:
    stamp = time.time()
    student = _STUDENT.get(student_id)
    if student is None or student.sandbox is None:
        return Checked(False)
    evaluation = check(student, acted=acted, fresh=True, pending=pending, settled=settled)
    outcome = evaluation.outcome
    if outcome is None or not outcome.changed:
        return Checked(True, evaluation.watched, student, evaluation)
    # Shown before it is stored: the store queues for SQLite's one writer (STORE_LANE, _Chain).
    student.current_step, student.action_mark = outcome.current_step, outcome.action_mark
    state = student_state(student, outcome.row(outcome.current_step))
    return Checked(True, evaluation.watched, student, evaluation, state, stamp)


def _store_sync(checked: Checked) -> Checked | None:
    """Store the outcome; when it lost to a concurrent writer (who told the panel too) and the
    panel was shown it, what is stored instead."""
    student, evaluation = checked.student, checked.evaluation
    # The store queue gave this thread its turn at the writer gate (after the requests).
    if save(student, evaluation, urgent=False) or checked.state is None:
        return None
    stamp = time.time()
    student.refresh_from_db(fields=["current_step", "action_mark"])
    return Checked(True, checked.watched, student, evaluation, student_state(student), stamp)


_check_acted = database_sync_to_async(_check_sync, thread_sensitive=False, executor=ACTED_LANE)
_check_churn = database_sync_to_async(_check_sync, thread_sensitive=False, executor=CHURN_LANE)
_STORES: StoreQueue[Checked, Checked | None] = StoreQueue(STORE_LANE, _store_sync)


@dataclass
class _Chain:
    """A student's outcomes on their way to the database, stored one after another. The grader's
    next check does not wait for a store: it works from the outcome still being stored (its rows
    as they will be), and its own outcome is stored after that one. A store waits its turn for
    SQLite's one writer behind the class's requests; a student who acted again meanwhile waited
    for it before their change was even checked (0.3-0.4 s at p99 with sixty students)."""

    pending: Outcome | None = None  # the last outcome handed to the store lane
    last: asyncio.Task | None = None  # its store

    def ahead(self) -> Outcome | None:
        """The outcome a check must start from: the last one, while its store has not ended."""
        return self.pending if self.last is not None and not self.last.done() else None


_stores: set[asyncio.Task] = set()


async def _check_once(student_id: int, acted: bool, chain: _Chain, settled: bool = False) -> Checked:
    """Check, show the panel any news at once, and hand the outcome to the store chain."""
    lane = _check_acted if acted else _check_churn
    checked = await lane(student_id, acted, chain.ahead(), settled)
    if checked.evaluation is None or checked.evaluation.outcome is None:
        return checked
    if checked.state is not None:
        await _tell_student(student_id, checked.state, checked.stamp)
    store = asyncio.get_running_loop().create_task(_store_after(chain.last, student_id, checked, acted))
    chain.pending, chain.last = checked.evaluation.outcome, store
    _stores.add(store)
    store.add_done_callback(_stores.discard)
    return checked


async def _store_after(before: asyncio.Task | None, student_id: int, checked: Checked, acted: bool) -> None:
    """Store the outcome once the one before it was stored (or lost), then redraw the board."""
    if before is not None:
        await asyncio.wait([before])
    try:
        instead = await _STORES.put(checked, urgent=acted)
        if instead is not None:
            await _tell_student(student_id, instead.state, instead.stamp)
        if checked.state is not None:
            await _tell_board(checked.student.session_id)
    except Exception:
        logger.exception("storing student %s's outcome failed", student_id)


async def _tell_student(student_id: int, state: dict, stamp: float) -> None:
    """The panel gets the state computed with the check (no second read on another thread)."""
    layer = get_channel_layer()
    if layer is not None:
        message = {"type": "lab.changed", "state": state, "stamp": stamp}
        await layer.group_send(student_group(student_id), message)


async def _tell_board(session_id: int) -> None:
    layer = get_channel_layer()
    if layer is not None:
        await layer.group_send(session_group(session_id), {"type": "lab.changed"})


async def _run(student_id: int, cluster_name: str) -> None:
    waiter = nudge.NUDGES.subscribe(cluster_name)
    seen, checked_at = None, 0.0
    # The kinds the current step's checks read (None: any change may matter). The sandbox's own
    # churn is checked only when it wrote one of them: sixty sandboxes starting pods kept the
    # graders checking "label node1" steps fifty times a second, and a student's check waited
    # behind them. After the student acts, any change is checked (a wrong turn is an attempt).
    watched: frozenset[str] | None = None
    seen_watched = None
    chain = _Chain()
    # An action awaits its judgement (labs.outcome.work_out): when the sandbox last changed, and
    # how long it must stay unchanged.
    unsettled, quiet_from, last_news, settle = False, time.monotonic(), None, SETTLE_SECONDS
    try:
        while True:
            # A sandbox at work writes many times a second: its own control plane's writes are
            # checked at most once a BUSY_INTERVAL_SECONDS; after a request (the student acted)
            # the check runs at once.
            while activity.requested_at(cluster_name) < checked_at:
                rest = checked_at + BUSY_INTERVAL_SECONDS - time.monotonic()
                if rest <= 0:
                    break
                await waiter.wait(rest)  # the nudge of a student's write ends the wait
            while (rest := activity.write_under_way(cluster_name)) > 0:
                await waiter.wait(rest)  # the request's end (cluster/controlplane/middleware.py) nudges
            # Node heartbeats (Lease renewals) change nothing a lab checks: no evaluation for them.
            news = nudge.news_except(cluster_name, IGNORED_KINDS)
            if news != last_news:
                last_news, quiet_from = news, time.monotonic()
            revisions = nudge.revisions_by_kind(cluster_name)  # as of this check's start
            # Where requests reach other processes too (the scaled profile) this one cannot tell
            # who acted: every check is then a person's.
            acted = activity.requested_at(cluster_name) >= checked_at or not activity.announced()
            try:
                relevant = news if watched is None else nudge.news_of(revisions, watched)
                if news != seen and (acted or relevant != seen_watched):
                    checked_at = time.monotonic()
                    checked = await _check_once(student_id, acted, chain)
                    if not checked.present:
                        return
                    watched = checked.watched
                    relevant = news if watched is None else nudge.news_of(revisions, watched)
                    unsettled, settle = _awaits_judgement(checked, unsettled, settle)
                seen, seen_watched = news, relevant
                quiet = time.monotonic() - quiet_from
                if unsettled and quiet >= settle and not nudge.busy(cluster_name):
                    checked = await _check_once(student_id, False, chain, settled=True)
                    if not checked.present:
                        return
                    unsettled, settle = _awaits_judgement(checked, False, settle)
            except Exception:
                logger.exception("checking student %s failed; retrying", student_id)
            # The slow poll is a safety net for nudges lost between processes; the embedded
            # default loses none, so an idle class costs nothing there.
            timeout = None if activity.announced() else POLL_SECONDS
            if unsettled:
                rest = quiet_from + settle - time.monotonic()
                rest = rest if rest > 0 else BUSY_INTERVAL_SECONDS / 2  # settled but a component busy
                timeout = rest if timeout is None else min(timeout, rest)
            if not await waiter.wait(timeout) and not unsettled:
                seen = seen_watched = None  # the safety net's poll: evaluate whatever was announced
    finally:
        waiter.close()
        if _tasks.get(student_id) is asyncio.current_task():
            del _tasks[student_id]


def _awaits_judgement(checked: Checked, before: bool, settle: float) -> tuple[bool, float]:
    """Whether the student's current step holds an action not judged yet (as before when the
    check did not run), and the settle time of their sandbox's pace."""
    sandbox = checked.student.sandbox if checked.student is not None else None
    if sandbox is not None:
        settle = settle_seconds(sandbox.pace_ms)
    return (checked.evaluation.unsettled if checked.evaluation is not None else before), settle


def ensure(student_id: int, cluster_name: str) -> None:
    """Start the student's checking task in the running loop unless one runs already."""
    task = _tasks.get(student_id)
    loop = asyncio.get_running_loop()
    if task is not None and not task.done() and task.get_loop() is loop:
        return
    _tasks[student_id] = loop.create_task(_run(student_id, cluster_name), name=f"labs-grader-{student_id}")


async def stop_all() -> None:
    tasks = list(_tasks.values())
    _tasks.clear()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.gather(*list(_stores), return_exceptions=True)  # outcomes handed over are stored
