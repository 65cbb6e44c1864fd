"""A write request's end is noted once its writes are committed (cluster/controlplane/middleware.py): the lab
grader, which checks at once when a person acts, checks again if it began while they were being
written. Reads are not acting."""

from __future__ import annotations

import asyncio
import time

import pytest
from asgiref.sync import async_to_sync

from cluster.broadcast import nudge
from cluster.controlplane import activity
from cluster.models import ApiObject
from tests.support.demo import demo  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)

POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "acted"},
    "spec": {"containers": [{"name": "web", "image": "nginx:1.15"}]},
}


def test_a_write_requests_end_is_noted_after_its_commit_and_wakes_the_nudge_waiters(demo, teacher_client):  # noqa: F811
    def write() -> float:
        before = time.monotonic()
        answer = teacher_client.post("/clusters/demo/api/v1/namespaces/default/pods", POD, "application/json")
        assert answer.status_code == 201
        # Committed before the end is noted: the pod is there.
        assert ApiObject.objects.filter(cluster=demo, kind="Pod", name="acted").exists()
        return before

    async def write_while_waiting() -> tuple[float, bool]:
        waiter = nudge.NUDGES.subscribe("demo")
        try:
            before = await asyncio.to_thread(write)
            return before, await waiter.wait(1.0)
        finally:
            waiter.close()

    before, woken = async_to_sync(write_while_waiting)()
    assert woken
    assert activity._acted["demo"] > before
    assert activity.requested_at("demo") == activity._acted["demo"]


def test_a_read_is_not_acting(demo, teacher_client):  # noqa: F811
    activity._acted.pop("demo", None)
    assert teacher_client.get("/clusters/demo/api/v1/namespaces/default/pods").status_code == 200
    assert "demo" not in activity._acted
