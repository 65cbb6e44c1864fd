"""The wall clock the simulated cluster reads, injectable so that tests move time instead of
sleeping (a timestamp one second later, a back-off that has expired).

A cluster's own clock may run ahead of the process's: a teacher who jumps a cluster to its next
CronJob schedule moves that cluster's time, and only that cluster's. The code that acts for one
cluster (its control plane's tasks, a request that named it) runs with that cluster's `Shift` in
its context (`shifted`), and every `now()` and `monotonic()` read there is shifted by it:
timestamps, ages and timers agree with each other inside the cluster.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime, timedelta


class Clock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    def monotonic(self) -> float:
        return time.monotonic()


class FakeClock(Clock):
    """A clock that moves only when told to (tests)."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime.now(UTC)
        self._monotonic = time.monotonic()

    def now(self) -> datetime:
        return self._now

    def monotonic(self) -> float:
        return self._monotonic

    def advance(self, seconds: float) -> None:
        self._now += timedelta(seconds=seconds)
        self._monotonic += seconds


class Shift:
    """How many seconds one cluster's clock runs ahead of the process clock (changed in place:
    the contexts that carry it see a jump at once)."""

    __slots__ = ("seconds",)

    def __init__(self, seconds: float = 0.0) -> None:
        self.seconds = seconds


_clock: Clock = Clock()
_shift: ContextVar[Shift | None] = ContextVar("kubesim_clock_shift", default=None)


def now() -> datetime:
    shift = _shift.get()
    if shift is None or not shift.seconds:
        return _clock.now()
    return _clock.now() + timedelta(seconds=shift.seconds)


def monotonic() -> float:
    shift = _shift.get()
    return _clock.monotonic() + (shift.seconds if shift is not None else 0.0)


def current_shift() -> Shift | None:
    """The shift the current context reads time with (None: the process clock)."""
    return _shift.get()


def enter(shift: Shift | None) -> None:
    """Read time with `shift` from now on, in this context (a request, once it knows its cluster)."""
    _shift.set(shift)


@contextmanager
def shifted(shift: Shift | None) -> Iterator[None]:
    """Read time with `shift` inside the block (and in the tasks it creates, which copy the context)."""
    token = _shift.set(shift)
    try:
        yield
    finally:
        _shift.reset(token)


def use(clock: Clock) -> Clock:
    """Read `clock` from now on; returns the clock it replaces."""
    global _clock
    previous, _clock = _clock, clock
    return previous
