"""A kept-alive HTTP/1.1 connection whose responses are timed on the wire, for benchmarks.

Sixty students in one bench process are sixty threads sharing one GIL (and an event loop reading
their lab sockets): a thread that times `request → response read` also counts the time it waited
for the GIL after the response had arrived. A student's kubectl is a process of its own and has no
such wait, so here a request's clock starts just before its bytes are written and stops at the
time the kernel received the response's last byte (SO_TIMESTAMPNS, as `bench.wsclient` does).
"""

from __future__ import annotations

import socket
import time
from dataclasses import dataclass

from bench.wsclient import ANCILLARY_BYTES, RECV_BYTES, SO_TIMESTAMPNS, kernel_arrival


@dataclass(slots=True)
class Response:
    status: int
    headers: dict[str, str]
    body: bytes
    sent: float  # perf_counter() just before the request's bytes were written
    arrived: float  # perf_counter() time the kernel received the response's last byte

    @property
    def elapsed(self) -> float:
        return self.arrived - self.sent


class Connection:
    def __init__(self, host: str, port: int, timeout: float = 60.0) -> None:
        self.host, self.port, self.timeout = host, port, timeout
        self.sock: socket.socket | None = None
        self.pending = bytearray()  # bytes read past the last response
        self.last_arrival = 0.0

    def _open(self) -> socket.socket:
        sock = socket.create_connection((self.host, self.port), self.timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.pending.clear()
        return sock

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def request(self, method: str, path: str, body: bytes = b"", headers: dict | None = None) -> Response:
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        lines.append(f"Content-Length: {len(body)}")
        data = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body
        for attempt in (1, 2):  # a kept-alive connection the server closed meanwhile: once more
            if self.sock is None:
                self.sock = self._open()
            sent = time.perf_counter()
            try:
                self.sock.sendall(data)
                response = self._read(sent)
            except (ConnectionError, EOFError):
                self.close()
                if attempt == 2:
                    raise
                continue
            if response.headers.get("connection", "").lower() == "close":
                self.close()
            return response
        raise AssertionError("unreachable")

    def _fill(self) -> None:
        data, ancillary, _, _ = self.sock.recvmsg(RECV_BYTES, ANCILLARY_BYTES)
        if not data:
            raise EOFError("the server closed the connection")
        self.pending += data
        self.last_arrival = kernel_arrival(ancillary)

    def _line(self) -> bytes:
        while (end := self.pending.find(b"\r\n")) < 0:
            self._fill()
        line = bytes(self.pending[:end])
        del self.pending[: end + 2]
        return line

    def _exactly(self, size: int) -> bytes:
        while len(self.pending) < size:
            self._fill()
        data = bytes(self.pending[:size])
        del self.pending[:size]
        return data

    def _read(self, sent: float) -> Response:
        status = int(self._line().split()[1])
        headers: dict[str, str] = {}
        while line := self._line():
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            body = self._exactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            parts = []
            while size := int(self._line().split(b";")[0].strip() or b"0", 16):
                parts.append(self._exactly(size))
                self._exactly(2)
            while self._line():  # trailers, then the blank line
                pass
            body = b"".join(parts)
        else:
            raise ConnectionError("a response with neither Content-Length nor chunks")
        return Response(status, headers, body, sent, self.last_arrival)
