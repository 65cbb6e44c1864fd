"""`application/vnd.kubernetes.protobuf` request bodies -> the dict the JSON path would have parsed.

The body is the magic `k8s\\x00`, then a runtime.Unknown: typeMeta (apiVersion, kind), raw (the
typed message), contentEncoding and contentType. As upstream's protobuf serializer does, a missing
kind or version is taken from the endpoint's own; the typed message is then checked on the wire,
parsed by the `protobuf` package and mapped to JSON (tojson.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from google.protobuf.message import DecodeError

from cluster.protobuf import schema, wire
from cluster.protobuf.tojson import MappingError, to_json

MEDIA_TYPE = "application/vnd.kubernetes.protobuf"
PREFIX = b"k8s\x00"
UNKNOWN = "k8s.io.apimachinery.pkg.runtime.Unknown"
SCHEME = "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"


@dataclass
class ProtobufError(ValueError):
    """A body that cannot be decoded; `kind`/`version` are what the envelope named, when it got that far."""

    message: str
    kind: str = ""
    version: str = ""
    unsupported: bool = False  # an encoding or content type we do not read: 415, not 400

    def __str__(self) -> str:
        return self.message


def _parse(data: bytes, message: str):
    try:
        wire.check(data, message)
    except RecursionError:  # unknown groups nested without end
        raise wire.WireError(f"proto: {message.rsplit('.', 1)[1]}: groups nested too deeply") from None
    try:
        return schema.message_class(message).FromString(data)
    except DecodeError as err:
        raise wire.WireError(f"proto: {message.rsplit('.', 1)[1]}: {err}") from None


def _envelope(raw: bytes):
    if not raw:
        raise ProtobufError("empty data")
    if not raw.startswith(PREFIX):
        expected = " ".join(str(byte) for byte in PREFIX)
        raise ProtobufError(
            f"provided data does not appear to be a protobuf message, expected prefix [{expected}]"
        )
    if len(raw) == len(PREFIX):
        raise ProtobufError("empty body")
    try:
        return _parse(raw[len(PREFIX) :], UNKNOWN)
    except wire.WireError as err:
        raise ProtobufError(str(err)) from None


def _group_version(api_version: str) -> tuple[str, str]:
    return tuple(api_version.split("/", 1)) if "/" in api_version else ("", api_version)


def decode(raw: bytes, api_version: str = "", kind: str = "") -> dict:
    """The object in a protobuf body; `api_version`/`kind` are the endpoint's, used when the envelope
    leaves them out. Raises ProtobufError."""
    unknown = _envelope(raw)
    body_version, body_kind = unknown.typeMeta.apiVersion, unknown.typeMeta.kind
    body_kind = body_kind or kind
    if not body_version and api_version:
        body_version = api_version
    _group, version = _group_version(body_version)
    type_meta = (
        f'runtime.TypeMeta{{APIVersion:"{unknown.typeMeta.apiVersion}", Kind:"{unknown.typeMeta.kind}"}}'
    )
    if not body_kind:
        raise ProtobufError(f"Object 'Kind' is missing in '{type_meta}'")
    if not body_version:
        raise ProtobufError(f"Object 'apiVersion' is missing in '{type_meta}'", body_kind)
    if unknown.contentEncoding:
        raise ProtobufError(
            f'unsupported content encoding "{unknown.contentEncoding}" in the protobuf envelope',
            body_kind,
            version,
            unsupported=True,
        )
    if unknown.contentType not in ("", MEDIA_TYPE, "application/json"):
        raise ProtobufError(
            f'unsupported content type "{unknown.contentType}" in the protobuf envelope',
            body_kind,
            version,
            unsupported=True,
        )
    if unknown.contentType == "application/json":
        return _from_json(unknown.raw, body_version, body_kind, version)
    message = schema.message_for(body_version, body_kind)
    if message is None:
        raise ProtobufError(
            f'no kind "{body_kind}" is registered for version "{body_version}" in scheme "{SCHEME}"',
            body_kind,
            version,
        )
    try:
        obj = to_json(_parse(unknown.raw, message), message)
    except (wire.WireError, MappingError) as err:
        raise ProtobufError(str(err), body_kind, version) from None
    except UnicodeDecodeError:  # a map key the protobuf package cannot hand back as str
        raise ProtobufError("proto: a map key is not valid UTF-8", body_kind, version) from None
    return {"kind": body_kind, "apiVersion": body_version, **obj}


def _from_json(raw: bytes, api_version: str, kind: str, version: str) -> dict:
    try:
        obj = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ProtobufError(f"the envelope's JSON is malformed: {err}", kind, version) from None
    if not isinstance(obj, dict):
        raise ProtobufError("the envelope's JSON is not an object", kind, version)
    obj.setdefault("kind", kind)
    obj.setdefault("apiVersion", api_version)
    return obj


def summarize(data: bytes, limit: int = 30) -> str:
    """What upstream's summarizeData prints for a body it could not recognise."""
    if not data:
        return "<empty>"
    if data[:1] == b"{":
        text = data[:limit].decode("utf-8", "replace")
        return text + " ..." if len(data) > limit else text
    return data[:limit].hex() + " ..." if len(data) > limit else data.hex()
