"""The embedded default: idle clusters cost nothing, and a parked one wakes on the next write."""

from __future__ import annotations

import asyncio
import time

import pytest
from channels.db import database_sync_to_async

from cluster.apiserver import service as api
from cluster.client import leader
from cluster.controlplane import activity, runtime
from cluster.controlplane.demo import create_demo
from cluster.models import ApiObject, Cluster

pytestmark = pytest.mark.django_db(transaction=True)
KUBECTL = api.Actor(client="kubectl", detail="test")
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {"containers": [{"name": "web", "image": "nginx:1.15"}]},
}


async def until(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not await database_sync_to_async(condition)():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


def revision(name: str) -> int:
    return Cluster.objects.get(name=name).revision


def pod(name: str) -> dict:
    return ApiObject.objects.get(cluster__name=name, kind="Pod", name="web").body


@pytest.fixture
def quick(settings, monkeypatch):
    settings.KUBESIM_PARK_AFTER_SECONDS = 1.0
    monkeypatch.setattr(activity, "QUIET_SECONDS", 0.3)
    yield
    activity.forget("lab-idle")


async def test_a_parked_sandbox_wakes_on_a_write_and_schedules_the_pod(quick):
    await database_sync_to_async(create_demo)("lab-idle", 0)
    supervisor = asyncio.create_task(runtime.supervise(interval=0.1, identity="me_serve", elect=False))
    try:
        await until(lambda: "lab-idle" in runtime._running, 10, "the control plane to start")
        lease = await database_sync_to_async(lambda: leader.current(Cluster.objects.get(name="lab-idle")))()
        assert lease["holder"] == "me_serve"
        # Nobody acts: it parks, and from then on nothing is written.
        await until(lambda: "lab-idle" not in runtime._running, 15, "the control plane to park")
        parked_at = await database_sync_to_async(revision)("lab-idle")
        await asyncio.sleep(1.5)
        assert await database_sync_to_async(revision)("lab-idle") == parked_at
        assert "lab-idle" not in runtime._running

        # A student's write wakes it; the pod is scheduled and started as ever.
        await database_sync_to_async(api.create)(
            await database_sync_to_async(Cluster.objects.get)(name="lab-idle"), dict(POD), KUBECTL
        )
        await until(lambda: pod("lab-idle")["status"].get("phase") == "Running", 15, "the pod to run")
        running = await database_sync_to_async(pod)("lab-idle")
        assert running["spec"]["nodeName"] in ("node1", "node2")
        # The Lease was written once, when the process first ran the control plane.
        lease = await database_sync_to_async(lambda: leader.current(Cluster.objects.get(name="lab-idle")))()
        assert lease["holder"] == "me_serve" and lease["transitions"] == 0
    finally:
        supervisor.cancel()
        await asyncio.gather(supervisor, return_exceptions=True)
    assert "lab-idle" not in runtime._running


async def test_an_idle_running_control_plane_writes_no_heartbeats(quick, settings):
    settings.KUBESIM_PARK_AFTER_SECONDS = 3600.0  # never parks here: only its heartbeats pause
    await database_sync_to_async(create_demo)("lab-idle", 0)
    supervisor = asyncio.create_task(runtime.supervise(interval=0.1, identity="me_serve", elect=False))
    try:
        await until(lambda: "lab-idle" in runtime._running, 10, "the control plane to start")
        await asyncio.sleep(1.0)  # the kubelets register and renew once; then nobody acts
        before = await database_sync_to_async(revision)("lab-idle")
        await asyncio.sleep(1.5)
        assert await database_sync_to_async(revision)("lab-idle") == before
        assert "lab-idle" in runtime._running
    finally:
        supervisor.cancel()
        await asyncio.gather(supervisor, return_exceptions=True)
