"""A running container's own standard streams, as `kubectl attach` and `kubectl run -i/-it` reach them.

Each container process the kubelet runs (`processes.py`) has an attach point here, registered by
container id while it runs. The process side is the kubelet's database thread: it reads stdin
through `AttachedInput` (a read with nothing typed parks the process: no thread is held) and
writes its output, which goes to its log and to every attached client. The client side is the
attach websocket on the event loop (`cluster/api/attach_consumer.py`): it feeds stdin, which
wakes a process parked on a read, and receives the output from the moment it attached, as
containerd gives it (no history) — except the first client of a `stdinOnce` container without a
terminal (`kubectl run -i -- wget …`), which also gets what the process printed before it came,
up to `EARLY_BYTES`, so the command's output is not lost to the race between the start and the
attach. `stdinOnce`: stdin closes (the process reads its end) when the first client's stdin does.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol

from cluster.shell import resumable
from cluster.shell.streams import InputStream

# Typed input a process has not read yet, at most: a flood ends that client's session.
MAX_PENDING_BYTES = 1 << 20
# Output kept for the first client of a stdinOnce container without a terminal; kept this long
# after its process ended (`kubectl run -i` saw it running, and attaches just after it ended).
EARLY_BYTES = 64 * 1024
EARLY_KEEP_SECONDS = 30.0


class Listener(Protocol):
    def send(self, channel: int, data: bytes) -> None: ...  # any thread

    def end(self) -> None: ...  # the process ended: the stream closes


class Point:
    """One container process's stdin and its clients."""

    def __init__(self, cluster: str, container_id: str, stdin: bool, stdin_once: bool, tty: bool,
                 wake: Callable[[], None]) -> None:  # fmt: skip
        self.cluster, self.container_id = cluster, container_id
        self.stdin, self.stdin_once, self.tty = stdin, stdin_once, tty
        self._wake = wake
        self._lock = threading.Lock()
        self._input = bytearray()
        self._eof = False
        self._reading = False  # the process is parked on a read
        self._listeners: list[Listener] = []
        self._early: list[tuple[int, bytes]] | None = [] if stdin_once and not tty else None
        self._early_size = 0
        self._first_taken = False
        self.ended = False
        self.ended_at = 0.0

    # -- the process's side (the kubelet's thread) ---------------------------------------------
    def take(self) -> bytes | None:
        """What was typed (b"" at stdin's end), or None: nothing yet (the caller parks)."""
        with self._lock:
            if self._input:
                data = bytes(self._input)
                self._input.clear()
                self._reading = False
                return data
            if self._eof or not self.stdin:
                self._reading = False
                return b""
            self._reading = True
            return None

    def output(self, channel: int, text: str) -> None:
        if not self._listeners and self._early is None:
            return  # nobody attached and nothing to keep: a looping container pays nothing here
        data = text.encode("utf-8", "surrogateescape")
        with self._lock:
            listeners = list(self._listeners)
            if self._early is not None and self._early_size + len(data) <= EARLY_BYTES:
                self._early.append((channel, data))
                self._early_size += len(data)
        for listener in listeners:
            listener.send(channel, data)

    def end(self) -> None:
        with self._lock:
            self.ended = True
            self.ended_at = time.monotonic()
            listeners, self._listeners = self._listeners, []
        for listener in listeners:
            listener.end()

    # -- the clients' side (the event loop) ----------------------------------------------------
    def attach(self, listener: Listener) -> tuple[list[tuple[int, bytes]], bool]:
        """Add a client: (the output it gets first — the early output, once —, whether the
        process already ended, so that the client ends after it)."""
        with self._lock:
            early, self._early = (self._early or []), None
            if self._first_taken:
                early = []
            self._first_taken = True
            if not self.ended:
                self._listeners.append(listener)
            return early, self.ended

    @property
    def keeps_early_output(self) -> bool:
        with self._lock:
            return bool(self._early) and not self._first_taken

    def detach(self, listener: Listener) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def feed(self, data: bytes) -> bool:
        """Typed input; False when too much waits unread (the client is cut off)."""
        if not self.stdin or not data:
            return True  # a container without stdin: the runtime drops it
        with self._lock:
            if self._eof:
                return True
            if len(self._input) + len(data) > MAX_PENDING_BYTES:
                return False
            self._input += data
            wake = self._reading
        if wake:
            self._wake()
        return True

    def close_stdin(self) -> None:
        """A client's stdin ended (or the client left): stdinOnce closes the process's stdin."""
        if not self.stdin_once:
            return
        with self._lock:
            self._eof = True
            wake = self._reading
        if wake:
            self._wake()


_points: dict[tuple[str, str], Point] = {}
_points_lock = threading.Lock()


def _prune() -> None:
    """Under the lock: ended points go once their early output was taken or is too old."""
    now = time.monotonic()
    for key, point in list(_points.items()):
        if point.ended and (not point.keeps_early_output or now - point.ended_at > EARLY_KEEP_SECONDS):
            del _points[key]


def register(point: Point) -> None:
    with _points_lock:
        _prune()
        _points[(point.cluster, point.container_id)] = point


def unregister(point: Point) -> None:
    point.end()
    with _points_lock:
        _prune()


def find(cluster: str, container_id: str) -> Point | None:
    """The container's point: running, or ended with early output nobody took yet."""
    with _points_lock:
        _prune()
        return _points.get((cluster, container_id))


class AttachedInput(InputStream):
    """The process's stdin: what attached clients type. A read with nothing typed parks the
    process until input comes (`Point.feed` wakes it) or stdin ends."""

    def __init__(self, point: Point) -> None:
        super().__init__()
        self.point = point

    def _pull(self) -> bool:
        if self._ended:
            return False
        while (data := self.point.take()) is None:
            resumable.pause(resumable.FOREVER)
        if not data:
            self._ended = True
            return False
        self._buffer += data
        return True

    def check(self) -> None:
        return None  # the process's own budget knows when it is killed
