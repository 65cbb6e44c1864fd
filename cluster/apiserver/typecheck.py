"""JSON types checked field by field, as the real API server's decoder does before anything else.

Kubernetes decodes a body into Go structs: `"containers": 7` fails there, with
`json: cannot unmarshal number into Go struct field PodSpec.spec.containers of type []v1.Container`,
before defaulting or validation ever see it. KubeSim keeps bodies as dicts, so this walk (over
upstream's type table that also feeds OpenAPI and strict decoding, `cluster.openapi.definitions`)
is that decoder's type check: after it, every field the defaulting and validating code reads has
the JSON type it expects. Unknown fields are not its business (strict decoding judges them).

A create or update answers 400 BadRequest, a patch whose result has a wrong type 422 Invalid on
the field `patch`, both worded as the API server words them. The REST handlers check a body once,
as they decode it, and tell the service layer so (`typed=True`).
"""

from __future__ import annotations

import json

from cluster.apiserver.decoding import bad_base64
from cluster.apiserver.errors import ApiError, Cause, DecodeError
from cluster.apiserver.kinds import KindInfo
from cluster.openapi import definitions
from k8s import gotime
from k8s.numbers import BigInteger
from k8s.quantity import FORMAT_WRONG, QuantityError, parse_quantity
from k8s.yamldocs import format_path

_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
_GO_SCALARS = {
    "string": "string",
    "boolean": "bool",
    "int32": "int32",
    "int64": "int64",
    "number": "float64",
    "Time": "v1.Time",
    "MicroTime": "v1.MicroTime",
    "Quantity": "resource.Quantity",
    "IntOrString": "intstr.IntOrString",
    "object": "map[string]interface {}",
}


def definition(info: KindInfo) -> str | None:
    """The upstream definition a body of this kind decodes into (Scale, DeleteOptions, Eviction and
    TokenRequest included), None for a kind upstream does not define."""
    group = "" if info.group == "meta.k8s.io" else info.group  # DeleteOptions: the core group's too
    return definitions.for_kind(group, info.version, info.kind)


def field_specs(type_name: str) -> dict[str, str] | None:
    """{field: type spec} of a definition (or of a registered kind by its name), or None for
    scalars and free-form objects."""
    return definitions.fields(type_name) or definitions.fields(definitions.of_kind(type_name) or "")


_fields = definitions.fields


def fits(spec: str, value: object) -> bool:
    """Whether a JSON value is of the type a field spec names (containers are checked one level)."""
    return _fits(spec, value)


def _json_kind(value: object) -> str:
    """The JSON value's kind as Go's decoder names it in UnmarshalTypeError."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _go_type(spec: str) -> str:
    if spec.startswith("["):
        return "[]" + _go_type(spec[1:-1])
    if spec.startswith("{"):
        return "map[string]" + _go_type(spec[1:-1])
    return _GO_SCALARS.get(spec) or f"{definitions.go_package(spec)}.{definitions.short(spec)}"


class _Refused(Exception):
    """A value the decoder refuses. The walk builds no path while it goes (it runs on every write);
    each level adds its key or index to `path` as the error passes back up (innermost first)."""

    def __init__(self) -> None:
        super().__init__()
        self.path: list[str | int] = []

    def in_field(self, key: str) -> None:
        """The refused value lies under the struct field `key`."""
        self.path.append(key)

    def field(self) -> str:
        """The refused value's place: spec.containers[0].ports[0].containerPort."""
        return format_path(tuple(reversed(self.path)))


class _Mismatch(_Refused):
    """A wrong JSON type; the message names the struct and its JSON field names, as Go's does."""

    def __init__(self, struct: str, spec: str, field: str, value: object) -> None:
        super().__init__()
        self.struct, self.spec, self.field_name, self.value = struct, spec, field, value
        self.keys: list[str] = []  # innermost first; Go's field stack has no list indices or map keys

    def in_field(self, key: str) -> None:
        super().in_field(key)
        self.keys.append(key)

    def message(self) -> str:
        value, spec = self.value, self.spec
        got = _json_kind(value)
        if isinstance(value, int | float) and not isinstance(value, bool) and spec in ("int32", "int64"):
            got = f"number {_number_text(value)}"
        go_type = _go_type(spec)
        where = f"Go struct field {definitions.short(self.struct)}.{'.'.join(reversed(self.keys))}"
        return f"json: cannot unmarshal {got} into {where} of type {go_type}"


