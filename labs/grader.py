"""Automatic checking: one small task per student that re-evaluates on each sandbox nudge.

The task waits on the cluster's nudges (cluster.broadcast.NUDGES, fired after every committed
write) and, with a slow poll as a safety net where nudges cross processes, calls
`progress.evaluate`, which is a no-op when the revision did not move. Tasks are started by the
student's and the instructor's websockets, so a class that nobody watches costs nothing.
"""

from __future__ import annotations

import asyncio
import logging
import time

from channels.db import database_sync_to_async

from cluster import activity, broadcast
from labs.models import Student
from labs.progress import evaluate_watching

logger = logging.getLogger(__name__)
POLL_SECONDS = 5.0
IGNORED_KINDS = ("Lease",)
BUSY_INTERVAL_SECONDS = 1.0
_tasks: dict[int, asyncio.Task] = {}


# Not thread-sensitive: checking reads (WAL readers do not block) must not queue behind the
# control planes' work on the one thread-sensitive executor.
def _evaluate_sync(student_id: int) -> tuple[bool, frozenset[str] | None]:
    """(the student still has a sandbox, the kinds its current step reads: see evaluate_watching)."""
    student = Student.objects.select_related("session__lab", "sandbox").filter(pk=student_id).first()
    if student is None or student.sandbox is None:
        return False, None
    return True, evaluate_watching(student)[1]


_evaluate = database_sync_to_async(_evaluate_sync, thread_sensitive=False)


async def _run(student_id: int, cluster_name: str) -> None:
    waiter = broadcast.NUDGES.subscribe(cluster_name)
    seen, checked_at = None, 0.0
    # The kinds the current step's checks read (None: any change may matter). The sandbox's own
    # churn is checked only when it wrote one of them: sixty sandboxes starting pods kept the
    # graders checking "label node1" steps fifty times a second, and a student's check waited
    # behind them. After the student acts, any change is checked (a wrong turn is an attempt).
    watched: frozenset[str] | None = None
    seen_watched = None
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
            # Node heartbeats (Lease renewals) change nothing a lab checks: no evaluation for them.
            news = broadcast.news_except(cluster_name, IGNORED_KINDS)
            revisions = broadcast.revisions_by_kind(cluster_name)  # as of this check's start
            acted = activity.requested_at(cluster_name) >= checked_at
            try:
                relevant = news if watched is None else broadcast.news_of(revisions, watched)
                if news != seen and (acted or relevant != seen_watched):
                    checked_at = time.monotonic()
                    present, watched = await _evaluate(student_id)
                    if not present:
                        return
                    relevant = news if watched is None else broadcast.news_of(revisions, watched)
                seen, seen_watched = news, relevant
            except Exception:
                logger.exception("checking student %s failed; retrying", student_id)
            # The slow poll is a safety net for nudges lost between processes; the embedded
            # default loses none, so an idle class costs nothing there.
            if not await waiter.wait(None if activity.announced() else POLL_SECONDS):
                seen = seen_watched = None  # the safety net's poll: evaluate whatever was announced
    finally:
        waiter.close()
        if _tasks.get(student_id) is asyncio.current_task():
            del _tasks[student_id]


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
