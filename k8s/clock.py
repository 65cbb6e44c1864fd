"""The wall clock the simulated cluster reads, injectable so that tests move time instead of
sleeping (a timestamp one second later, a back-off that has expired)."""

from __future__ import annotations

import time
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


_clock: Clock = Clock()


def now() -> datetime:
    return _clock.now()


def monotonic() -> float:
    return _clock.monotonic()


def use(clock: Clock) -> Clock:
    """Read `clock` from now on; returns the clock it replaces."""
    global _clock
    previous, _clock = _clock, clock
    return previous
