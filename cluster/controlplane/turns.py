"""Requests before the control planes' work, in the one process that serves both.

A student's request and sixty control planes share one process: while the request runs, every
control plane call that starts competes with it for the GIL (and the SQLite writer gate), so a
request that needs 10 ms of work took hundreds. Here the serving loop counts the requests that are
in their thread (kubesim/handler.py), and a control-plane database call waits, before it starts,
until none is, at most MAX_WAIT_SECONDS (so a steady stream of requests slows the control planes
but never stops them). Event-loop code only.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref

MAX_WAIT_SECONDS = 0.05

_in_flight = 0
# One "no request in flight" event per event loop (tests run several loops in turn).
_quiet: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Event] = weakref.WeakKeyDictionary()


def request_started() -> None:
    global _in_flight
    _in_flight += 1
    for quiet in _quiet.values():
        quiet.clear()


def request_ended() -> None:
    global _in_flight
    _in_flight = max(0, _in_flight - 1)
    if _in_flight == 0:
        for quiet in _quiet.values():
            quiet.set()


async def after_requests() -> None:
    """Wait until no request is in its thread (at most MAX_WAIT_SECONDS)."""
    if _in_flight == 0:
        return
    loop = asyncio.get_running_loop()
    quiet = _quiet.get(loop)
    if quiet is None:
        quiet = _quiet[loop] = asyncio.Event()
    with contextlib.suppress(TimeoutError):
        # Not wait_for, which loses a cancellation that comes as the event is set (Python 3.11).
        async with asyncio.timeout(MAX_WAIT_SECONDS):
            await quiet.wait()
