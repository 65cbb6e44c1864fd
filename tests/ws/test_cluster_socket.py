from __future__ import annotations

import asyncio
import gzip
import json

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from cluster.apiserver import service as api
from cluster.controlplane import runtime
from cluster.flow import snapshot
from kubesim.asgi import application
from tests.support.auth import teacher_ws_headers
from tests.support.demo import KUBECTL, example

pytestmark = pytest.mark.django_db(transaction=True)
ORIGIN = [(b"origin", b"http://127.0.0.1:8000"), (b"host", b"127.0.0.1:8000")]


async def connect(path: str = "/ws/clusters/demo/") -> tuple[WebsocketCommunicator, dict]:
    """A socket as the teacher's page (it drives the flow): same origin, the teacher's token."""
    communicator = WebsocketCommunicator(application, path, headers=ORIGIN + teacher_ws_headers())
    connected, _ = await communicator.connect()
    assert connected
    first = await communicator.receive_json_from(timeout=5)
    assert first["type"] == "snapshot"
    return communicator, first


async def drain(communicator: WebsocketCommunicator) -> list[dict]:
    """Every message until the socket has been quiet for a moment (receive_nothing never cancels)."""
    messages = []
    while not await communicator.receive_nothing(timeout=0.4):
        messages.append(await communicator.receive_json_from(timeout=5))
    return messages


async def create(cluster, obj: dict) -> dict:
    return await database_sync_to_async(api.create)(cluster, obj, KUBECTL)


def steps_of(messages: list[dict], trace: str | None = None) -> list[dict]:
    return [m for m in messages if m["type"] == "flow.step" and (trace is None or m["trace"] == trace)]


async def test_the_13_steps_arrive_in_order_for_an_rc_with_two_replicas(demo):
    await runtime.run_until_idle("demo")
    communicator, _ = await connect()
    try:
        rc = example("rc-nginx.yaml")
        rc["spec"]["replicas"] = 2
        await create(demo, rc)
        await runtime.run_until_idle("demo")
        steps = steps_of(await drain(communicator))
        assert [s["step"] for s in steps[:6]] == [1, 2, 3, 4, 5, 6]
        assert all(not s["skipped"] for s in steps)
        assert {s["trace"] for s in steps} == {steps[0]["trace"]}
        assert [s["seq"] for s in steps] == list(range(1, len(steps) + 1))
        pods = {s["object"]["name"] for s in steps[6:]}
        assert len(pods) == 2
        for pod in pods:
            assert [s["step"] for s in steps if s["object"]["name"] == pod] == list(range(7, 14))
        kubelet_steps = [s for s in steps if s["actor"] == "kubelet"]
        assert kubelet_steps and all(s["node"] for s in kubelet_steps)
        assert steps[1]["actor"] == "kubectl" and "kubectl/v1.33.1" in steps[1]["detail"]["en"]
        assert "8080" in steps[4]["detail"]["en"] and "6443" in kubelet_steps[0]["detail"]["en"]
        assert steps[0]["title"]["zh"] and steps[0]["detail"]["zh"]
    finally:
        await communicator.disconnect()


async def test_the_13_steps_arrive_in_order_for_a_bare_pod(demo):
    await runtime.run_until_idle("demo")
    communicator, _ = await connect()
    try:
        await create(
            demo, example("pod-nodeselector-zz.yaml") | {"spec": example("pod-nodename.yaml")["spec"]}
        )
        await runtime.run_until_idle("demo")
        steps = steps_of(await drain(communicator))
        assert [s["step"] for s in steps] == list(range(1, 14))
        assert [s["step"] for s in steps if s["skipped"]] == [5, 6, 7, 8, 9, 10, 11]
        assert "no controller" in steps[4]["detail"]["en"]
    finally:
        await communicator.disconnect()


async def test_a_scheduled_bare_pod_shows_the_scheduler_steps(demo):
    await runtime.run_until_idle("demo")
    communicator, _ = await connect()
    try:
        pod = example("pod-nodename.yaml")
        del pod["spec"]["nodeName"]
        await create(demo, pod)
        await runtime.run_until_idle("demo")
        steps = steps_of(await drain(communicator))
        assert [s["step"] for s in steps] == list(range(1, 14))
        assert [s["step"] for s in steps if s["skipped"]] == [5, 6, 7, 8]
        assert steps[8]["actor"] == "scheduler" and steps[8]["node"] in ("node1", "node2")
    finally:
        await communicator.disconnect()


