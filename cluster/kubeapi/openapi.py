"""OpenAPI v3 documents for kubectl, and the strict decoding that goes with them.

kubectl validates with `--validate=strict` by default. Before sending a manifest it looks in
`/openapi/v3/<group-version>` for a PATCH operation of the object's kind that takes the
`fieldValidation` query parameter; when it finds one it leaves validation to the server and sends
`fieldValidation=Strict`. So each document lists our paths with that parameter, and the server
answers unknown fields with the real API server's strict decoding error (`strict_decode`).

The PATCH operations deliberately do not advertise `application/strategic-merge-patch+json` in
their request bodies: `kubectl apply` would then compute its three-way patch from these schemas,
which only list the fields students write. Without it, kubectl uses the patch metadata compiled
into it from the real Go types, which is exactly right.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache

from cluster.apiserver.kinds import generation, group_versions, kind_info, kinds_in
from cluster.kubeapi import schema_types
from cluster.kubeapi.resources import Resource, groups

_QUALIFIED = {
    "Quantity": "io.k8s.apimachinery.pkg.api.resource.Quantity",
    "IntOrString": "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
    "Time": "io.k8s.apimachinery.pkg.apis.meta.v1.Time",
}
_PRIMITIVES = {"string", "integer", "boolean", "number"}


def _open_kind(name: str) -> bool:
    """A registered kind we do not describe field by field: its documents keep unknown fields."""
    return name not in schema_types.TYPES and kind_info(name) is not None


def qualified(name: str) -> str:
    if name in _QUALIFIED:
        return _QUALIFIED[name]
    if name in schema_types.META_TYPES:
        return f"io.k8s.apimachinery.pkg.apis.meta.v1.{name}"
    if name in schema_types.APPS_TYPES:
        return f"io.k8s.api.apps.v1.{name}"
    if name in schema_types.BATCH_TYPES:
        return f"io.k8s.api.batch.v1.{name}"
    info = kind_info(name)
    if info is not None and info.group:  # coordination.k8s.io/v1 Lease: io.k8s.api.coordination.v1
        return f"io.k8s.api.{info.group.split('.')[0]}.{info.version}.{name}"
    return f"io.k8s.api.core.v1.{name}"


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{qualified(name)}"}


def _field_schema(spec: str, refs: set[str], item: bool = False) -> dict:
    """One field's schema; object-typed fields are wrapped in allOf the way kube-openapi does."""
    if spec.startswith("["):
        return {"type": "array", "items": _field_schema(spec[1:-1], refs, item=True)}
    if spec.startswith("{"):
        return {"type": "object", "additionalProperties": _field_schema(spec[1:-1], refs, item=True)}
    if spec in _PRIMITIVES:
        return {"type": spec, **({"format": "int64"} if spec == "integer" else {})}
    if spec == "object":
        return {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    name = spec
    refs.add(name)
    return _ref(name) if item or name in _QUALIFIED else {"allOf": [_ref(name)], "default": {}}


def _type_schema(name: str, refs: set[str]) -> dict:
    if name == "Quantity":
        return {"type": "string", "x-kubernetes-int-or-string": True}
    if name == "IntOrString":
        return {"type": "string", "format": "int-or-string", "x-kubernetes-int-or-string": True}
    if name == "Time":
        return {"type": "string", "format": "date-time"}
    if _open_kind(name):
        meta = {"allOf": [_ref("ObjectMeta")], "default": {}}
        props = {"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": meta}
        refs.add("ObjectMeta")
        return {"type": "object", "properties": props, "x-kubernetes-preserve-unknown-fields": True}
    fields = schema_types.TYPES[name]
    schema = {"type": "object", "properties": {f: _field_schema(t, refs) for f, t in fields.items()}}
    if name in schema_types.OPEN_TYPES:
        schema["x-kubernetes-preserve-unknown-fields"] = True
    return schema


def _schemas(resources: list[Resource]) -> dict:
    todo = [r.kind for r in resources]
    done: dict[str, dict] = {}
    while todo:
        name = todo.pop()
        if name in done:
            continue
        refs: set[str] = set()
        done[name] = _type_schema(name, refs)
        todo.extend(refs - done.keys())
    out = {}
    for name, schema in sorted(done.items(), key=lambda kv: qualified(kv[0])):
        for r in resources:
            if r.kind == name:
                schema["x-kubernetes-group-version-kind"] = [
                    {"group": r.group, "kind": r.kind, "version": r.version}
                ]
        out[qualified(name)] = schema
    return out


def _param(name: str, in_: str = "query", kind: str = "string") -> dict:
    return {"name": name, "in": in_, "schema": {"type": kind, "uniqueItems": True}}


_WRITE_PARAMS = [_param("dryRun"), _param("fieldManager"), _param("fieldValidation")]


def _op(r: Resource, action: str, params: list[dict], body: list[str] | None = None) -> dict:
    ref = {"$ref": f"#/components/schemas/{qualified(r.kind)}"}
    op = {
        "tags": [r.group_version.replace("/", "_").replace(".", "")],
        "operationId": f"{action}{r.kind}",
        "parameters": params,
        "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": ref}}}},
        "x-kubernetes-action": action,
        "x-kubernetes-group-version-kind": {"group": r.group, "version": r.version, "kind": r.kind},
    }
    if body:
        op["requestBody"] = {"content": {t: {"schema": ref} for t in body}, "required": True}
    return op


