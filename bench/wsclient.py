"""A minimal websocket client for benchmarks and tests: many sockets, almost no client-side work.

Each socket only stores the bytes it receives and notes where each frame ends and when it
arrived (the kernel's receive time); the JSON is parsed afterwards (`messages()`), so a thousand
clients in one process measure the server, not themselves. Text frames only (what KubeSim sends); pings
are answered so Daphne keeps the socket.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket as socket_module
import struct
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit


@dataclass(slots=True)
class Received:
    at: float  # time.perf_counter() when the frame's last byte arrived
    data: dict


# Linux: stamp each read with the time the kernel received its last packet (SO_TIMESTAMPNS), so a
# frame's arrival is when it reached this machine's socket, not when this process got round to
# reading it: a thousand sockets in one Python process must not count their own backlog against
# the server.
SO_TIMESTAMPNS = getattr(socket_module, "SO_TIMESTAMPNS", 35)
RECV_BYTES = 1 << 16
ANCILLARY_BYTES = 64


def wall_offset() -> float:
    """time.time() - time.perf_counter() now: turns wall-clock stamps into perf_counter() time.

    Read at each conversion, not once: a virtual machine's wall clock is slewed and stepped while
    perf_counter() is not (seen here: 0.1 s in 20 s, and a step that put every write of a class
    4.7 s late)."""
    return time.time() - time.perf_counter()


def kernel_arrival(ancillary: list) -> float:
    """When the kernel received the last packet of a recvmsg() (its SO_TIMESTAMPNS stamp), as
    perf_counter() time; now if the read carried no stamp."""
    for level, kind, data in ancillary:
        if level == socket_module.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= 16:
            seconds, nanoseconds = struct.unpack_from("qq", data)
            return seconds + nanoseconds / 1e9 - wall_offset()
    return time.perf_counter()


class Socket:
    """One websocket on a non-blocking socket, read from the event loop's selector."""

    def __init__(self, sock: socket_module.socket, path: str, host: str, token: str = "") -> None:
        self.sock, self.path, self.host, self.token = sock, path, host, token
        self.loop = asyncio.get_running_loop()
        self.buffer = bytearray()
        self.parsed = 0  # bytes of `buffer` split into frames
        self.frames: list[tuple[int, int, float]] = []  # text payload (begin, end), arrival time
        self.taken = 0  # frames handed out by next_message
        self.arrived = asyncio.Event()
        self.closed = False
        self.reading = False
        self.outgoing = bytearray()

    async def handshake(self) -> None:
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET {self.path} HTTP/1.1\r\nHost: {self.host}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Origin: http://{self.host}\r\n{auth_header(self.token)}\r\n"
        )
        await self.loop.sock_sendall(self.sock, request.encode())
        received = bytearray()
        while b"\r\n\r\n" not in received:
            chunk = await self.loop.sock_recv(self.sock, RECV_BYTES)
            if not chunk:
                raise ConnectionError("closed during the websocket handshake")
            received += chunk
        head, _, rest = bytes(received).partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 101"):
            raise ConnectionError(head.split(b"\r\n")[0].decode())
        self.sock.setsockopt(socket_module.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.buffer += rest
        self._split(time.perf_counter())
        self.resume_reading()

    def _readable(self) -> None:
        try:
            data, ancillary, _, _ = self.sock.recvmsg(RECV_BYTES, ANCILLARY_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._lost()
            return
        self.buffer += data
        self._split(kernel_arrival(ancillary))

    def _split(self, now: float) -> None:
        """Find the frames that are complete (headers only; payloads are parsed later)."""
        buffer = self.buffer
        while self.parsed + 2 <= len(buffer):
            offset = self.parsed
            opcode, size = buffer[offset] & 0x0F, buffer[offset + 1] & 0x7F
            head = 2
            if size == 126:
                if offset + 4 > len(buffer):
                    return
                (size,) = struct.unpack_from("!H", buffer, offset + 2)
                head = 4
            elif size == 127:
                if offset + 10 > len(buffer):
                    return
                (size,) = struct.unpack_from("!Q", buffer, offset + 2)
                head = 10
            end = offset + head + size
            if end > len(buffer):
                return
            self.parsed = end
            if opcode == 0x1:
                self.frames.append((offset + head, end, now))
                self.arrived.set()
            elif opcode == 0x9:
                self.send_frame(bytes(buffer[offset + head : end]), opcode=0xA)
            elif opcode == 0x8:
                self._lost()
                return

    def _lost(self) -> None:
        self.pause_reading()
        self.closed = True
        self.arrived.set()

    def send_frame(self, payload: bytes, opcode: int = 0x1) -> None:
        mask = os.urandom(4)
        size = len(payload)
        if size < 126:
            header = struct.pack("!BB", 0x80 | opcode, 0x80 | size)
        elif size < 65536:
            header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, size)
        else:
            header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, size)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.outgoing += header + mask + masked
        self._flush()

    def _flush(self) -> None:
        if self.closed:
            self.outgoing.clear()
            return
        try:
            sent = self.sock.send(self.outgoing)
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError:
            self.outgoing.clear()
            return
        del self.outgoing[:sent]
        if self.outgoing:
            self.loop.add_writer(self.sock.fileno(), self._writable)

    def _writable(self) -> None:
        self.loop.remove_writer(self.sock.fileno())
        self._flush()

    def send_json(self, data: dict) -> None:
        self.send_frame(json.dumps(data).encode())

    def pause_reading(self) -> None:
        if self.reading:
            self.loop.remove_reader(self.sock.fileno())
            self.reading = False

    def resume_reading(self) -> None:
        if not self.reading and not self.closed:
            self.loop.add_reader(self.sock.fileno(), self._readable)
            self.reading = True

    def messages(self, start: int = 0) -> list[Received]:
        """The text frames received so far (from frame index `start`), parsed."""
        return [Received(at, json.loads(self.buffer[begin:end])) for begin, end, at in self.frames[start:]]

    async def next_message(self, timeout: float = 10.0) -> dict:
        """Wait for the next text frame not yet taken with this method (tests)."""
        deadline = time.monotonic() + timeout
        while self.taken >= len(self.frames):
            self.arrived.clear()
            remaining = deadline - time.monotonic()
            if remaining <= 0 or self.closed:
                raise TimeoutError("no websocket message")
            try:
                await asyncio.wait_for(self.arrived.wait(), remaining)
            except TimeoutError:
                continue
        begin, end, _ = self.frames[self.taken]
        self.taken += 1
        return json.loads(self.buffer[begin:end])

    def close(self) -> None:
        if self.sock.fileno() < 0:
            return
        self.pause_reading()
        self.loop.remove_writer(self.sock.fileno())
        self.closed = True
        self.sock.close()


