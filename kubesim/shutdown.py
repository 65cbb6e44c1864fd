"""Stopping within a deadline, whatever is running.

Python's own exit waits for every worker thread of every ThreadPoolExecutor to finish what it was
given, however long that takes: a request thread waiting out SQLite's 20 s busy timeout, or one
stuck in a long computation, kept `serve` alive, not answering, after Ctrl-C or SIGTERM. Here a
stop has a budget (`STOP_SECONDS`): the components stop and hand their leases back within part of
it, worker threads may finish their queued work while it lasts, and then the process ends without
waiting for the rest. Nothing is half-written by that: a transaction the process did not commit is
rolled back by the database (SQLite's journal, PostgreSQL's dropped connection).

A backstop (faulthandler's watchdog, a C thread that needs no interpreter lock) ends the process
with the stacks of every thread on stderr if even that does not happen in time.
"""

from __future__ import annotations

import faulthandler
import os
import signal
import sys
import time
from concurrent.futures import thread as executor_threads
from typing import NoReturn

STOP_SECONDS = 5.0
BACKSTOP_SECONDS = STOP_SECONDS - 0.5  # the watchdog: well inside the promise
COMPONENTS_SECONDS = 2.5  # the control planes' share: stop, hand the leases back
DRAIN_SECONDS = 1.0  # then worker threads' share: finish the work queued to them

_deadline: float | None = None


def begin() -> None:
    """A stop has begun (a signal, or the server's shutdown): start the clock and arm the backstop."""
    global _deadline
    if _deadline is None:
        _deadline = time.monotonic() + BACKSTOP_SECONDS
        faulthandler.dump_traceback_later(BACKSTOP_SECONDS, exit=True)
        from cluster.shell import limits

        limits.stop_all()  # commands running in containers end at their next step


def left(share: float | None = None) -> float:
    """Seconds left of the stop (at most `share`); the whole budget before it has begun."""
    remaining = BACKSTOP_SECONDS if _deadline is None else max(0.0, _deadline - time.monotonic())
    return remaining if share is None else min(share, remaining)


def on_signals(*signums: int) -> None:
    """Start the clock the moment a stop signal arrives, then let the handler already installed
    for it (Twisted's, asyncio's) do its work: a stop the event loop is too busy to begin still
    ends in time."""
    for signum in signums:
        previous = signal.getsignal(signum)

        def handler(number, frame, previous=previous):
            begin()
            if callable(previous):
                previous(number, frame)
            elif previous == signal.SIG_DFL:
                raise SystemExit(128 + number)

        signal.signal(signum, handler)


def finish(code: int = 0) -> NoReturn:
    """End the process: worker threads finish their queued work for DRAIN_SECONDS at most (Python's
    exit would wait for them without a limit), then the process exits without the rest."""
    begin()
    with executor_threads._global_shutdown_lock:
        executor_threads._shutdown = True  # no new work; idle workers leave at the None below
    workers = list(executor_threads._threads_queues.items())
    drained_by = time.monotonic() + left(DRAIN_SECONDS)
    for _thread, queue in workers:
        queue.put(None)
    for thread, _queue in workers:
        thread.join(max(0.0, drained_by - time.monotonic()))
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(code)
