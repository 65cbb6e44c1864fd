"""ControlPlane.stop(): a cancellation of its own caller still ends that caller, and what the
plane holds is given back all the same."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async

from cluster.controlplane import runtime
from cluster.controlplane.demo import create_demo
from cluster.flow import watches

pytestmark = pytest.mark.django_db(transaction=True)


async def _lingering() -> None:
    """A task that takes a while to end once cancelled, as one finishing a database trip does."""
    try:
        await asyncio.sleep(3600)
    except asyncio.CancelledError:
        await asyncio.sleep(0.3)
        raise


@pytest.mark.parametrize("phase", ["explaining", "ending tasks"])
async def test_a_cancelled_stop_ends_its_caller_cancelled_and_still_releases_the_plane(phase, monkeypatch):
    await database_sync_to_async(create_demo)("stop-me", 0)
    plane = runtime.ControlPlane("stop-me")
    if phase == "explaining":
        monkeypatch.setattr(plane.scheduler.explainer, "explain_all", lambda: asyncio.sleep(3600))
    plane.start()
    plane.tasks.append(asyncio.create_task(_lingering()))
    await asyncio.sleep(0.1)
    tasks = list(plane.tasks)
    assert watches.open_watches("stop-me")

    caller = asyncio.create_task(plane.stop())
    await asyncio.sleep(0.1)  # stop() now waits in its phase
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller

    assert caller.cancelled()
    assert all(task.done() for task in tasks)
    assert plane.tasks == [] and not plane.listening
    assert not watches.open_watches("stop-me")
