"""The benchmarks' wire-timed HTTP connection (bench.stampedhttp) against a real local server."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from bench.stampedhttp import Connection

DELAY_SECONDS = 0.05


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.path == "/slow":
            time.sleep(DELAY_SECONDS)
        if self.path == "/chunked":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for part in (body[:3], body[3:]):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")
            return
        self.send_response(201 if self.path != "/close" else 200)
        self.send_header("Content-Length", str(len(body)))
        if self.path == "/close":
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()


def test_a_response_is_read_whole_and_timed_from_the_write_to_its_arrival(server):
    conn = Connection("127.0.0.1", server)
    try:
        response = conn.request("POST", "/slow", b'{"a": 1}', {"Content-Type": "application/json"})
        assert (response.status, response.body) == (201, b'{"a": 1}')
        assert DELAY_SECONDS <= response.elapsed < DELAY_SECONDS + 1.0
        assert response.sent < response.arrived <= time.perf_counter()
    finally:
        conn.close()


def test_chunked_bodies_are_joined_and_the_connection_is_kept(server):
    conn = Connection("127.0.0.1", server)
    try:
        first = conn.request("POST", "/chunked", b"hello world")
        sock = conn.sock
        second = conn.request("POST", "/fast", b"again")
        assert (first.status, first.body) == (200, b"hello world")
        assert (second.status, second.body) == (201, b"again")
        assert conn.sock is sock  # one kept-alive connection, as kubectl keeps it
    finally:
        conn.close()


def test_a_connection_the_server_closed_is_opened_again(server):
    conn = Connection("127.0.0.1", server)
    try:
        assert conn.request("POST", "/close", b"x").status == 200
        assert conn.sock is None
        assert conn.request("POST", "/fast", b"y").body == b"y"
    finally:
        conn.close()


def test_a_wall_clock_moved_after_start_does_not_move_the_arrival_times(monkeypatch):
    """The kernel stamps arrivals on the wall clock, which a virtual machine slews and steps while
    perf_counter() runs on: the conversion uses the offset of the moment, not the one at import."""
    import socket
    import struct

    from bench import wsclient

    stepped = time.time() + 4.7
    monkeypatch.setattr(wsclient.time, "time", lambda: stepped)
    stamp = struct.pack("qq", int(stepped), int((stepped % 1) * 1e9))
    arrival = wsclient.kernel_arrival([(socket.SOL_SOCKET, wsclient.SO_TIMESTAMPNS, stamp)])
    assert abs(arrival - time.perf_counter()) < 0.05
