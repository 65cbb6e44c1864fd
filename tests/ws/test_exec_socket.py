"""pods/exec on the websocket: the channels, the error-channel Status, the handshake's refusals,
and the dashboards told who is inside."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from cluster.apiserver import service as api
from cluster.controlplane import runtime
from kubesim.asgi import application
from tests.support.auth import teacher_client, teacher_ws_headers
from tests.support.demo import KUBECTL
from tests.ws.messages import check

pytestmark = pytest.mark.django_db(transaction=True)
V5, V4 = "v5.channel.k8s.io", "v4.channel.k8s.io"


def _path(pod: str, command: list[str], **flags: str) -> str:
    query = urlencode([*(("command", c) for c in command), *flags.items()])
    return f"/clusters/demo/api/v1/namespaces/default/pods/{pod}/exec?{query}"


async def _running_pod(demo, name: str = "web", image: str = "nginx:1.25") -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
           "spec": {"containers": [{"name": "main", "image": image}]}}  # fmt: skip
    await database_sync_to_async(api.create)(demo, pod, KUBECTL)
    await runtime.run_until_idle("demo")


async def _frames(communicator: WebsocketCommunicator) -> list[bytes]:
    frames = []
    while True:
        message = await communicator.receive_output(timeout=5)
        if message["type"] == "websocket.close":
            return frames
        frames.append(message["bytes"])


async def test_v5_stdout_then_success_status_then_close(demo):
    await _running_pod(demo)
    communicator = WebsocketCommunicator(
        application,
        _path("web", ["hostname"], stdout="true"),
        subprotocols=[V5],
        headers=teacher_ws_headers(),
    )
    connected, subprotocol = await communicator.connect()
    assert connected and subprotocol == V5
    frames = await _frames(communicator)
    assert frames == [b"\x01web\n", b'\x03{"metadata":{},"status":"Success"}']


async def test_stdin_half_close_and_exit_code_over_v4_and_v5(demo):
    await _running_pod(demo)
    for protocol, inner in (
        (V5, "command terminated with exit code 3"),
        (V4, "Error executing in Docker Container: 3"),
    ):
        path = _path("web", ["sh"], stdin="true", stdout="true", stderr="true")
        communicator = WebsocketCommunicator(
            application, path, subprotocols=[protocol], headers=teacher_ws_headers()
        )
        assert (await communicator.connect())[0]
        await communicator.send_to(bytes_data=b"\x00echo $HOSTNAME\nexit 3\n")
        if protocol == V5:
            await communicator.send_to(bytes_data=b"\xff\x00")  # v5: stdin is done
        frames = await _frames(communicator)
        assert frames[0] == b"\x01web\n"
        assert json.loads(frames[-1][1:]) == {
            "metadata": {},
            "status": "Failure",
            "message": f"command terminated with non-zero exit code: {inner}",
            "reason": "NonZeroExitCode",
            "details": {"causes": [{"reason": "ExitCode", "message": "3"}]},
        }


async def test_refusals_close_the_handshake(demo):
    await _running_pod(demo)
    cases = [
        (_path("web", ["ls"], stdout="true"), [], None),  # no remote-command subprotocol
        (_path("nope", ["ls"], stdout="true"), [V5], None),  # no such pod
        (_path("web", ["ls"], stdout="true"), [V5], b"http://evil.example"),  # a foreign page
    ]
    for path, protocols, origin in cases:
        headers = [(b"origin", origin), (b"host", b"127.0.0.1:8000")] if origin else []
        headers += teacher_ws_headers()
        communicator = WebsocketCommunicator(application, path, headers=headers, subprotocols=protocols)
        connected, _ = await communicator.connect()
        assert not connected, path


async def test_the_dashboard_is_told_who_is_inside(demo):
    await _running_pod(demo)
    page = [(b"origin", b"http://127.0.0.1:8000"), (b"host", b"127.0.0.1:8000")]
    dashboard = WebsocketCommunicator(application, "/ws/clusters/demo/", headers=page)
    assert (await dashboard.connect())[0]
    assert (await dashboard.receive_json_from(timeout=5))["type"] == "snapshot"
    path = _path("web", ["bash"], stdin="true", stdout="true", tty="true")
    agent = [(b"user-agent", b"kubectl/v1.32.4")]
    shell = WebsocketCommunicator(application, path, subprotocols=[V5], headers=agent + teacher_ws_headers())
    assert (await shell.connect())[0]
    opened = await dashboard.receive_json_from(timeout=5)
    check(opened)
    assert opened["type"] == "exec.session"
    session = opened["session"]
    assert (session["pod"], session["command"], session["client"], session["closed_at"]) == (
        "web",
        ["bash"],
        "kubectl",
        None,
    )
    await shell.send_to(bytes_data=b"\x00exit 7\r")
    await _frames(shell)
    closed = await dashboard.receive_json_from(timeout=5)
    check(closed)
    assert closed["session"]["id"] == session["id"] and closed["session"]["exit_code"] == 7
    await dashboard.disconnect()


def test_the_spdy_fallback_gets_the_status(demo):
    client = teacher_client()
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "waiting"},
           "spec": {"containers": [{"name": "main", "image": "nginx"}]}}  # fmt: skip
    api.create(demo, pod, KUBECTL)
    response = client.post(_path("waiting", ["ls"], stdout="true"))
    assert response.status_code == 400
    assert response.json()["message"] == "pod waiting does not have a host assigned"
    response = client.post(_path("waiting", ["ls"], stdout="true", container="x"))
    assert response.json()["message"] == "container x is not valid for pod waiting"


def test_without_write_rights_the_fallback_gets_kube_apiservers_403(client, demo):
    response = client.post(_path("web", ["ls"], stdout="true"))
    assert response.status_code == 403
    assert response.json()["message"] == (
        'pods "web" is forbidden: User "system:anonymous" cannot create resource "pods/exec" '
        'in API group "" in the namespace "default"'
    )


async def test_without_write_rights_the_handshake_is_refused(demo):
    await _running_pod(demo)
    communicator = WebsocketCommunicator(application, _path("web", ["ls"], stdout="true"), subprotocols=[V5])
    assert not (await communicator.connect())[0]


async def test_a_caller_flooding_stdin_loses_the_session(demo, monkeypatch):
    monkeypatch.setattr("cluster.shell.streams.MAX_PENDING_BYTES", 1000)
    await _running_pod(demo)
    path = _path("web", ["cat"], stdin="true", stdout="true")
    communicator = WebsocketCommunicator(application, path, subprotocols=[V5], headers=teacher_ws_headers())
    assert (await communicator.connect())[0]
    await communicator.send_to(bytes_data=b"\x00" + b"x" * 2000)
    frames = await _frames(communicator)
    assert not any(frame.startswith(b"\x03") for frame in frames)  # no Status: the session was cut


def test_discovery_lists_pods_exec_as_kube_apiserver_does(client, demo):
    resources = client.get("/clusters/demo/api/v1").json()["resources"]
    exec_resource = next(r for r in resources if r["name"] == "pods/exec")
    assert exec_resource["kind"] == "PodExecOptions"
    assert sorted(exec_resource["verbs"]) == ["create", "get"]
    assert exec_resource["namespaced"] is True


async def test_deleting_the_pod_kills_the_session_with_137(demo, monkeypatch):
    monkeypatch.setattr("cluster.api.exec_consumer.CONTAINER_POLL_SECONDS", 0.05)
    await _running_pod(demo)
    path = _path("web", ["bash"], stdin="true", stdout="true", tty="true")
    communicator = WebsocketCommunicator(application, path, subprotocols=[V5], headers=teacher_ws_headers())
    assert (await communicator.connect())[0]
    assert (await communicator.receive_output(timeout=5))["bytes"] == b"\x01root@web:/# "
    await database_sync_to_async(api.delete)(demo, "Pod", "default", "web", KUBECTL)
    frames = await _frames(communicator)
    assert json.loads(frames[-1][1:])["details"] == {"causes": [{"reason": "ExitCode", "message": "137"}]}


def test_a_session_whose_process_died_counts_as_ended(demo):
    from datetime import timedelta

    from django.utils import timezone

    from cluster import execsessions
    from cluster.models import ExecSession

    session = execsessions.opened(
        "demo", "default", "web", "main", ["bash"], "system:anonymous", "kubectl", True
    )
    assert execsessions.open_count() == 1 and execsessions.listing("demo")[-1]["closed_at"] is None
    ExecSession.objects.filter(pk=session["id"]).update(seen_at=timezone.now() - timedelta(minutes=5))
    assert execsessions.open_count() == 0
    assert execsessions.listing("demo")[-1]["closed_at"] is not None
