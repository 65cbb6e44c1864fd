"""A control plane's batch transaction commits what it has when a request queues for the writer
gate, so the request writes next instead of after the whole batch; the rest of the batch follows."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from django.db import connection

from cluster.apiserver import service as api
from cluster.client import event_recorder
from cluster.kubelet.podwrites import PodWrites
from cluster.models import ApiObject, Cluster
from database.sqlite import writers

KUBECTL = api.Actor(client="kubectl", detail="test")
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.sqlite_only("the writer gate is SQLite's")]


def _namespace(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


class Request:
    """A student's write from another thread, started while the batch holds the gate; it queues as
    urgent, as a request thread's writes do."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.revision: int | None = None
        self.thread = threading.Thread(target=self._write)

    def _write(self) -> None:
        writers.mark_urgent()
        try:
            created = api.create(self.cluster, _namespace("student"), KUBECTL)
            self.revision = int(created["metadata"]["resourceVersion"])
        finally:
            connection.close()

    def start_and_wait_until_queued(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 5
        while not writers.urgent_waiting():
            assert time.monotonic() < deadline, "the request never queued for the gate"
            time.sleep(0.001)


def test_an_event_flush_stops_for_a_queued_request_and_writes_the_rest_in_the_next_flush(monkeypatch):
    cluster = Cluster.objects.create(name="yield-events")
    namespace = api.get(cluster, "Namespace", "", "default")
    for index in range(5):
        event_recorder.record(cluster, namespace, f"Reason{index}", "m", KUBECTL, component="kubelet")
    request = Request(cluster)
    create = api.create
    calls = 0

    def create_then_a_request_arrives(*args, **kwargs):
        nonlocal calls
        calls += 1
        created = create(*args, **kwargs)
        if calls == 1:
            request.start_and_wait_until_queued()
        return created

    monkeypatch.setattr(event_recorder.api, "create", create_then_a_request_arrives)
    first = event_recorder.flush("yield-events")
    monkeypatch.undo()
    request.thread.join(5)
    second = event_recorder.flush("yield-events")

    assert (first, second) == (1, 4)
    events = ApiObject.objects.filter(cluster=cluster, kind="Event")
    revisions = sorted(events.values_list("resource_version", flat=True))
    assert revisions[0] < request.revision < revisions[1]  # the request wrote between the two


def test_the_kubelets_status_batch_is_cut_for_a_queued_request_and_every_report_is_written_in_order():
    cluster = Cluster.objects.create(name="yield-status")
    request = Request(cluster)
    written: list[tuple[str, int]] = []

    def write_one(name: str) -> None:
        created = api.create(cluster, _namespace(name), KUBECTL)
        written.append((name, int(created["metadata"]["resourceVersion"])))
        if len(written) == 1:
            request.start_and_wait_until_queued()

    async def report_all() -> None:
        writer = PodWrites()
        await asyncio.gather(*(writer.write(write_one, f"pod-{index}") for index in range(4)))

    asyncio.run(report_all())
    request.thread.join(5)

    assert [name for name, _ in written] == ["pod-0", "pod-1", "pod-2", "pod-3"]
    assert written[0][1] < request.revision < written[1][1]
    assert not writers.GATE._held