def comparable(state: dict) -> dict:
    def by_key(objects):
        return {(o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"]): o for o in objects}

    return {
        "nodes": by_key(state["nodes"]),
        "pods": by_key(state["pods"]),
        "workloads": by_key(state["workloads"]),
    }


def apply(state: dict, message: dict) -> None:
    kind = message["kind"]
    section = (
        "nodes" if kind == "Node" else "pods" if kind == "Pod" else "workloads" if kind != "Event" else None
    )
    if section is None:
        return
    obj = message["object"]
    key = (kind, obj["metadata"].get("namespace", ""), obj["metadata"]["name"])
    if message["type"] == "object.deleted":
        state[section].pop(key, None)
    else:
        state[section][key] = obj


async def test_a_snapshot_plus_the_following_events_equals_a_fresh_snapshot(demo):
    await runtime.run_until_idle("demo")
    communicator, first = await connect()
    try:
        state = comparable(first)
        await create(demo, example("rc-nginx.yaml"))
        await runtime.run_until_idle("demo")
        messages = await drain(communicator)
        last = first["revision"]
        for message in messages:
            if message["type"].startswith("object."):
                assert message["revision"] > last and message["prev_revision"] <= last
                last = message["revision"]
                apply(state, message)
        fresh = await database_sync_to_async(snapshot.build)(demo)
        assert state == comparable(fresh)
        assert len(state["pods"]) == 3
    finally:
        await communicator.disconnect()


async def test_step_mode_holds_the_state_between_steps(demo):
    await runtime.run_until_idle("demo")
    communicator, _ = await connect()
    plane = runtime.ControlPlane("demo")
    plane.start()
    try:
        await communicator.send_json_to({"action": "step_mode", "on": True})
        await asyncio.sleep(0.2)
        pod = example("pod-nodename.yaml")
        del pod["spec"]["nodeName"]
        await create(demo, pod)
        steps = steps_of(await drain(communicator))
        assert [s["step"] for s in steps] == [1, 2, 3, 4, 5, 6, 7, 8]  # 5–8 skipped: a bare pod
        trace = steps[0]["trace"]
        stored = await database_sync_to_async(api.get)(demo, "Pod", "default", "pod-example")
        assert not stored["spec"].get("nodeName")  # held before step 9
        await communicator.send_json_to({"action": "next", "trace": trace})
        assert [s["step"] for s in steps_of(await drain(communicator))] == [9]
        await communicator.send_json_to({"action": "next", "trace": trace})
        assert [s["step"] for s in steps_of(await drain(communicator))] == [10]
        stored = await database_sync_to_async(api.get)(demo, "Pod", "default", "pod-example")
        assert not stored["spec"].get("nodeName")  # the binding is sent, not yet stored
        await communicator.send_json_to({"action": "next", "trace": trace})
        assert [s["step"] for s in steps_of(await drain(communicator))] == [11]
        stored = await database_sync_to_async(api.get)(demo, "Pod", "default", "pod-example")
        assert stored["spec"]["nodeName"] and stored["status"].get("phase", "Pending") == "Pending"
        await communicator.send_json_to({"action": "continue"})
        rest = steps_of(await drain(communicator))
        assert [s["step"] for s in rest] == [12, 13]
    finally:
        await plane.stop()
        await communicator.disconnect()


async def test_a_foreign_origin_is_refused(demo):
    communicator = WebsocketCommunicator(
        application, "/ws/clusters/demo/", headers=[(b"origin", b"http://evil.example")]
    )
    connected, _ = await communicator.connect()
    assert not connected
    await communicator.disconnect()


async def test_an_unknown_cluster_is_refused(demo):
    communicator = WebsocketCommunicator(application, "/ws/clusters/nope/", headers=ORIGIN)
    connected, _ = await communicator.connect()
    assert not connected
    await communicator.disconnect()


async def test_a_cluster_too_big_for_one_frame_is_told_to_resync_and_gets_the_events_after(demo, monkeypatch):
    from cluster.broadcast import consumers

    monkeypatch.setattr(consumers, "MAX_FRAME", 1000)  # the demo's three nodes are bigger than this
    communicator = WebsocketCommunicator(application, "/ws/clusters/demo/", headers=ORIGIN)
    connected, _ = await communicator.connect()
    assert connected
    try:
        assert await communicator.receive_json_from(timeout=5) == {"type": "resync"}
        revision = (await database_sync_to_async(snapshot.position)(demo))[0]
        await create(demo, example("pod-nodename.yaml"))
        messages = await drain(communicator)
        added = [m for m in messages if m["type"] == "object.added" and m["kind"] == "Pod"]
        assert [m["revision"] for m in added] == [revision + 1]
        assert added[0]["pod_status"] == "Pending"  # kubectl's STATUS, computed by the server
        assert steps_of(messages)[0]["step"] == 1
    finally:
        await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_big_snapshot_comes_gzipped_in_a_binary_frame_and_over_http_too():
    """Past COMPRESS_OVER bytes the snapshot travels gzipped: one binary frame the page inflates
    (a 100-node cluster's would not fit Daphne's 1 MiB frame as JSON), and over HTTP with
    Content-Encoding: gzip for a client that accepts it."""
    from cluster.controlplane.demo import create_many
    from tests.support.auth import teacher_client
    from tests.ws.messages import check

    big = await database_sync_to_async(create_many)("big", 80)
    communicator = WebsocketCommunicator(
        application, "/ws/clusters/big/", headers=ORIGIN + teacher_ws_headers()
    )
    try:
        connected, _ = await communicator.connect()
        assert connected
        frame = await communicator.receive_output(timeout=5)
        assert frame["type"] == "websocket.send" and frame.get("text") is None
        first = json.loads(gzip.decompress(frame["bytes"]))
        check(first)
        assert len(first["nodes"]) == 80 and len(frame["bytes"]) * 4 < len(json.dumps(first))
        fresh = await database_sync_to_async(snapshot.build)(big)
        assert comparable(first) == comparable(fresh)
    finally:
        await communicator.disconnect()

    def over_http():
        client = teacher_client()
        packed = client.get("/clusters/big/snapshot", HTTP_ACCEPT_ENCODING="gzip, deflate")
        plain = client.get("/clusters/big/snapshot")
        return packed, plain

    packed, plain = await database_sync_to_async(over_http)()
    assert packed["Content-Encoding"] == "gzip" and "Content-Encoding" not in plain
    assert json.loads(gzip.decompress(packed.content))["nodes"] == json.loads(plain.content)["nodes"]
