"""Protobuf wire bytes written by hand (not by the `protobuf` package), for the codec's tests."""

from __future__ import annotations

PREFIX = b"k8s\x00"


def varint(value: int) -> bytes:
    value &= 0xFFFFFFFFFFFFFFFF
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def tag(number: int, wire_type: int) -> bytes:
    return varint(number << 3 | wire_type)


def num(number: int, value: int) -> bytes:
    """A varint field (int32, int64, bool)."""
    return tag(number, 0) + varint(value)


def text(number: int, value: str | bytes) -> bytes:
    """A length-delimited field: a string, bytes or an already-encoded message."""
    data = value.encode() if isinstance(value, str) else value
    return tag(number, 2) + varint(len(data)) + data


def msg(number: int, *fields: bytes) -> bytes:
    return text(number, b"".join(fields))


def entry(number: int, key: str, value: str | bytes) -> bytes:
    """One map<string, V> entry."""
    return msg(number, text(1, key), text(2, value))


def envelope(api_version: str, kind: str, raw: bytes, encoding: str = "", content_type: str = "") -> bytes:
    """`k8s\\x00` + runtime.Unknown{typeMeta, raw, contentEncoding, contentType}."""
    type_meta = (text(1, api_version) if api_version else b"") + (text(2, kind) if kind else b"")
    body = msg(1, type_meta) + text(2, raw)
    if encoding:
        body += text(3, encoding)
    if content_type:
        body += text(4, content_type)
    return PREFIX + body
