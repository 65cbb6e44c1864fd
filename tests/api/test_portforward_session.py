"""The port-forward protocol over SPDY/3.1, without a socket: a client built like client-go's
(spdystream framing, header blocks zlib-compressed with SPDY's dictionary) against the session."""

from __future__ import annotations

import struct
import zlib

import pytest

from cluster.api.portforward import frames
from cluster.api.portforward.dictionary import HEADER_DICTIONARY
from cluster.api.portforward.frames import FrameReader, HeaderCodec
from cluster.api.portforward.httpconn import HttpConnection
from cluster.api.portforward.session import Limits, PortForwardSession
from cluster.api.portforward.upstream import Server
from cluster.shell.web import Response

PAGE = "<!DOCTYPE html>\n<title>Welcome to nginx!</title>\n"


class Client:
    """kubectl's side: its own zlib streams, frames in, frames out."""

    def __init__(self, session: PortForwardSession) -> None:
        self.session = session
        self.codec = HeaderCodec()
        self.reader = FrameReader(self.codec)

    def send(self, *chunks: bytes) -> list[frames.Frame]:
        out = []
        for chunk in chunks:
            out += self.session.receive(chunk)
        return self.reader.feed(b"".join(out))

    def open(self, sid: int, kind: str, port: int = 80, request: int = 0) -> list[frames.Frame]:
        headers = {"streamtype": kind, "port": str(port), "requestid": str(request)}
        return self.send(frames.syn_stream(self.codec, sid, headers))


def _server(log: list[str], respond=None) -> Server:
    def page(method: str, path: str) -> Response:
        body = PAGE if path == "/" else "missing"
        headers = [
            ("Server", "nginx/1.25.5"),
            ("Content-Length", str(len(body))),
            ("Connection", "keep-alive"),
        ]
        return Response(200 if path == "/" else 404, "OK" if path == "/" else "Not Found", headers, body)

    return Server("nginx", respond or page, log.append, 65.0)


def _session(log: list[str], opener=None, **limits) -> PortForwardSession:
    return PortForwardSession(
        opener or (lambda port: _server(log) if port == 80 else f"refused {port}"), Limits(**limits)
    )


def _payload(found: list[frames.Frame], sid: int) -> bytes:
    return b"".join(f.data for f in found if not f.control and f.stream_id == sid)


def test_the_dictionary_is_spdy3s_1423_bytes_and_inflates_what_go_deflates_with_it():
    assert len(HEADER_DICTIONARY) == 1423
    assert HEADER_DICTIONARY.startswith(b"\x00\x00\x00\x07options\x00\x00\x00\x04head")
    assert HEADER_DICTIONARY.endswith(b",utf-,*,enq=0.")
    deflate = zlib.compressobj(9, zlib.DEFLATED, 15, 8, zlib.Z_DEFAULT_STRATEGY, HEADER_DICTIONARY)
    block = struct.pack(">I", 1) + struct.pack(">I", 4) + b"port" + struct.pack(">I", 2) + b"80"
    wire = deflate.compress(block) + deflate.flush(zlib.Z_SYNC_FLUSH)
    assert HeaderCodec().decode(wire) == {"port": "80"}


def test_each_stream_is_replied_and_a_request_on_the_data_stream_is_answered_and_logged():
    log: list[str] = []
    client = Client(_session(log))
    replies = client.open(1, "error")
    assert [(f.kind, f.stream_id, f.headers) for f in replies] == [(frames.SYN_REPLY, 1, {})]
    assert client.send(frames.data(1, fin=True)[0]) == []  # kubectl half-closes the error stream
    assert [(f.kind, f.stream_id) for f in client.open(3, "data")] == [(frames.SYN_REPLY, 3)]
    request = b"GET / HTTP/1.1\r\nHost: 127.0.0.1:21850\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\n\r\n"
    answer = client.send(*frames.data(3, request))
    text = _payload(answer, 3).decode()
    assert text.startswith("HTTP/1.1 200 OK\r\nServer: nginx/1.25.5\r\n")
    assert text.endswith("\r\n\r\n" + PAGE)
    assert len(log) == 1 and log[0].startswith("127.0.0.1 - - [")
    assert log[0].endswith(f'] "GET / HTTP/1.1" 200 {len(PAGE)} "-" "curl/8.5.0" "-"')
    # curl closes its side: the server closes the data stream, and the error stream ends empty.
    ends = client.send(frames.data(3, fin=True)[0])
    assert [(f.stream_id, f.data, f.fin) for f in ends] == [(1, b"", True), (3, b"", True)]


