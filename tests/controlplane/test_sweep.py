"""The scale-out garbage collector sweeps after a write that can leave a dependent dangling, not
after node heartbeats or Events alone (cluster/controlplane/runtime.py `_sweep_due`)."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace

from cluster.broadcast import nudge
from cluster.controlplane import runtime


def _due(monkeypatch, cluster: str, *writes: tuple[int, str], fallback: float = 60.0) -> bool:
    monkeypatch.setattr(runtime, "SWEEP_SECONDS", 0.01)
    monkeypatch.setattr(runtime, "SWEEP_FALLBACK_SECONDS", fallback)
    plane = SimpleNamespace(cluster_name=cluster)

    async def run() -> bool:
        seen = nudge.news_except(cluster, runtime.SWEEP_IGNORES)
        waiting = asyncio.ensure_future(runtime.ControlPlane._sweep_due(plane, seen, time.monotonic()))
        for revision, kind in writes:
            nudge._remember(cluster, revision, (kind,))
        try:
            await asyncio.wait_for(asyncio.shield(waiting), 0.2)
            return True
        except TimeoutError:
            waiting.cancel()
            return False

    return asyncio.run(run())


def test_heartbeats_and_events_alone_do_not_start_a_sweep(monkeypatch):
    assert not _due(monkeypatch, "sweep-a", (5, "Lease"), (6, "Event"))


def test_a_write_of_another_kind_starts_one(monkeypatch):
    assert _due(monkeypatch, "sweep-b", (5, "Lease"), (7, "Pod"))


def test_a_sweep_comes_anyway_after_the_fallback(monkeypatch):
    assert _due(monkeypatch, "sweep-c", fallback=0.05)
