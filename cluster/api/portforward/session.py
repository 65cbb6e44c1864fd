"""The port-forward protocol (portforward.k8s.io) over one SPDY connection, as the kubelet's
streaming server serves it (pkg/kubelet/cri/streaming/portforward/httpstream.go).

For each local connection kubectl opens two streams with the same `requestid` header: `error`
(which it half-closes at once and reads to the end) and `data` (the connection's bytes both
ways). Each stream gets an empty SYN_REPLY. Once both are there the pod's port is dialled: if
nothing listens, the kubelet's message goes on the error stream, and both streams end; else the
data stream carries the bytes to the pod's server and back until one side closes.

No I/O here: `receive` takes bytes and returns the frames to send (the consumer moves them), so
the protocol is tested without a socket.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from cluster.api.portforward import frames
from cluster.api.portforward.frames import Frame, FrameReader, HeaderCodec, ProtocolError
from cluster.api.portforward.httpconn import MAX_BODY, MAX_HEAD, HttpConnection
from cluster.api.portforward.upstream import Server

# The kubelet's streamCreationTimeout: a request whose second stream never comes is ended.
PAIR_TIMEOUT_SECONDS = 30.0


@dataclass(slots=True)
class _Pair:
    request_id: str
    port: int
    created: float
    error_id: int = 0
    data_id: int = 0
    conn: HttpConnection | None = None
    early: bytes = b""  # data that came before the error stream


@dataclass(frozen=True, slots=True)
class Limits:
    max_pairs: int = 32  # local connections forwarded at once
    max_bytes: int = 64 << 20  # bytes through the connection, both ways, before it is closed


class PortForwardSession:
    def __init__(self, opener: Callable[[int], Server | str], limits: Limits | None = None) -> None:
        self.opener = opener
        self.limits = limits or Limits()
        self.codec = HeaderCodec()
        self.reader = FrameReader(self.codec)
        self.pairs: dict[str, _Pair] = {}
        self.by_stream: dict[int, _Pair] = {}
        self.last_stream = 0
        self.bytes = 0
        self.ended = False  # GOAWAY sent or received: the connection closes
        self.data_at = time.monotonic()  # the last byte of any forwarded connection
        self.forwarded = 0  # local connections served

    def receive(self, data: bytes) -> list[bytes]:
        if self.ended:
            return []
        self.bytes += len(data)
        try:
            out = []
            for frame in self.reader.feed(data):
                out += self._handle(frame)
                if self.ended:
                    break
        except ProtocolError:
            return self._goaway(frames.GOAWAY_PROTOCOL_ERROR)
        return self._count(out)

    def tick(self, now: float | None = None) -> list[bytes]:
        """Idle keep-alive connections the server closes, and requests whose pair never came."""
        now = time.monotonic() if now is None else now
        out = []
        for pair in list(self.pairs.values()):
            if pair.conn is not None and pair.conn.idle_expired(now):
                out += self._finish(pair)
            elif pair.conn is None and now - pair.created >= PAIR_TIMEOUT_SECONDS:
                out += self._finish(pair, "timed out waiting for streams")
        return self._count(out)

    def close(self) -> None:
        """The client went: every forwarded connection ends with it."""
        self.ended = True
        self.pairs.clear()
        self.by_stream.clear()

    def _count(self, out: list[bytes]) -> list[bytes]:
        self.bytes += sum(len(frame) for frame in out)
        if self.bytes > self.limits.max_bytes and not self.ended:
            out += self._goaway(frames.GOAWAY_OK)
        return out

    def _goaway(self, status: int) -> list[bytes]:
        self.ended = True
        self.pairs.clear()
        self.by_stream.clear()
        return [frames.goaway(self.last_stream, status)]

    def _handle(self, frame: Frame) -> list[bytes]:
        if not frame.control:
            return self._data(frame)
        if frame.kind == frames.SYN_STREAM:
            return self._syn_stream(frame)
        if frame.kind == frames.RST_STREAM:
            pair = self.by_stream.get(frame.stream_id)
            return self._finish(pair) if pair else []
        if frame.kind == frames.PING:
            return [frames.ping(frame.value)] if frame.value & 1 else []  # the client's: odd ids
        if frame.kind == frames.GOAWAY:
            self.close()
        return []  # SETTINGS, WINDOW_UPDATE, HEADERS: nothing for the server to do

    def _syn_stream(self, frame: Frame) -> list[bytes]:
        sid = frame.stream_id
        if sid % 2 == 0 or sid <= self.last_stream:
            return [frames.rst_stream(sid, frames.PROTOCOL_ERROR)]  # spdystream's validateStreamId
        self.last_stream = sid
        headers = frame.headers
        port_text, kind = headers.get("port", ""), headers.get("streamtype", "")
        # The kubelet's httpStreamReceived: a stream without a valid port or type is reset.
        if not port_text.isdigit() or not 0 < int(port_text) < 65536 or kind not in ("error", "data"):
            return [frames.rst_stream(sid, frames.CANCEL)]
        request_id = headers.get("requestid") or str(sid if kind == "error" else sid - 2)
        pair = self.pairs.get(request_id)
        if pair is None:
            if len(self.pairs) >= self.limits.max_pairs:
                return [frames.rst_stream(sid, frames.REFUSED_STREAM)]
            pair = self.pairs[request_id] = _Pair(request_id, int(port_text), time.monotonic())
        if (pair.error_id if kind == "error" else pair.data_id) != 0:
            return [frames.rst_stream(sid, frames.PROTOCOL_ERROR)]
        if kind == "error":
            pair.error_id = sid
        else:
            pair.data_id = sid
        self.by_stream[sid] = pair
        out = [frames.syn_reply(self.codec, sid)]
        if pair.error_id and pair.data_id:
            out += self._dial(pair)
        return out

    def _dial(self, pair: _Pair) -> list[bytes]:
        self.forwarded += 1
        server = self.opener(pair.port)
        if isinstance(server, str):
            return self._finish(pair, server)
        pair.conn = HttpConnection(server)
        early, pair.early = pair.early, b""
        return self._forward(pair, early) if early else []

    def _data(self, frame: Frame) -> list[bytes]:
        pair = self.by_stream.get(frame.stream_id)
        if pair is None or frame.stream_id != pair.data_id:
            return []  # the error stream's half-close, or a stream already ended
        self.data_at = time.monotonic()
        if pair.conn is None:
            pair.early += frame.data
            if len(pair.early) > MAX_HEAD + MAX_BODY:
                return self._finish(pair)
            return []
        out = self._forward(pair, frame.data) if frame.data else []
        if frame.fin and pair.request_id in self.pairs:
            out += self._finish(pair)  # the client is done sending: the server closes too
        return out

    def _forward(self, pair: _Pair, data: bytes) -> list[bytes]:
        answer = pair.conn.feed(data)
        out = frames.data(pair.data_id, answer) if answer else []
        if answer:
            self.data_at = time.monotonic()
        if pair.conn.closed:
            out += self._finish(pair)
        return out

    def _finish(self, pair: _Pair, message: str = "") -> list[bytes]:
        """Both streams end (FIN), the error stream first carrying the message, if any."""
        if self.pairs.get(pair.request_id) is not pair:
            return []
        del self.pairs[pair.request_id]
        out = []
        if pair.error_id:
            self.by_stream.pop(pair.error_id, None)
            out += frames.data(pair.error_id, message.encode(), fin=True)
        if pair.data_id:
            self.by_stream.pop(pair.data_id, None)
            out += frames.data(pair.data_id, b"", fin=True)
        return out
