"""Who writes next: one queue for the process's SQLite writers, requests first.

SQLite takes one writer at a time. A transaction that finds the write lock taken waits in SQLite's
busy handler, which sleeps in growing steps (1, 2, 5, 10 … 100 ms) and retries: with sixty
sandboxes' control planes committing small transactions one after another, a student's request
lost that race again and again and waited seconds for a lock that was free most of the time.
Here every transaction of this process (IMMEDIATE: it takes the lock at BEGIN) first takes this
gate instead: a waiter is woken the moment the holder commits, and writers go in the order of
their thread's turn: requests (someone waits on the wire) first, then the lab grader's stores (a
person's outcome, already shown on their panel), then the control planes' work. The gate is per
process: another process's writers (a management command) still meet SQLite's busy timeout.
"""

from __future__ import annotations

import contextlib
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from django.db import transaction

from database.sqlite import memo

T = TypeVar("T")

# A writer that waited this long goes on without the gate (SQLite's busy timeout still applies):
# a transaction left open elsewhere (a test's) must not hang this thread forever.
MAX_WAIT_SECONDS = 20.0

# A thread's turn at the gate, highest first.
REQUEST = 2  # a request's thread: someone waits on the wire for its answer
PERSON = 1  # the lab grader's stores: a person's outcome, shown before it is stored
BACKGROUND = 0  # the control planes' work

_local = threading.local()


class Gate:
    """One holder at a time; waiters queue in one FIFO per turn (REQUEST first) and the holder
    hands the gate straight to the next one (no herd of woken threads racing for it)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held = False
        self._queues: tuple[deque[threading.Event], ...] = tuple(deque() for _ in range(REQUEST + 1))

    def acquire(self, priority: int) -> bool:
        """Wait for our turn (REQUEST, PERSON or BACKGROUND); True when we hold the gate (False:
        waited too long, go on)."""
        queue = self._queues[priority]
        with self._lock:
            if not self._held and not any(self._queues[priority:]):
                self._held = True
                return True
            turn = threading.Event()
            queue.append(turn)
        if turn.wait(MAX_WAIT_SECONDS):
            return True
        with self._lock:
            if turn.is_set():  # handed to us just now
                return True
            queue.remove(turn)
        return False

    def waiting_before(self, priority: int) -> bool:
        """A writer whose turn comes before a writer of `priority` queues."""
        return any(self._queues[priority + 1 :])

    def release(self) -> None:
        with self._lock:
            queue = next((queue for queue in reversed(self._queues) if queue), None)
            if queue is not None:
                queue.popleft().set()  # still held: by the next in line now
            else:
                self._held = False


GATE = Gate()


def urgent_waiting() -> bool:
    """A writer whose turn comes before this thread's queues at the gate (a request, for the lab
    grader; a request or the grader, for a control plane). A batch transaction then commits what
    it has and queues again behind it, so a student's write waits for one item of the batch
    rather than for all of it."""
    return GATE.waiting_before(turn())


def write_in_turns(items: Sequence[T], write: Callable[[T], object]) -> int:
    """write(item) for the items in order, in one transaction that ends early (after one item at
    least) when a writer whose turn comes first queues for the gate; how many were written. The
    caller writes the rest later: its next transaction queues behind that one."""
    written = 0
    with memo.batch(), transaction.atomic():
        for item in items:
            write(item)
            written += 1
            if urgent_waiting():
                break
    return written


@contextlib.contextmanager
def one_statement() -> Iterator[None]:
    """A turn at the gate for one write statement outside a transaction (SQLite's autocommit)."""
    held = GATE.acquire(turn())
    try:
        yield
    finally:
        if held:
            GATE.release()


def turn() -> int:
    """This thread's turn at the gate (REQUEST, PERSON or BACKGROUND)."""
    return getattr(_local, "turn", BACKGROUND)


def mark_urgent() -> None:
    """This thread's writes go first from now on (a request thread pool's initializer)."""
    _local.turn = REQUEST


@contextlib.contextmanager
def turn_of(wanted: int) -> Iterator[None]:
    """This thread's writes take at least the `wanted` turn for the duration."""
    before = turn()
    _local.turn = max(before, wanted)
    try:
        yield
    finally:
        _local.turn = before


def urgent() -> contextlib.AbstractContextManager[None]:
    """This thread's writes go first for the duration (someone waits on the wire for them)."""
    return turn_of(REQUEST)
