"""SPDY/3.1 frames as moby/spdystream reads and writes them (the framing kubectl's port-forward
speaks inside the WebSocket's binary messages).

Go's framer writes a frame field by field, so one frame may arrive over several WebSocket
messages and one message may hold parts of two frames: `FrameReader` keeps the bytes until a
whole frame is there. Header blocks are zlib streams seeded with SPDY's dictionary, one stream per
direction for the connection's whole life (each block ends with a sync flush).
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field

from cluster.api.portforward.dictionary import HEADER_DICTIONARY

VERSION = 3
SYN_STREAM, SYN_REPLY, RST_STREAM, SETTINGS, PING, GOAWAY, HEADERS, WINDOW_UPDATE = 1, 2, 3, 4, 6, 7, 8, 9
FLAG_FIN = 0x01
# RST_STREAM status codes (spdy.RstStreamStatus) and GOAWAY's.
PROTOCOL_ERROR, INVALID_STREAM, REFUSED_STREAM, CANCEL = 1, 2, 3, 5
GOAWAY_OK, GOAWAY_PROTOCOL_ERROR = 0, 1
# The largest frame accepted: kubectl writes its io.Copy buffer (32 KiB) per DATA frame, and a
# header block of three short headers; anything far beyond is not a client of this protocol.
MAX_FRAME = 1 << 20
MAX_HEADER_BLOCK = 16 << 10
MAX_DATA_CHUNK = 32 << 10


class ProtocolError(Exception):
    """The peer broke the framing: the connection ends with GOAWAY (PROTOCOL_ERROR)."""


@dataclass(slots=True)
class Frame:
    control: bool
    kind: int  # a control frame's type; 0 for DATA
    flags: int
    stream_id: int = 0
    data: bytes = b""  # DATA's payload
    headers: dict[str, str] = field(default_factory=dict)
    value: int = 0  # RST_STREAM's status, PING's id, GOAWAY's last stream, WINDOW_UPDATE's delta

    @property
    def fin(self) -> bool:
        return bool(self.flags & FLAG_FIN)


class HeaderCodec:
    """Both directions' zlib streams of one connection."""

    def __init__(self) -> None:
        self._inflate = zlib.decompressobj(zdict=HEADER_DICTIONARY)
        self._deflate = zlib.compressobj(
            zlib.Z_BEST_COMPRESSION, zlib.DEFLATED, 15, 8, zlib.Z_DEFAULT_STRATEGY, HEADER_DICTIONARY
        )

    def decode(self, block: bytes) -> dict[str, str]:
        try:
            raw = self._inflate.decompress(block, MAX_HEADER_BLOCK + 1)
        except zlib.error as exc:
            raise ProtocolError(f"header block: {exc}") from exc
        if len(raw) > MAX_HEADER_BLOCK or self._inflate.unconsumed_tail:
            raise ProtocolError("header block too large")
        return _parse_block(raw)

    def encode(self, headers: dict[str, str]) -> bytes:
        raw = struct.pack(">I", len(headers))
        for name, value in headers.items():
            key, text = name.lower().encode(), value.encode()
            raw += struct.pack(">I", len(key)) + key + struct.pack(">I", len(text)) + text
        return self._deflate.compress(raw) + self._deflate.flush(zlib.Z_SYNC_FLUSH)


def _parse_block(raw: bytes) -> dict[str, str]:
    """Name/value pairs (several values of one name are joined by NUL, as Go's framer sends them)."""

    def take(at: int) -> tuple[bytes, int]:
        if at + 4 > len(raw):
            raise ProtocolError("truncated header block")
        (size,) = struct.unpack_from(">I", raw, at)
        end = at + 4 + size
        if end > len(raw):
            raise ProtocolError("truncated header block")
        return raw[at + 4 : end], end

    if len(raw) < 4:
        raise ProtocolError("truncated header block")
    (count,) = struct.unpack_from(">I", raw, 0)
    if count > 256:
        raise ProtocolError("too many headers")
    headers, at = {}, 4
    for _ in range(count):
        name, at = take(at)
        value, at = take(at)
        headers[name.decode("latin1").lower()] = value.decode("latin1").split("\x00")[0]
    return headers


