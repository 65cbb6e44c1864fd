"""A walk over the wire bytes that names what is wrong, as the API server's generated decoders do.

The `protobuf` package parses; this only checks first, because its errors say no more than "Error
parsing message" and it keeps a field sent with the wrong wire type as an unknown field, where
upstream's gogo-generated Unmarshal stops with `proto: wrong wireType = 0 for field Replicas`.
"""

from __future__ import annotations

from cluster.protobuf.schema import FIELDS, Field

_VARINT_TYPES = {"int32", "int64", "uint32", "uint64", "sint32", "sint64", "bool"}
_WIRE = {"double": 1, "float": 5}
EOF = "unexpected EOF"
OVERFLOW = "proto: integer overflow"
NEGATIVE = "proto: negative length found during unmarshaling"


class WireError(ValueError):
    pass


def _varint(data: bytes, pos: int, end: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if shift >= 64:
            raise WireError(OVERFLOW)
        if pos >= end:
            raise WireError(EOF)
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value & 0xFFFFFFFFFFFFFFFF, pos
        shift += 7


def _go_name(field: str) -> str:
    return field[0].upper() + field[1:]


def _expected(field: Field) -> int:
    if field.type in _VARINT_TYPES:
        return 0
    return _WIRE.get(field.type, 2)


def _skip(data: bytes, pos: int, end: int, wire_type: int, depth: int = 0) -> int:
    if wire_type == 0:
        return _varint(data, pos, end)[1]
    if wire_type == 1:
        pos += 8
    elif wire_type == 5:
        pos += 4
    elif wire_type == 2:
        length, pos = _varint(data, pos, end)
        if length >= 1 << 63:
            raise WireError(NEGATIVE)
        pos += length
    elif wire_type == 3:
        while True:
            key, pos = _varint(data, pos, end)
            if key & 7 == 4:
                return pos
            pos = _skip(data, pos, end, key & 7, depth + 1)
    else:
        raise WireError(f"proto: illegal wireType {wire_type}")
    if pos > end:
        raise WireError(EOF)
    return pos


_BY_NUMBER: dict[str, dict[int, tuple[Field, int]]] = {
    name: {f.number: (f, _expected(f)) for f in fields} for name, fields in FIELDS.items()
}


def check(data: bytes, message: str, start: int = 0, end: int | None = None) -> None:
    """Raise WireError naming the first problem in `data` read as `message` (a full proto name)."""
    end = len(data) if end is None else end
    by_number = _BY_NUMBER[message]
    short = message.rsplit(".", 1)[1]
    pos = start
    while pos < end:
        key, pos = _varint(data, pos, end)
        number, wire_type = key >> 3, key & 7
        if wire_type == 4:
            raise WireError(f"proto: {short}: wiretype end group for non-group")
        if number <= 0:
            raise WireError(f"proto: {short}: illegal tag {number} (wire type {key})")
        known = by_number.get(number)
        if known is None:
            pos = _skip(data, pos, end, wire_type)
            continue
        field, expected = known
        packed = field.repeated and expected != 2 and wire_type == 2
        if wire_type != expected and not packed:
            raise WireError(f"proto: wrong wireType = {wire_type} for field {_go_name(field.name)}")
        if wire_type != 2:
            pos = _skip(data, pos, end, wire_type)
            continue
        length, pos = _varint(data, pos, end)
        if length >= 1 << 63:
            raise WireError(NEGATIVE)
        if pos + length > end:
            raise WireError(EOF)
        if field.type == "map":
            _check_entry(data, pos, pos + length, field)
        elif field.type in FIELDS:
            check(data, field.type, pos, pos + length)
        elif packed:
            inner = pos
            while inner < pos + length:
                inner = _skip(data, inner, pos + length, expected)
        pos += length


def _check_entry(data: bytes, pos: int, end: int, field: Field) -> None:
    while pos < end:
        key, pos = _varint(data, pos, end)
        number, wire_type = key >> 3, key & 7
        if number == 2 and field.map_value in FIELDS:
            if wire_type != 2:
                raise WireError(f"proto: wrong wireType = {wire_type} for field {_go_name(field.name)}")
            length, pos = _varint(data, pos, end)
            if pos + length > end:
                raise WireError(EOF)
            check(data, field.map_value, pos, pos + length)
            pos += length
        else:
            pos = _skip(data, pos, end, wire_type)
