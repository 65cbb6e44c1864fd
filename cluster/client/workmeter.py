"""How much CPU each cluster's control plane costs this process: the database thread's CPU time
spent in its calls (every component's pass reads and writes there, and one such thread carries
every control plane of the process). Wall time would count the queue in front of that thread,
which grows with every other cluster's work; CPU time does not. The scale-out profile weighs
clusters by it when the processes share them out (cluster/controlplane/share.py)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar


class Meter:
    __slots__ = ("seconds",)

    def __init__(self) -> None:
        self.seconds = 0.0


_METER: ContextVar[Meter | None] = ContextVar("kubesim_work_meter", default=None)


@contextlib.contextmanager
def counting(meter: Meter | None) -> Iterator[None]:
    """Tasks created inside count their database calls' CPU time on `meter`."""
    token = _METER.set(meter)
    try:
        yield
    finally:
        _METER.reset(token)


def metered(function: Callable) -> Callable:
    """`function`, counting the calling thread's CPU time on the meter of the caller's context."""

    def call(*args, **kwargs):
        meter = _METER.get()
        if meter is None:
            return function(*args, **kwargs)
        began = time.thread_time()
        try:
            return function(*args, **kwargs)
        finally:
            meter.seconds += time.thread_time() - began

    return call
