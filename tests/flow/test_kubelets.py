"""The teacher's node failure over HTTP: stop a node's kubelet, start it again (kubectl cannot),
and what a student, a bad body or an unknown node get."""

from __future__ import annotations

import pytest
from django.test import Client

from cluster.apiserver import service as api
from cluster.models import Cluster
from tests.support.demo import drive

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_teacher_stops_and_starts_a_kubelet(demo, client, fake_clock):
    drive()
    stopped = client.post("/clusters/demo/kubelets/node2", {"running": False}, "application/json")
    assert stopped.status_code == 200
    body = stopped.json()
    assert body["node"] == "node2" and body["running"] is False and list(body["stoppedKubelets"]) == ["node2"]
    assert Cluster.objects.get(name="demo").stopped_kubelets == body["stoppedKubelets"]
    assert client.get("/clusters/demo/kubelets").json() == {"stoppedKubelets": body["stoppedKubelets"]}
    snapshot = client.get("/clusters/demo/snapshot").json()
    assert snapshot["stopped_kubelets"] == body["stoppedKubelets"]
    moved = client.post("/clusters/demo/clock", {"seconds": 60}, "application/json")
    assert moved.status_code == 200
    drive()
    ready = {c["type"]: c["status"] for c in api.get(demo, "Node", "", "node2")["status"]["conditions"]}
    assert ready["Ready"] == "Unknown"
    started = client.post("/clusters/demo/kubelets/node2", {"running": True}, "application/json").json()
    assert started == {"node": "node2", "running": True, "stoppedKubelets": {}}
    drive()
    ready = {c["type"]: c["status"] for c in api.get(demo, "Node", "", "node2")["status"]["conditions"]}
    assert ready["Ready"] == "True"


def test_only_the_teacher_stops_a_kubelet_and_bad_requests_are_refused(demo, client):
    student = Client(enforce_csrf_checks=True)
    page = student.get("/clusters/demo/")
    csrf = {"X-CSRFToken": page.cookies["csrftoken"].value}
    client.post("/clusters/demo/policy", {"class_may_write": True}, "application/json")
    refused = student.post(
        "/clusters/demo/kubelets/node2", {"running": False}, "application/json", headers=csrf
    )
    assert refused.status_code == 403 and refused.json()["reason"] == "Forbidden"
    assert student.get("/clusters/demo/kubelets").json() == {"stoppedKubelets": {}}
    for body in ({}, {"running": "no"}, {"running": 0}):
        answer = client.post("/clusters/demo/kubelets/node2", body, "application/json")
        assert answer.status_code == 400 and answer.json()["kind"] == "Status", body
    missing = client.post("/clusters/demo/kubelets/node9", {"running": False}, "application/json")
    assert missing.status_code == 404 and missing.json()["message"] == 'nodes "node9" not found'
    assert Cluster.objects.get(name="demo").stopped_kubelets == {}
