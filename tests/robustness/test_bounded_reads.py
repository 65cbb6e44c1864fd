"""Anonymous snapshot and list reads are rate-limited per address and served from one shared,
revision-keyed build: a hundred readers at once cost the server one snapshot, not a hundred."""

from __future__ import annotations

import http.client
import json
import threading
from pathlib import Path

import pytest
from django.test import Client

from bench.hostile.bodies import valid
from bench.hostile.client import Client as HttpClient
from cluster.flow import snapshotcache
from cluster.models import Cluster
from tests.scaleout.support import free_port

PODS = "/clusters/demo/api/v1/namespaces/default/pods"


@pytest.fixture
def demo(db) -> Cluster:
    snapshotcache.clear()
    return Cluster.objects.create(name="demo")


def status_of(response, code: int) -> dict:
    assert response.status_code == code, response.content[:300]
    body = json.loads(response.content)
    assert body["kind"] == "Status" and body["code"] == code
    return body


@pytest.mark.django_db
def test_anonymous_snapshot_and_list_reads_are_limited_per_address(demo, teacher_client, settings):
    settings.KUBESIM_ANONYMOUS_READS_PER_MINUTE = 3
    visitor = Client()
    assert visitor.get("/clusters/demo/snapshot").status_code == 200
    assert visitor.get(PODS).status_code == 200
    assert visitor.get("/clusters/demo/snapshot?view=page").status_code == 200
    refused = visitor.get("/clusters/demo/snapshot")
    body = status_of(refused, 429)
    assert body["reason"] == "TooManyRequests" and int(refused["Retry-After"]) >= 1
    status_of(visitor.get(PODS), 429)
    status_of(Client().get(PODS), 429)  # a new cookie from the same address
    assert Client(REMOTE_ADDR="10.0.0.7").get(PODS).status_code == 200  # another address
    assert teacher_client.get("/clusters/demo/snapshot").status_code == 200  # signed in: not limited
    assert visitor.get(PODS + "/nope").status_code == 404  # one object's read is not a list
    settings.KUBESIM_SHARED_ADDRESSES = ["127.0.0.1"]  # a NAT the class shares
    assert visitor.get("/clusters/demo/snapshot").status_code == 200


@pytest.mark.django_db
def test_a_snapshot_is_built_once_per_revision_and_state(demo, teacher_client):
    before = dict(snapshotcache.builds)
    first = Client().get("/clusters/demo/snapshot").content
    second = Client().get("/clusters/demo/snapshot").content
    assert first == second
    assert snapshotcache.builds["objects"] - before["objects"] == 1
    assert snapshotcache.builds["bodies"] - before["bodies"] == 1
    created = teacher_client.post(PODS, json.dumps(valid("Pod", "p")), content_type="application/json")
    assert created.status_code == 201
    third = json.loads(Client().get("/clusters/demo/snapshot").content)
    assert [pod["metadata"]["name"] for pod in third["pods"]] == ["p"]
    assert third["revision"] == Cluster.objects.get(name="demo").revision
    assert snapshotcache.builds["objects"] - before["objects"] == 2
    # The page's view is a key of its own; a changed setting rebuilds the body, not the objects.
    Client().get("/clusters/demo/snapshot?view=page")
    assert snapshotcache.builds["objects"] - before["objects"] == 3
    Cluster.objects.filter(name="demo").update(pace_ms=123)
    again = json.loads(Client().get("/clusters/demo/snapshot").content)
    assert again["pace_ms"] == 123 and len(again["pods"]) == 1
    assert snapshotcache.builds["objects"] - before["objects"] == 3


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_100_concurrent_anonymous_snapshots_keep_the_servers_memory_flat(embedded):
    embedded.env["KUBESIM_ANONYMOUS_READS_PER_MINUTE"] = "1000"  # this test is about the cache
    port = free_port()
    server = embedded.serve(port)
    teacher = HttpClient(f"http://127.0.0.1:{port}")
    assert teacher.allow_pods(1000).status == 200
    annotation = {"note": "x" * 8_000}  # 300 pods of ~9 kB: a snapshot of ~2.7 MB, as 1,000 pods
    for i in range(300):
        pod = valid("Pod", f"p{i}")
        pod["metadata"]["annotations"] = annotation
        assert teacher.create(pod).status == 201
    visitor = HttpClient(f"http://127.0.0.1:{port}", token="")
    warm = visitor.request("GET", "/clusters/demo/snapshot")
    assert warm.status == 200 and len(warm.body) > 2_600_000
    before = rss_kib(server.pid)
    answers: list[int] = []

    def read() -> None:  # as a browser asks: gzip accepted
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        connection.request("GET", "/clusters/demo/snapshot", headers={"Accept-Encoding": "gzip"})
        response = connection.getresponse()
        response.read()
        answers.append(response.status)
        connection.close()

    threads = [threading.Thread(target=read) for _ in range(100)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    grown = (rss_kib(server.pid) - before) / 1024
    assert answers == [200] * 100
    assert grown < 50, f"the server grew by {grown:.0f} MB"