def _fits(spec: str, value: object) -> bool:
    """Whether `value`'s JSON type is the one `spec` needs (the walk checks inside containers)."""
    if value is None:
        return True  # null leaves Go's zero value
    if spec.startswith("["):
        return isinstance(value, list)
    if spec in ("string", "Time", "MicroTime"):
        return isinstance(value, str)
    if spec in ("int32", "int64"):
        return isinstance(value, int) and not isinstance(value, bool)
    if spec == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if spec == "boolean":
        return isinstance(value, bool)
    if spec == "Quantity":  # a string, or a JSON number (Quantity's UnmarshalJSON takes both)
        return isinstance(value, str | int | float) and not isinstance(value, bool)
    if spec == "IntOrString":
        return isinstance(value, str | int) and not isinstance(value, bool)
    return isinstance(value, dict)  # maps, named types and free-form objects


# How the walk treats a field spec: its JSON type check, and what to walk inside.
_SCALAR, _LIST, _MAP, _TYPE = range(4)
_CHECKS = {
    "string": (str,),
    "Time": (str,),
    "MicroTime": (str,),
    "int32": (int,),
    "int64": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "Quantity": (str, int, float),
    "IntOrString": (str, int),
}
_shapes: dict[str, tuple[int, tuple, str]] = {}
# Types with their own UnmarshalJSON, which judges every JSON value itself.
_UNMARSHALERS = frozenset(("Quantity", "IntOrString", "Time", "MicroTime"))


class _Unmarshal(_Refused):
    """A type whose own UnmarshalJSON refused the value: Go's decoder returns that error as it is
    (no field path), and stops there."""

    def __init__(self, message: str) -> None:
        super().__init__()
        self.message = message

    def __str__(self) -> str:
        return self.message


_TIME_LAYOUTS = {"Time": gotime.RFC3339, "MicroTime": gotime.RFC3339_MICRO}


def _number_text(value: int | float) -> str:
    """The number as its JSON literal reads (Go quotes the literal: `number 2147483648`)."""
    if isinstance(value, BigInteger):
        return value.literal
    return str(value) if isinstance(value, int) else repr(value)


def _check_unmarshaler(struct: str, spec: str, field: str, value: object) -> None:
    """What the UnmarshalJSON of Quantity, IntOrString, Time or MicroTime says of a JSON value. A
    json.Unmarshal inside it that fails is reported with the outer field (Go's decoder adds its
    context to an UnmarshalTypeError), in the inner target's type (int32, string)."""
    if spec == "Quantity":  # ParseQuantity of the string, or of the raw JSON text (true, {…})
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise _Unmarshal(FORMAT_WRONG)
        try:
            parse_quantity(value)
        except QuantityError as error:
            raise _Unmarshal(error.go_error) from None
    elif spec == "IntOrString":  # a string as a string; anything else into an int32
        if not isinstance(value, str) and not (type(value) is int and -(2**31) <= value < 2**31):
            raise _Mismatch(struct, "int32", field, value)
    elif not isinstance(value, str):  # Time, MicroTime: json.Unmarshal into a string first
        raise _Mismatch(struct, "string", field, value)
    elif error := gotime.parse_error(_TIME_LAYOUTS[spec], value):
        raise _Unmarshal(error)


def _shape(spec: str) -> tuple[int, tuple, str]:
    """(what to walk, the Python types that fit, the inner spec or the type name), per spec."""
    found = _shapes.get(spec)
    if found is None:
        if spec.startswith("["):
            found = (_LIST, (list,), spec[1:-1])
        elif spec.startswith("{"):
            found = (_MAP, (dict,), spec[1:-1])
        elif spec in _CHECKS:
            found = (_SCALAR, _CHECKS[spec], spec)
        else:
            found = (_TYPE if _fields(spec) is not None else _SCALAR, (dict,), spec)
        _shapes[spec] = found
    return found