def test_a_request_split_across_messages_and_frames_byte_by_byte_is_answered_once():
    log: list[str] = []
    client = Client(_session(log))
    client.open(1, "error", request=7)
    client.open(3, "data", request=7)
    wire = frames.data(3, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")[0]
    answer = client.send(*[wire[i : i + 1] for i in range(len(wire))])
    assert _payload(answer, 3).startswith(b"HTTP/1.1 200 OK")
    assert len(log) == 1


def test_a_port_nothing_listens_on_gets_the_message_on_the_error_stream_and_both_streams_end():
    client = Client(_session([]))
    client.open(1, "error", port=81)
    found = client.open(3, "data", port=81)
    assert [(f.kind, f.stream_id) for f in found if f.control] == [(frames.SYN_REPLY, 3)]
    ends = [(f.stream_id, f.data, f.fin) for f in found if not f.control]
    assert ends == [(1, b"refused 81", True), (3, b"", True)]


def test_keep_alive_serves_pipelined_requests_and_connection_close_ends_the_stream():
    log: list[str] = []
    client = Client(_session(log))
    client.open(1, "error")
    client.open(3, "data")
    two = b"GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    found = client.send(*frames.data(3, two))
    text = _payload(found, 3).decode()
    assert text.count("HTTP/1.1 ") == 2 and "Connection: close" in text.split("HTTP/1.1 404")[1]
    assert [(f.stream_id, f.fin) for f in found if f.fin] == [(1, True), (3, True)]
    access = [line.split('"')[1] for line in log if " - - [" in line]
    assert access == ["GET / HTTP/1.1", "GET /nope HTTP/1.1"]
    assert log[1].endswith(
        '[error] 29#29: *2 open() "/usr/share/nginx/html/nope" failed (2: No such file or directory), '
        'client: 127.0.0.1, server: localhost, request: "GET /nope HTTP/1.1", host: "x"'
    )


def test_a_malformed_request_gets_400_and_the_connection_closes():
    client = Client(_session([]))
    client.open(1, "error")
    client.open(3, "data")
    found = client.send(*frames.data(3, b"HELLO\r\n\r\n"))
    assert _payload(found, 3).startswith(b"HTTP/1.1 400 Bad Request\r\n")
    assert sorted(f.stream_id for f in found if f.fin) == [1, 3]


def test_pings_from_the_client_are_echoed_and_the_servers_own_are_not():
    client = Client(_session([]))
    assert [(f.kind, f.value) for f in client.send(frames.ping(1))] == [(frames.PING, 1)]
    assert client.send(frames.ping(2)) == []


def test_streams_with_a_bad_port_or_type_are_reset_as_the_kubelet_does():
    client = Client(_session([]))
    bad_port = client.send(frames.syn_stream(client.codec, 1, {"streamtype": "data", "port": "0"}))
    bad_type = client.send(frames.syn_stream(client.codec, 3, {"streamtype": "video", "port": "80"}))
    even_id = client.send(frames.syn_stream(client.codec, 4, {"streamtype": "data", "port": "80"}))
    assert [(f.kind, f.value) for f in bad_port + bad_type] == [(frames.RST_STREAM, frames.CANCEL)] * 2
    assert [(f.kind, f.value) for f in even_id] == [(frames.RST_STREAM, frames.PROTOCOL_ERROR)]


def test_a_client_reset_ends_the_pair_and_later_frames_on_it_are_ignored():
    client = Client(_session([]))
    client.open(1, "error")
    client.open(3, "data")
    found = client.send(frames.rst_stream(3, frames.CANCEL))
    assert [(f.stream_id, f.fin) for f in found] == [(1, True), (3, True)]
    assert client.send(*frames.data(3, b"GET / HTTP/1.1\r\n\r\n")) == []
    assert client.session.pairs == {}


def test_connections_at_once_are_capped_and_the_extra_stream_is_refused():
    client = Client(_session([], max_pairs=2))
    client.open(1, "error", request=0)
    client.open(3, "error", request=1)
    refused = client.open(5, "error", request=2)
    assert [(f.kind, f.value) for f in refused] == [(frames.RST_STREAM, frames.REFUSED_STREAM)]


def test_past_the_byte_limit_the_connection_goes_away():
    client = Client(_session([], max_bytes=4096))
    client.open(1, "error")
    client.open(3, "data")
    found = client.send(*frames.data(3, b"GET / HTTP/1.1\r\nX-Pad: " + b"a" * 5000 + b"\r\n\r\n"))
    assert found[-1].kind == frames.GOAWAY and client.session.ended
    assert client.send(frames.ping(3)) == []


def test_a_broken_header_block_is_a_protocol_error():
    client = Client(_session([]))
    garbage = struct.pack(">HHI", 0x8003, frames.SYN_STREAM, 14) + struct.pack(">IIH", 1, 0, 0) + b"nope"
    found = client.send(garbage)
    assert [(f.kind, f.value) for f in found] == [(frames.GOAWAY, frames.GOAWAY_PROTOCOL_ERROR)]


def test_a_frame_over_the_size_limit_is_a_protocol_error_before_it_is_buffered():
    client = Client(_session([]))
    found = client.send(struct.pack(">II", 1, frames.MAX_FRAME + 1))
    assert [(f.kind, f.value) for f in found] == [(frames.GOAWAY, frames.GOAWAY_PROTOCOL_ERROR)]


def test_idle_keep_alive_connections_and_half_opened_requests_end_on_the_clock():
    client = Client(_session([]))
    client.open(1, "error", request=0)
    client.open(3, "data", request=0)
    client.open(5, "error", request=1)  # its data stream never comes
    session = client.session
    conn: HttpConnection = session.pairs["0"].conn
    later = conn.active_at + 66
    found = client.reader.feed(b"".join(session.tick(later)))
    assert sorted((f.stream_id, f.data) for f in found) == [
        (1, b""),
        (3, b""),
        (5, b"timed out waiting for streams"),
    ]


@pytest.mark.parametrize("body_size, status", [(10, b"200"), ((1 << 20) + 1, b"413")])
def test_a_body_is_read_by_its_length_and_one_over_nginxs_limit_gets_413(body_size, status):
    client = Client(_session([], max_bytes=8 << 20))
    client.open(1, "error")
    client.open(3, "data")
    head = f"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: {body_size}\r\n\r\n".encode()
    found = client.send(*frames.data(3, head + b"x" * min(body_size, 10)))
    assert _payload(found, 3).startswith(b"HTTP/1.1 " + status)
