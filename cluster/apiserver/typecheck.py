"""JSON types checked field by field, as the real API server's decoder does before anything else.

Kubernetes decodes a body into Go structs: `"containers": 7` fails there, with
`json: cannot unmarshal number into Go struct field PodSpec.spec.containers of type []v1.Container`,
before defaulting or validation ever see it. KubeSim keeps bodies as dicts, so this walk (over the
same field table that feeds OpenAPI and strict decoding, `cluster.kubeapi.schema_types`) is that
decoder's type check: after it, every field the defaulting and validating code reads has the
JSON type it expects. Unknown fields are not its business (strict decoding judges them).

A create or update answers 400 BadRequest, a patch whose result has a wrong type 422 Invalid on
the field `patch`, both worded as the API server words them.
"""

from __future__ import annotations

import json

from cluster.apiserver import networktypes
from cluster.apiserver.decoding import bad_base64
from cluster.apiserver.errors import ApiError, Cause, bad_request
from cluster.apiserver.kinds import KindInfo
from cluster.kubeapi.schema_types import TYPES

# Kinds whose types the OpenAPI table leaves open; their fields are typed here.
_EXTRA: dict[str, dict[str, str]] = {
    "Event": {
        "apiVersion": "string",
        "kind": "string",
        "metadata": "ObjectMeta",
        "involvedObject": "ObjectReference",
        "reason": "string",
        "message": "string",
        "source": "EventSource",
        "firstTimestamp": "Time",
        "lastTimestamp": "Time",
        "count": "integer",
        "type": "string",
        "eventTime": "Time",
        "series": "object",
        "action": "string",
        "related": "ObjectReference",
        "reportingComponent": "string",
        "reportingInstance": "string",
    },
    "ObjectReference": {
        f: "string"
        for f in ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")
    },
    "EventSource": {"component": "string", "host": "string"},
    "Namespace": {
        "apiVersion": "string",
        "kind": "string",
        "metadata": "ObjectMeta",
        "spec": "NamespaceSpec",
        "status": "NamespaceStatus",
    },
    "NamespaceSpec": {"finalizers": "[string]"},
    "NamespaceStatus": {"phase": "string", "conditions": "[object]"},
    "Lease": {"apiVersion": "string", "kind": "string", "metadata": "ObjectMeta", "spec": "LeaseSpec"},
    "LeaseSpec": {
        "holderIdentity": "string",
        "leaseDurationSeconds": "integer",
        "acquireTime": "Time",
        "renewTime": "Time",
        "leaseTransitions": "integer",
        "strategy": "string",
        "preferredHolder": "string",
    },
    "Scale": {"apiVersion": "string", "kind": "string", "metadata": "ObjectMeta", "spec": "ScaleSpec"},
    "ScaleSpec": {"replicas": "integer"},
    "DeleteOptions": {
        "apiVersion": "string",
        "kind": "string",
        "gracePeriodSeconds": "integer",
        "preconditions": "Preconditions",
        "orphanDependents": "boolean",
        "propagationPolicy": "string",
        "dryRun": "[string]",
    },
    "Preconditions": {"uid": "string", "resourceVersion": "string"},
    "PodDisruptionBudget": {
        "apiVersion": "string",
        "kind": "string",
        "metadata": "ObjectMeta",
        "spec": "PodDisruptionBudgetSpec",
        "status": "object",
    },
    "PodDisruptionBudgetSpec": {
        "minAvailable": "IntOrString",
        "maxUnavailable": "IntOrString",
        "selector": "LabelSelector",
        "unhealthyPodEvictionPolicy": "string",
    },
    "Eviction": {
        "apiVersion": "string",
        "kind": "string",
        "metadata": "ObjectMeta",
        "deleteOptions": "DeleteOptions",
    },
    **networktypes.TYPES,
}
_INT32_FIELDS = (
    "replicas containerPort hostPort port nodePort weight maxSkew minDomains minReadySeconds "
    "revisionHistoryLimit "
    "progressDeadlineSeconds priority count leaseDurationSeconds leaseTransitions successThreshold "
    "failureThreshold initialDelaySeconds timeoutSeconds periodSeconds readyReplicas availableReplicas "
    "fullyLabeledReplicas updatedReplicas unavailableReplicas terminatingReplicas collisionCount"
)
_INT32 = frozenset(_INT32_FIELDS.split())
_GO_SCALARS = {"string": "string", "boolean": "bool", "Time": "v1.Time", "object": "map[string]interface {}"}