class FrameReader:
    """Bytes in, whole frames out."""

    def __init__(self, codec: HeaderCodec) -> None:
        self.codec = codec
        self.buffer = bytearray()

    def feed(self, data: bytes) -> list[Frame]:
        self.buffer += data
        frames = []
        while len(self.buffer) >= 8:
            first, second = struct.unpack_from(">II", self.buffer, 0)
            length = second & 0xFFFFFF
            if length > MAX_FRAME:
                raise ProtocolError("frame too large")
            if len(self.buffer) < 8 + length:
                break
            body = bytes(self.buffer[8 : 8 + length])
            del self.buffer[: 8 + length]
            frames.append(self._frame(first, second >> 24, body))
        return frames

    def _frame(self, first: int, flags: int, body: bytes) -> Frame:
        if not first & 0x80000000:
            return Frame(False, 0, flags, first & 0x7FFFFFFF, data=body)
        version, kind = (first >> 16) & 0x7FFF, first & 0xFFFF
        if version != VERSION:
            raise ProtocolError(f"unsupported SPDY version {version}")
        if kind == SYN_STREAM:
            if len(body) < 10:
                raise ProtocolError("short SYN_STREAM")
            (stream_id,) = struct.unpack_from(">I", body, 0)
            return Frame(True, kind, flags, stream_id & 0x7FFFFFFF, headers=self.codec.decode(body[10:]))
        if kind in (SYN_REPLY, HEADERS):
            if len(body) < 4:
                raise ProtocolError("short header frame")
            (stream_id,) = struct.unpack_from(">I", body, 0)
            return Frame(True, kind, flags, stream_id & 0x7FFFFFFF, headers=self.codec.decode(body[4:]))
        if kind in (RST_STREAM, WINDOW_UPDATE, GOAWAY):
            if len(body) < 8:
                raise ProtocolError("short control frame")
            stream_id, value = struct.unpack_from(">II", body, 0)
            return Frame(True, kind, flags, stream_id & 0x7FFFFFFF, value=value)
        if kind == PING:
            if len(body) < 4:
                raise ProtocolError("short PING")
            return Frame(True, kind, flags, value=struct.unpack_from(">I", body, 0)[0])
        return Frame(True, kind, flags)  # SETTINGS and frame types this server has no use for


def _control(kind: int, flags: int, body: bytes) -> bytes:
    return struct.pack(">HHI", 0x8000 | VERSION, kind, (flags << 24) | len(body)) + body


def syn_reply(codec: HeaderCodec, stream_id: int, headers: dict[str, str] | None = None) -> bytes:
    return _control(SYN_REPLY, 0, struct.pack(">I", stream_id) + codec.encode(headers or {}))


def data(stream_id: int, payload: bytes = b"", fin: bool = False) -> list[bytes]:
    """DATA frames of at most MAX_DATA_CHUNK bytes each; FIN on the last."""
    chunks = [payload[at : at + MAX_DATA_CHUNK] for at in range(0, len(payload), MAX_DATA_CHUNK)] or [b""]
    frames = []
    for index, chunk in enumerate(chunks):
        flags = FLAG_FIN if fin and index == len(chunks) - 1 else 0
        frames.append(struct.pack(">II", stream_id, (flags << 24) | len(chunk)) + chunk)
    return frames


def rst_stream(stream_id: int, status: int) -> bytes:
    return _control(RST_STREAM, 0, struct.pack(">II", stream_id, status))


def ping(ping_id: int) -> bytes:
    return _control(PING, 0, struct.pack(">I", ping_id))


def goaway(last_stream_id: int, status: int = GOAWAY_OK) -> bytes:
    return _control(GOAWAY, 0, struct.pack(">II", last_stream_id, status))


def syn_stream(codec: HeaderCodec, stream_id: int, headers: dict[str, str], fin: bool = False) -> bytes:
    """What a client sends to open a stream (the server side never does in port-forward)."""
    body = struct.pack(">IIH", stream_id, 0, 0) + codec.encode(headers)
    return _control(SYN_STREAM, FLAG_FIN if fin else 0, body)
