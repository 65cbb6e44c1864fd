"""pods/portforward on the websocket: the tunnelled SPDY streams to a running nginx, the
handshake's refusals, and the session counted and released with the exec sessions."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import override_settings

from cluster import execsessions
from cluster.api.portforward import frames
from cluster.api.portforward.frames import FrameReader, HeaderCodec
from cluster.apiserver import service as api
from cluster.controlplane import runtime
from cluster.kubelet.containerlogs import read_lines
from cluster.shell.pods import running_container_id
from kubesim.asgi import application
from tests.support.auth import teacher_ws_headers
from tests.support.demo import KUBECTL

pytestmark = pytest.mark.django_db(transaction=True)
PROTOCOL = "SPDY/3.1+portforward.k8s.io"
PATH = "/clusters/demo/api/v1/namespaces/default/pods/{}/portforward"


async def _running_pod(demo, name: str = "web", image: str = "nginx:1.25") -> dict:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
           "spec": {"containers": [{"name": "main", "image": image}]}}  # fmt: skip
    await database_sync_to_async(api.create)(demo, pod, KUBECTL)
    await runtime.run_until_idle("demo")
    return await database_sync_to_async(api.get)(demo, "Pod", "default", name)


async def _connect(pod: str = "web") -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(
        application, PATH.format(pod), subprotocols=[PROTOCOL], headers=teacher_ws_headers()
    )
    connected, subprotocol = await communicator.connect()
    assert connected and subprotocol == PROTOCOL
    return communicator


async def _until(communicator, reader: FrameReader, done) -> list[frames.Frame]:
    found: list[frames.Frame] = []
    while not done(found):
        message = await communicator.receive_output(timeout=5)
        assert message["type"] == "websocket.send", message
        found += reader.feed(message["bytes"])
    return found


def _open_sessions() -> int:
    return execsessions.open_count()


async def test_a_get_through_the_tunnel_returns_nginxs_page_and_the_access_line_is_in_its_log(demo):
    pod = await _running_pod(demo)
    communicator = await _connect()
    codec = HeaderCodec()
    reader = FrameReader(codec)
    for sid, kind in ((1, "error"), (3, "data")):
        headers = {"streamtype": kind, "port": "80", "requestid": "0"}
        wire = frames.syn_stream(codec, sid, headers)
        for at in range(0, len(wire), 5):  # Go's framer writes a frame field by field
            await communicator.send_to(bytes_data=wire[at : at + 5])
    request = b"GET / HTTP/1.1\r\nHost: localhost:8080\r\nUser-Agent: curl/8.5.0\r\n\r\n"
    await communicator.send_to(bytes_data=frames.data(3, request, fin=True)[0])
    found = await _until(communicator, reader, lambda got: sum(f.fin for f in got) == 2)
    assert [(f.kind, f.stream_id) for f in found if f.control] == [
        (frames.SYN_REPLY, 1),
        (frames.SYN_REPLY, 3),
    ]
    body = b"".join(f.data for f in found if f.stream_id == 3)
    assert body.startswith(b"HTTP/1.1 200 OK\r\nServer: nginx/1.25")
    assert b"<title>Welcome to nginx!</title>" in body
    assert b"".join(f.data for f in found if f.stream_id == 1) == b""
    assert await database_sync_to_async(_open_sessions)() == 1
    await communicator.disconnect()
    assert await database_sync_to_async(_open_sessions)() == 0
    container_id = running_container_id(pod, "main")
    lines = await database_sync_to_async(read_lines)(demo, container_id)
    assert lines[-1].endswith(' "GET / HTTP/1.1" 200 615 "-" "curl/8.5.0" "-"\n')


async def test_a_closed_port_gets_the_kubelets_words_on_the_error_stream(demo):
    pod = await _running_pod(demo)
    communicator = await _connect()
    codec = HeaderCodec()
    reader = FrameReader(codec)
    for sid, kind in ((1, "error"), (3, "data")):
        headers = {"streamtype": kind, "port": "6379", "requestid": "0"}
        await communicator.send_to(bytes_data=frames.syn_stream(codec, sid, headers))
    found = await _until(communicator, reader, lambda got: sum(f.fin for f in got) == 2)
    message = b"".join(f.data for f in found if f.stream_id == 1).decode()
    assert message.startswith("error forwarding port 6379 to pod ")
    assert ', uid : failed to execute portforward in network namespace "/var/run/netns/cni-' in message
    assert message.endswith(
        "IPv4: dial tcp4 127.0.0.1:6379: connect: connection refused "
        "IPv6 dial tcp6 [::1]:6379: connect: connection refused "
    )
    assert pod["metadata"]["uid"] not in message  # the sandbox's id, not the pod's uid
    await communicator.disconnect()


async def test_the_handshake_is_refused_without_the_subprotocol_for_a_missing_pod_or_past_the_cap(demo):
    await _running_pod(demo)
    plain = WebsocketCommunicator(application, PATH.format("web"), headers=teacher_ws_headers())
    assert not (await plain.connect())[0]
    missing = WebsocketCommunicator(
        application, PATH.format("nope"), subprotocols=[PROTOCOL], headers=teacher_ws_headers()
    )
    assert not (await missing.connect())[0]
    anonymous = WebsocketCommunicator(application, PATH.format("web"), subprotocols=[PROTOCOL])
    assert not (await anonymous.connect())[0]
    with override_settings(KUBESIM_EXEC_MAX_SESSIONS_PER_USER=1):
        first = await _connect()
        second = WebsocketCommunicator(
            application, PATH.format("web"), subprotocols=[PROTOCOL], headers=teacher_ws_headers()
        )
        assert not (await second.connect())[0]
        await first.disconnect()
    assert await database_sync_to_async(_open_sessions)() == 0


async def test_a_text_message_or_a_broken_frame_ends_the_connection(demo):
    await _running_pod(demo)
    communicator = await _connect()
    await communicator.send_to(text_data="hello")
    assert (await communicator.receive_output(timeout=5))["type"] == "websocket.close"
    communicator = await _connect()
    await communicator.send_to(bytes_data=b"\x80\x02\x00\x01\x00\x00\x00\x04abcd")  # SPDY/2
    reader = FrameReader(HeaderCodec())
    found = await _until(communicator, reader, lambda got: bool(got))
    assert [(f.kind, f.value) for f in found] == [(frames.GOAWAY, frames.GOAWAY_PROTOCOL_ERROR)]
    assert (await communicator.receive_output(timeout=5))["type"] == "websocket.close"
