"""The API's types as kube-apiserver v1.33 publishes them, from the generated definitions.json.

One table for everything that needs a kind's fields: the OpenAPI documents kubectl explains and
validates with (`cluster/kubeapi/openapi.py`), strict decoding's unknown fields, the decoder's JSON
type check (`cluster/apiserver/typecheck.py`) and strategic merge's list keys. Definitions are
named as upstream names them (`io.k8s.api.core.v1.PodSpec`); `generate.py` writes the file.

`fields(name)` gives a definition's fields as compact specs for the walks that run on every write:
`string`, `boolean`, `int32`, `int64`, `number`, `object` (free-form), `Quantity`, `IntOrString`,
`Time`, `MicroTime`, `[spec]` (a list), `{spec}` (a map of string to spec), or another definition's
full name.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from cluster.apiserver.kinds import kind_info

_TABLE = json.loads(Path(__file__).with_name("definitions.json").read_text())
SOURCE: dict = _TABLE["x-kubesim-source"]
DEFINITIONS: dict[str, dict] = _TABLE["definitions"]
REF_PREFIX = "#/definitions/"

# Definitions that are one JSON scalar (they marshal themselves): walked as their short name.
SCALARS = {
    "io.k8s.apimachinery.pkg.api.resource.Quantity": "Quantity",
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": "IntOrString",
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time": "Time",
    "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": "MicroTime",
}

_BY_KIND: dict[tuple[str, str, str], str] = {}
for _name, _schema in DEFINITIONS.items():
    for _gvk in _schema.get("x-kubernetes-group-version-kind", ()):
        _BY_KIND.setdefault((_gvk["group"], _gvk["version"], _gvk["kind"]), _name)
# A kind's own definition wins over the option kinds every group registers (DeleteOptions, ...).
for _name, _schema in DEFINITIONS.items():
    _gvks = _schema.get("x-kubernetes-group-version-kind", ())
    if len(_gvks) == 1:
        _gvk = _gvks[0]
        _BY_KIND[(_gvk["group"], _gvk["version"], _gvk["kind"])] = _name


def for_kind(group: str, version: str, kind: str) -> str | None:
    """The definition of a served kind (`("apps", "v1", "Deployment")` → `io.k8s.api.apps.v1.Deployment`)."""
    return _BY_KIND.get((group, version, kind))


def of_kind(kind: str, version: str | None = None) -> str | None:
    """The definition of a registered kind in `version` (its stored version by default); None for
    a kind upstream does not define (a test's toy kind)."""
    info = kind_info(kind)
    if info is None:
        return None
    return for_kind(info.group, version or info.version, kind) or for_kind(info.group, info.version, kind)


def short(name: str) -> str:
    """The name kubectl explain prints for a definition: `PodAntiAffinity`."""
    return name.rsplit(".", 1)[-1]


def go_package(name: str) -> str:
    """The Go package a definition's struct lives in, as Go's errors name it (`v1`, `resource`)."""
    return name.rsplit(".", 2)[-2]


def _ref(schema: dict) -> str | None:
    ref = schema.get("$ref", "")
    return ref[len(REF_PREFIX) :] if ref.startswith(REF_PREFIX) else None


def spec_of(schema: dict) -> str:
    """The compact spec of one property's schema."""
    ref = _ref(schema)
    if ref is not None:
        return SCALARS.get(ref) or (ref if DEFINITIONS[ref].get("properties") else "object")
    kind = schema.get("type")
    if kind == "array":
        return f"[{spec_of(schema.get('items', {}))}]"
    if kind == "object":
        extra = schema.get("additionalProperties")
        return f"{{{spec_of(extra)}}}" if isinstance(extra, dict) else "object"
    if kind == "integer":
        return schema.get("format", "int64")
    if kind in ("string", "boolean", "number"):
        return kind
    return "object"


@cache
def fields(name: str) -> dict[str, str] | None:
    """{field: spec} of a definition with properties, else None."""
    schema = DEFINITIONS.get(name)
    if not schema or not schema.get("properties"):
        return None
    return {field: spec_of(prop) for field, prop in schema["properties"].items()}


@cache
def merge_keys(name: str) -> dict[str, str]:
    """{field: merge key} of the lists a strategic merge patch merges element by element
    (`patchStrategy:"merge"`); "" for a list of primitives merged as a set."""
    out = {}
    for field, prop in DEFINITIONS.get(name, {}).get("properties", {}).items():
        if "merge" in prop.get("x-kubernetes-patch-strategy", "").split(","):
            out[field] = prop.get("x-kubernetes-patch-merge-key", "")
    return out