def _walk_type(type_name: str, value: dict) -> None:
    fields = _fields(type_name) or {}
    for key, child in value.items():
        spec = fields.get(key)
        if spec is not None and child is not None:  # null leaves Go's zero value
            try:
                _walk_field(type_name, spec, key, child)
            except _Refused as refused:
                refused.in_field(key)
                raise


def _in_range(spec: str, field: str, value: int) -> bool:
    """Go's int32/int64 bounds; replicas is left to validation, which answers 422 as upstream."""
    if field == "replicas":
        return True
    bits = 31 if spec == "int32" else 63
    return -(2**bits) <= value < 2**bits


def _walk_field(struct: str, spec: str, field: str, value: object) -> None:
    """`value` (not None) of a field of `struct` whose spec is `spec`."""
    if spec in _UNMARSHALERS:
        _check_unmarshaler(struct, spec, field, value)
        return
    shape, types, inner = _shape(spec)
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
        raise _Mismatch(struct, spec, field, value)
    if shape == _SCALAR:
        if types == (int,) and not _in_range(spec, field, value):  # type: ignore[arg-type]
            raise _Mismatch(struct, spec, field, value)
    elif shape == _TYPE:
        _walk_type(spec, value)  # type: ignore[arg-type]
    else:
        items = enumerate(value) if shape == _LIST else value.items()  # type: ignore[union-attr]
        for place, item in items:
            if item is not None:
                try:
                    _walk_field(struct, inner, field, item)
                except _Refused as refused:
                    refused.path.append(place)
                    raise


def _message(refused: _Refused) -> str:
    return refused.message() if isinstance(refused, _Mismatch) else str(refused)


def located_error(info: KindInfo, obj: dict) -> tuple[str, str] | None:
    """Go's decoding error for the first value of `obj` the decoder refuses, and that value's
    field path ("" when it has none), else None."""
    name = definition(info)
    try:
        if name is not None:
            _walk_type(name, obj)
        elif obj.get("metadata") is not None:  # a kind upstream does not define still has ObjectMeta
            _walk_metadata(info.kind, obj)
    except _Refused as refused:
        return _message(refused), refused.field()
    # A Secret's data is []byte in Go: JSON carries it as base64, which the decoder checks.
    error = bad_base64(obj) if info.kind == "Secret" else None
    return (error, "") if error else None


def _walk_metadata(kind: str, obj: dict) -> None:
    try:
        _walk_field(kind, _META, "metadata", obj["metadata"])
    except _Refused as refused:
        refused.in_field("metadata")
        raise


def type_error(info: KindInfo, obj: dict) -> str | None:
    """Go's decoding error for the first field of `obj` whose JSON type is wrong, else None."""
    found = located_error(info, obj)
    return found[0] if found else None


def check_body(info: KindInfo, obj: dict) -> None:
    """A create or update body: 400 `Pod in version "v1" cannot be handled as a Pod: json: ...`;
    the error knows the refused field (kube-apiserver's Status does not say it; the page does)."""
    found = located_error(info, obj)
    if found:
        kind = info.kind
        message = f'{kind} in version "{info.version}" cannot be handled as a {kind}: {found[0]}'
        raise DecodeError(message, found[1])


def check_patched(info: KindInfo, name: str, obj: dict) -> None:
    """A patch's result: 422 Invalid on the field `patch`, as the API server's patcher answers."""
    error = type_error(info, obj)
    if not error:
        return
    shown = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    if len(shown) > 200:
        shown = shown[:200] + "..."
    message = f"Invalid value: {json.dumps(shown, ensure_ascii=False)}: {error}"
    kind = f"{info.kind}.{info.group}" if info.group else info.kind
    cause = Cause("FieldValueInvalid", "patch", message).to_json()
    details = {"name": name, "kind": info.kind, "causes": [cause]}
    if info.group:
        details["group"] = info.group
    raise ApiError(422, "Invalid", f'{kind} "{name}" is invalid: patch: {message}', details)