def auth_header(token: str) -> str:
    """The bearer-token header line (with its CRLF), or nothing."""
    return f"Authorization: Bearer {token}\r\n" if token else ""


async def connect(
    url: str, path: str, timeout: float = 30.0, rcvbuf: int | None = None, token: str = ""
) -> Socket:
    """Open a websocket to `path` on the server at `url` (http://host:port), as the page served
    there would (Origin: the same scheme, host and port) and, with `token`, as its holder (the
    teacher's presenter token: the socket may drive the flow); `rcvbuf` shrinks the socket's
    receive buffer (a slow reader fills up sooner)."""
    parts = urlsplit(url)
    host = parts.hostname or "127.0.0.1"
    port = parts.port or 80
    loop = asyncio.get_running_loop()
    sock = socket_module.socket(socket_module.AF_INET, socket_module.SOCK_STREAM)
    try:
        if rcvbuf is not None:
            sock.setsockopt(socket_module.SOL_SOCKET, socket_module.SO_RCVBUF, rcvbuf)
        sock.setsockopt(socket_module.IPPROTO_TCP, socket_module.TCP_NODELAY, 1)
        sock.setblocking(False)
        await asyncio.wait_for(loop.sock_connect(sock, (host, port)), timeout)
        opened = Socket(sock, path, f"{host}:{port}", token)
        await asyncio.wait_for(opened.handshake(), timeout)
    except BaseException:
        sock.close()
        raise
    return opened


@dataclass(slots=True)
class Crowd:
    sockets: list[Socket] = field(default_factory=list)

    async def open(self, urls: list[str], path: str, count: int, batch: int = 50, token: str = "") -> None:
        """`count` sockets spread round-robin over `urls`, opened `batch` at a time."""
        for first in range(0, count, batch):
            chosen = [urls[i % len(urls)] for i in range(first, min(first + batch, count))]
            self.sockets += await asyncio.gather(*(connect(url, path, token=token) for url in chosen))

    def close(self) -> None:
        for socket in self.sockets:
            socket.close()
