"""cluster.controlplane.lull: work that can wait (Events, explanations) waits for the control plane to be idle
a moment, woken by its changes between at work and idle rather than by a poll."""

from __future__ import annotations

import asyncio
import time

from cluster.broadcast import nudge
from cluster.controlplane.lull import lull


def test_an_idle_control_plane_is_a_lull_after_the_quiet_time():
    async def scenario() -> tuple[bool, float]:
        begin = time.monotonic()
        found = await lull("lull-idle", begin + 1.0, quiet=0.05)
        return found, time.monotonic() - begin

    found, took = asyncio.run(scenario())
    assert found and 0.05 <= took < 0.5


def test_the_lull_starts_when_the_work_ends_and_restarts_if_work_comes_back():
    async def scenario() -> tuple[bool, float]:
        async def work(start: float, seconds: float) -> None:
            await asyncio.sleep(start)
            with nudge.working("lull-busy"):
                await asyncio.sleep(seconds)

        begin = time.monotonic()
        first = asyncio.create_task(work(0.0, 0.15))
        second = asyncio.create_task(work(0.18, 0.1))  # back within the quiet time
        await asyncio.sleep(0.01)
        found = await lull("lull-busy", begin + 2.0, quiet=0.05)
        took = time.monotonic() - begin
        await asyncio.gather(first, second)
        return found, took

    found, took = asyncio.run(scenario())
    assert found and 0.28 + 0.05 <= took < 1.0


def test_work_waiting_at_the_flows_gate_is_not_at_work_and_a_busy_plane_ends_at_the_deadline():
    async def scenario() -> tuple[bool, bool, float]:
        with nudge.working("lull-gate"), nudge.waiting("lull-gate"):
            at_the_gate = await lull("lull-gate", time.monotonic() + 1.0, quiet=0.02)
        begin = time.monotonic()
        with nudge.working("lull-gate"):
            busy = await lull("lull-gate", begin + 0.1, quiet=0.02)
        return at_the_gate, busy, time.monotonic() - begin

    at_the_gate, busy, took = asyncio.run(scenario())
    assert at_the_gate and not busy and 0.1 <= took < 0.5
    assert "lull-gate" not in nudge._changes  # no waiter left behind
