"""A minimal websocket client for benchmarks and tests: many sockets, almost no client-side work.

Each socket is an asyncio Protocol that only stores the bytes it receives and notes where each
frame ends and when it arrived; the JSON is parsed afterwards (`messages()`), so a thousand clients
in one process measure the server, not themselves. Text frames only (what KubeSim sends); pings
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


class Socket(asyncio.Protocol):
    def __init__(self, path: str, host: str) -> None:
        self.path, self.host = path, host
        self.transport: asyncio.Transport | None = None
        self.opened: asyncio.Future = asyncio.get_running_loop().create_future()
        self.buffer = bytearray()
        self.parsed = 0  # bytes of `buffer` split into frames
        self.frames: list[tuple[int, int, float]] = []  # text payload (begin, end), arrival time
        self.taken = 0  # frames handed out by next_message
        self.handshake = bytearray()
        self.arrived = asyncio.Event()
        self.closed = False

    def connection_made(self, transport) -> None:
        self.transport = transport
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET {self.path} HTTP/1.1\r\nHost: {self.host}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Origin: http://{self.host}\r\n\r\n"
        )
        transport.write(request.encode())

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        if not self.opened.done():
            self.handshake += data
            head, sep, rest = bytes(self.handshake).partition(b"\r\n\r\n")
            if not sep:
                return
            if not head.startswith(b"HTTP/1.1 101"):
                self.opened.set_exception(ConnectionError(head.split(b"\r\n")[0].decode()))
                return
            self.opened.set_result(True)
            data = rest
        self.buffer += data
        self._split(now)

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

    def connection_lost(self, exc) -> None:
        self.closed = True
        if not self.opened.done():
            self.opened.set_exception(ConnectionError(str(exc or "closed")))

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
        self.transport.write(header + mask + masked)

    def send_json(self, data: dict) -> None:
        self.send_frame(json.dumps(data).encode())

    def pause_reading(self) -> None:
        self.transport.pause_reading()

    def resume_reading(self) -> None:
        self.transport.resume_reading()

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
        if self.transport is not None:
            self.transport.close()


async def connect(url: str, path: str, timeout: float = 30.0, rcvbuf: int | None = None) -> Socket:
    """Open a websocket to `path` on the server at `url` (http://host:port); `rcvbuf` shrinks the
    socket's receive buffer (a slow reader fills up sooner)."""
    parts = urlsplit(url)
    host = parts.hostname or "127.0.0.1"
    port = parts.port or 80
    loop = asyncio.get_running_loop()
    sock = None
    if rcvbuf is not None:
        sock = socket_module.socket(socket_module.AF_INET, socket_module.SOCK_STREAM)
        sock.setsockopt(socket_module.SOL_SOCKET, socket_module.SO_RCVBUF, rcvbuf)
        sock.setblocking(False)
        await loop.sock_connect(sock, (host, port))
    factory = lambda: Socket(path, f"{host}:{port}")  # noqa: E731
    if sock is not None:
        _, opened = await asyncio.wait_for(loop.create_connection(factory, sock=sock), timeout)
    else:
        _, opened = await asyncio.wait_for(loop.create_connection(factory, host, port), timeout)
    await asyncio.wait_for(opened.opened, timeout)
    return opened


@dataclass(slots=True)
class Crowd:
    sockets: list[Socket] = field(default_factory=list)

    async def open(self, urls: list[str], path: str, count: int, batch: int = 50) -> None:
        """`count` sockets spread round-robin over `urls`, opened `batch` at a time."""
        for first in range(0, count, batch):
            chosen = [urls[i % len(urls)] for i in range(first, min(first + batch, count))]
            self.sockets += await asyncio.gather(*(connect(url, path) for url in chosen))

    def close(self) -> None:
        for socket in self.sockets:
            socket.close()