def _paths(r: Resource) -> dict:
    prefix = f"/api/{r.version}" if not r.group else f"/apis/{r.group}/{r.version}"
    collection = f"{prefix}/namespaces/{{namespace}}/{r.plural}" if r.namespaced else f"{prefix}/{r.plural}"
    patch_types = [
        "application/json-patch+json",
        "application/merge-patch+json",
        "application/apply-patch+yaml",
    ]
    paths = {
        collection: {
            "get": _op(r, "list", [_param("labelSelector"), _param("fieldSelector"), _param("watch")]),
            "post": _op(r, "post", list(_WRITE_PARAMS), ["*/*"]),
        },
        f"{collection}/{{name}}": {
            "get": _op(r, "get", []),
            "put": _op(r, "put", list(_WRITE_PARAMS), ["*/*"]),
            "patch": _op(r, "patch", [*_WRITE_PARAMS, _param("force", kind="boolean")], patch_types),
            "delete": _op(r, "delete", [_param("dryRun")]),
        },
    }
    if r.namespaced:
        paths[f"{prefix}/{r.plural}"] = {"get": _op(r, "list", [_param("labelSelector")])}
    return paths


def group_version_document(gv_path: str) -> dict | None:
    """The document for "api/v1", "apis/apps/v1", ...; None for a group-version we do not serve."""
    return _document(gv_path, generation())


@cache
def _document(gv_path: str, registry_generation: int) -> dict | None:
    parts = gv_path.strip("/").split("/")
    if parts[:1] == ["api"] and len(parts) == 2:
        group, version = "", parts[1]
    elif parts[:1] == ["apis"] and len(parts) == 3:
        group, version = parts[1], parts[2]
    else:
        return None
    resources = kinds_in(group, version)
    if not resources:
        return None
    paths: dict = {}
    for r in resources:
        paths.update(_paths(r))
    return {
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "v1.33.1"},
        "paths": paths,
        "components": {"schemas": _schemas(resources)},
    }


def _gv_paths() -> list[str]:
    return [f"apis/{g}/{v}" if g else f"api/{v}" for g in groups() for v in group_versions(g)]


def document_hash(gv_path: str) -> str:
    return _hash(gv_path, generation())


@cache
def _hash(gv_path: str, registry_generation: int) -> str:
    doc = group_version_document(gv_path)
    return hashlib.sha512(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:128].upper()


def root_document() -> dict:
    """`/openapi/v3`: where each group-version's document lives (server-relative)."""
    return {
        "paths": {p: {"serverRelativeURL": f"/openapi/v3/{p}?hash={document_hash(p)}"} for p in _gv_paths()}
    }


def strict_decode(kind: str, obj: dict) -> list[str]:
    """The paths of fields the real API server would reject as unknown, in document order.

    Paths are spelled as Kubernetes spells them: `spec.containers[0].imagee`. Strategic merge
    directives (`$patch`, `$setElementOrder/containers`, ...) are never unknown: kubectl puts them
    in the patches it sends, and the same check runs on patch bodies.
    """
    if kind not in schema_types.TYPES:
        return []
    unknown: list[str] = []
    _walk(kind, obj, "", unknown)
    return unknown


def _walk(type_name: str, value: object, path: str, unknown: list[str]) -> None:
    if not isinstance(value, dict) or type_name not in schema_types.TYPES:
        return
    fields = schema_types.TYPES[type_name]
    keep_unknown = type_name in schema_types.OPEN_TYPES
    for key, child in value.items():
        child_path = f"{path}.{key}" if path else key
        spec = fields.get(key)
        if key.startswith("$"):
            continue
        if spec is None:
            if not keep_unknown:
                unknown.append(child_path)
            continue
        _walk_field(spec, child, child_path, unknown)


def _walk_field(spec: str, value: object, path: str, unknown: list[str]) -> None:
    if spec.startswith("[") and isinstance(value, list):
        for i, item in enumerate(value):
            _walk_field(spec[1:-1], item, f"{path}[{i}]", unknown)
    elif spec.startswith("{") and isinstance(value, dict):
        for key, item in value.items():
            _walk_field(spec[1:-1], item, f"{path}[{key}]", unknown)
    else:
        _walk(spec, value, path, unknown)


def strict_error_message(kind: str, version: str, unknown: list[str]) -> str:
    """The API server's 400 message for a create or update whose body has unknown fields."""
    fields = ", ".join(f'unknown field "{p}"' for p in unknown)
    return f'{kind} in version "{version}" cannot be handled as a {kind}: strict decoding error: {fields}'
