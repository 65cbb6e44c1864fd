"""A decoded message -> the dict Go's encoding/json would write for the same Go struct.

The API server decodes protobuf into the same Go structs as JSON, so the body a protobuf client
sends must become exactly the dict its JSON twin would: zero values dropped where the field is
`omitempty` and not a pointer, `null` for an empty non-omitempty slice, map or pointer, `{}` for
an empty struct, inlined structs merged into their parent, and the types that marshal themselves
(Time, MicroTime, Duration, Quantity, IntOrString, RawExtension, FieldsV1) as their JSON forms.
"""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime

from cluster.protobuf.schema import FIELDS, META, Field

RESOURCE = "k8s.io.apimachinery.pkg.api.resource"
INTSTR = "k8s.io.apimachinery.pkg.util.intstr"
RUNTIME = "k8s.io.apimachinery.pkg.runtime"


class MappingError(ValueError):
    """A message the wire accepted but Go's types would not (an impossible IntOrString, bad JSON)."""


def _instant(msg, fmt: str):
    if msg.ByteSize() == 0:  # Go's Time.Unmarshal: no bytes is the zero time, which marshals as null
        return None
    try:
        moment = datetime.fromtimestamp(msg.seconds + msg.nanos / 1e9, UTC)
    except (OverflowError, OSError, ValueError):
        raise MappingError(f"Time.MarshalJSON: year outside of range [0,9999] ({msg.seconds}s)") from None
    return moment.strftime(fmt)


def _time(msg):
    return _instant(msg, "%Y-%m-%dT%H:%M:%SZ")


def _micro_time(msg):
    return _instant(msg, "%Y-%m-%dT%H:%M:%S.%fZ")


def _quantity(msg):
    return msg.string or "0"


def _int_or_string(msg):
    if msg.type == 0:
        return msg.intVal
    if msg.type == 1:
        return msg.strVal
    raise MappingError("impossible IntOrString.Type")


def _raw_json(raw: bytes, what: str):
    if not raw:
        return None
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise MappingError(f"{what} does not hold JSON") from None


SPECIAL = {
    f"{META}.Time": _time,
    f"{META}.MicroTime": _micro_time,
    f"{META}.Duration": lambda msg: msg.duration or "0s",
    f"{META}.FieldsV1": lambda msg: _raw_json(msg.Raw, "FieldsV1"),
    f"{RESOURCE}.Quantity": _quantity,
    f"{INTSTR}.IntOrString": _int_or_string,
    f"{RUNTIME}.RawExtension": lambda msg: _raw_json(msg.raw, "RawExtension"),
}


def _scalar(value, typ: str):
    if isinstance(value, bytes):
        if typ == "string":  # invalid UTF-8 in a proto2 string: Go's JSON writes U+FFFD for it
            return value.decode("utf-8", "replace")
        return base64.b64encode(value).decode("ascii")
    return value


def _value(value, typ: str):
    return to_json(value, typ) if typ in FIELDS else _scalar(value, typ)


def to_json(msg, full_name: str):
    """The JSON form of `msg`, a message of type `full_name`."""
    special = SPECIAL.get(full_name)
    if special is not None:
        return special(msg)
    out: dict = {}
    for field in FIELDS[full_name]:
        _put(out, msg, field)
    return out


def _put(out: dict, msg, field: Field) -> None:
    name = field.name
    if field.type == "map" or field.repeated:
        values = getattr(msg, name)
        if len(values):
            if field.type == "map":
                out[name] = {key: _value(values[key], field.map_value) for key in sorted(values)}
            else:
                out[name] = [_value(v, field.type) for v in values]
        elif not field.omitempty:
            out[name] = None
        return
    if field.pointer and not msg.HasField(name):
        if not field.omitempty:
            out[name] = None
        return
    value = getattr(msg, name)
    if field.type in FIELDS:
        converted = to_json(value, field.type)
        if field.inline and isinstance(converted, dict):
            out.update(converted)
        else:
            out[name] = converted
        return
    if field.omitempty and not field.pointer and value in (0, "", b"", False):
        return
    out[name] = _scalar(value, field.type)
