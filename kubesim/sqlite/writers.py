"""Who writes next: one queue for the process's SQLite writers, requests first.

SQLite takes one writer at a time. A transaction that finds the write lock taken waits in SQLite's
busy handler, which sleeps in growing steps (1, 2, 5, 10 … 100 ms) and retries: with sixty
sandboxes' control planes committing small transactions one after another, a student's request
lost that race again and again and waited seconds for a lock that was free most of the time.
Here every transaction of this process (IMMEDIATE: it takes the lock at BEGIN) first takes this
gate instead: a waiter is woken the moment the holder commits, and threads marked urgent (request
threads, the lab grader) go before the control planes' work. The gate is per process: another
process's writers (a management command) still meet SQLite's busy timeout, as before.
"""

from __future__ import annotations

import contextlib
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from django.db import transaction

from kubesim.sqlite import memo

T = TypeVar("T")

# A writer that waited this long goes on without the gate (SQLite's busy timeout still applies):
# a transaction left open elsewhere (a test's) must not hang this thread forever.
MAX_WAIT_SECONDS = 20.0

_local = threading.local()


class Gate:
    """One holder at a time; waiters queue in two FIFOs (urgent first) and the holder hands the
    gate straight to the next one (no herd of woken threads racing for it)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held = False
        self._urgent: deque[threading.Event] = deque()
        self._normal: deque[threading.Event] = deque()

    def acquire(self, urgent: bool) -> bool:
        """Wait for our turn; True when we hold the gate (False: waited too long, go on)."""
        queue = self._urgent if urgent else self._normal
        with self._lock:
            if not self._held and not self._urgent and (urgent or not self._normal):
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

    def urgent_waiting(self) -> bool:
        return bool(self._urgent)

    def release(self) -> None:
        with self._lock:
            queue = self._urgent or self._normal
            if queue:
                queue.popleft().set()  # still held: by the next in line now
            else:
                self._held = False


GATE = Gate()


def urgent_waiting() -> bool:
    """An urgent writer (a request, the lab grader: a person waits for it) queues at the gate. A
    control plane's batch transaction then commits what it has and queues again behind it, so a
    student's write waits for one item of the batch rather than for all of it."""
    return GATE.urgent_waiting()


def write_in_turns(items: Sequence[T], write: Callable[[T], object]) -> int:
    """write(item) for the items in order, in one transaction that ends early (after one item at
    least) when an urgent writer queues for the gate; how many were written. The caller writes
    the rest later: its next transaction queues behind the urgent one."""
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
    held = GATE.acquire(is_urgent())
    try:
        yield
    finally:
        if held:
            GATE.release()


def is_urgent() -> bool:
    return getattr(_local, "urgent", 0) > 0


def mark_urgent() -> None:
    """This thread's writes go first from now on (a ThreadPoolExecutor initializer)."""
    _local.urgent = 1


@contextlib.contextmanager
def urgent() -> Iterator[None]:
    """This thread's writes go first for the duration (someone waits for them)."""
    _local.urgent = getattr(_local, "urgent", 0) + 1
    try:
        yield
    finally:
        _local.urgent -= 1