def field_specs(type_name: str) -> dict[str, str] | None:
    """{field: type spec} of a named type, or None for scalars and free-form objects."""
    return _EXTRA.get(type_name) or TYPES.get(type_name)


_fields = field_specs


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


def _go_type(spec: str, field: str) -> str:
    if spec.startswith("["):
        return "[]" + _go_type(spec[1:-1], field)
    if spec.startswith("{"):
        return "map[string]" + _go_type(spec[1:-1], field)
    if spec == "integer":
        return "int32" if field in _INT32 else "int64"
    if spec == "Quantity":
        return "resource.Quantity"
    if spec == "IntOrString":
        return "intstr.IntOrString"
    return _GO_SCALARS.get(spec, f"v1.{spec}")


class _Mismatch(Exception):
    """A wrong JSON type. The walk builds no path while it goes (it runs on every write); each
    level adds its field name as the error passes back up, and the message is made at the top."""

    def __init__(self, struct: str, spec: str, field: str, value: object) -> None:
        super().__init__()
        self.struct, self.spec, self.field, self.value = struct, spec, field, value
        self.keys: list[str] = []  # innermost first

    def message(self) -> str:
        value, spec = self.value, self.spec
        got = _json_kind(value)
        if isinstance(value, int | float) and not isinstance(value, bool) and spec == "integer":
            got = f"number {value:g}" if isinstance(value, float) else f"number {value}"
        go_type = _go_type(spec, self.field)
        where = f"Go struct field {self.struct}.{'.'.join(reversed(self.keys))}"
        return f"json: cannot unmarshal {got} into {where} of type {go_type}"


def _fits(spec: str, value: object) -> bool:
    """Whether `value`'s JSON type is the one `spec` needs (the walk checks inside containers)."""
    if value is None:
        return True  # null leaves Go's zero value
    if spec.startswith("["):
        return isinstance(value, list)
    if spec in ("string", "Time"):
        return isinstance(value, str)
    if spec == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
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
    "integer": (int,),
    "boolean": (bool,),
    "Quantity": (str, int, float),
    "IntOrString": (str, int),
}
_shapes: dict[str, tuple[int, tuple, str]] = {}


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
            except _Mismatch as mismatch:
                mismatch.keys.append(key)
                raise


def _in_range(field: str, value: int) -> bool:
    """Go's int32/int64 bounds; replicas is left to validation, which answers 422 as upstream."""
    if field == "replicas":
        return True
    bits = 31 if field in _INT32 else 63
    return -(2**bits) <= value < 2**bits


def _walk_field(struct: str, spec: str, field: str, value: object) -> None:
    """`value` (not None) of a field of `struct` whose spec is `spec`."""
    shape, types, inner = _shape(spec)
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
        raise _Mismatch(struct, spec, field, value)
    if shape == _SCALAR:
        if types == (int,) and not _in_range(field, value):  # type: ignore[arg-type]
            raise _Mismatch(struct, spec, field, float(value))  # type: ignore[arg-type]
    elif shape == _TYPE:
        _walk_type(spec, value)  # type: ignore[arg-type]
    else:
        for item in value if shape == _LIST else value.values():  # type: ignore[union-attr]
            if item is not None:
                _walk_field(struct, inner, field, item)


def _metadata_error(kind: str, obj: dict) -> str | None:
    meta = obj.get("metadata")
    if meta is None:
        return None
    try:
        _walk_field(kind, "ObjectMeta", "metadata", meta)
    except _Mismatch as mismatch:
        mismatch.keys.append("metadata")
        return mismatch.message()
    return None


def type_error(kind: str, obj: dict) -> str | None:
    """Go's decoding error for the first field of `obj` whose JSON type is wrong, else None."""
    if _fields(kind) is None:
        return _metadata_error(kind, obj)  # a kind without a field table still has ObjectMeta
    try:
        _walk_type(kind, obj)
    except _Mismatch as mismatch:
        return mismatch.message()
    # A Secret's data is []byte in Go: JSON carries it as base64, which the decoder checks.
    return bad_base64(obj) if kind == "Secret" else None


def check_body(info: KindInfo, obj: dict) -> None:
    """A create or update body: 400 `Pod in version "v1" cannot be handled as a Pod: json: ...`."""
    error = type_error(info.kind, obj)
    if error:
        kind = info.kind
        raise bad_request(f'{kind} in version "{info.version}" cannot be handled as a {kind}: {error}')


def check_patched(info: KindInfo, name: str, obj: dict) -> None:
    """A patch's result: 422 Invalid on the field `patch`, as the API server's patcher answers."""
    error = type_error(info.kind, obj)
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
