"""The page's view of the snapshot (`?view=page`): pods as the dashboard draws them, a fraction of
the stored objects' bytes, with the same STATUS, requests and positions as the full snapshot."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async

from cluster.apiserver import service as api
from cluster.broadcast import podview
from cluster.controlplane import runtime
from cluster.models import Cluster
from tests.support.demo import KUBECTL, example
from tests.ws.test_cluster_socket import connect

pytestmark = pytest.mark.django_db(transaction=True)


def _settled(demo) -> None:
    async_to_sync(runtime.run_until_idle)("demo")
    api.create(demo, example("rc-nginx.yaml"), KUBECTL)
    pending = example("pod-nodeselector.yaml")  # no node has zz=cxk: stays Pending
    pending["metadata"]["labels"] = {"app": "alone"}  # not the RC's: it keeps its 3 pods
    api.create(demo, pending, KUBECTL)
    async_to_sync(runtime.run_until_idle)("demo")


def test_the_page_view_keeps_what_the_page_draws_and_drops_the_rest(demo, client):
    _settled(demo)
    full = client.get("/clusters/demo/snapshot").json()
    page = client.get("/clusters/demo/snapshot?view=page").json()
    assert (full["view"], page["view"]) == ("full", "page")
    for key in ("revision", "step_id", "pod_status", "pod_requests", "nodes", "workloads", "traces"):
        assert page[key] == full[key], key
    whole = {p["metadata"]["name"]: p for p in full["pods"]}
    drawn = {p["metadata"]["name"]: p for p in page["pods"]}
    assert drawn.keys() == whole.keys() and len(drawn) == 4
    for name, pod in drawn.items():
        stored = whole[name]
        assert pod["metadata"]["uid"] == stored["metadata"]["uid"]
        assert pod["metadata"]["resourceVersion"] == stored["metadata"]["resourceVersion"]
        assert pod["spec"].get("nodeName") == stored["spec"].get("nodeName")
        assert pod["status"]["phase"] == stored["status"]["phase"]
        assert "tolerations" not in pod["spec"] and "containerStatuses" not in pod["status"]
        if pod["status"]["phase"] == "Running":
            assert len(json.dumps(pod)) * 3 < len(json.dumps(stored))
    running = next(p for n, p in drawn.items() if n.startswith("nginx-"))
    assert running["metadata"]["ownerReferences"][0]["kind"] == "ReplicationController"
    assert running["status"]["podIP"] and "conditions" not in running["status"]
    # The Pending lane's reason: the unmet PodScheduled condition, message and all.
    (unmet,) = drawn["pod-example"]["status"]["conditions"]
    assert (unmet["type"], unmet["status"], unmet["reason"]) == ("PodScheduled", "False", "Unschedulable")
    assert unmet["message"].startswith("0/3 nodes are available:")


def test_the_page_view_of_a_past_revision(demo, client):
    _settled(demo)
    revision = Cluster.objects.get(pk=demo.pk).revision
    then = client.get(f"/clusters/demo/snapshot?revision={revision}&view=page").json()
    assert then["historical"] is True and then["view"] == "page"
    assert all("tolerations" not in p["spec"] for p in then["pods"]) and len(then["pods"]) == 4


def test_an_unknown_view_is_a_400_status(demo, client):
    answer = client.get("/clusters/demo/snapshot?view=everything")
    assert answer.status_code == 400
    status = answer.json()
    assert (status["kind"], status["reason"]) == ("Status", "BadRequest")
    assert "view must be one of full, page" in status["message"]


async def test_the_socket_sends_the_page_view_when_asked(demo):
    await runtime.run_until_idle("demo")
    await database_sync_to_async(api.create)(demo, example("rc-nginx.yaml"), KUBECTL)
    await runtime.run_until_idle("demo")
    communicator, first = await connect("/ws/clusters/demo/?view=page")
    try:
        assert first["view"] == "page" and len(first["pods"]) == 3
        assert all(p == podview.summary(p) for p in first["pods"])  # a summary is its own summary
        assert all("containerStatuses" not in p["status"] for p in first["pods"])
    finally:
        await communicator.disconnect()
    communicator, whole = await connect("/ws/clusters/demo/?view=nonsense")  # falls back to full
    try:
        assert whole["view"] == "full" and all("containerStatuses" in p["status"] for p in whole["pods"])
    finally:
        await communicator.disconnect()
