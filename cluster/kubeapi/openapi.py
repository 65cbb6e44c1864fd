"""OpenAPI v3 documents for kubectl, and the strict decoding that goes with them.

kubectl validates with `--validate=strict` by default. Before sending a manifest it looks in
`/openapi/v3/<group-version>` for a PATCH operation of the object's kind that takes the
`fieldValidation` query parameter; when it finds one it leaves validation to the server and sends
`fieldValidation=Strict`. So each document lists our paths with that parameter, and the server
answers unknown fields with the real API server's strict decoding error (`strict_decode`).

The schemas are upstream's v1.33 definitions (`cluster.openapi.definitions`, docs/openapi.md), in
v3's words, so `kubectl explain` prints upstream's descriptions and type names. The PATCH
operations do not advertise `application/strategic-merge-patch+json` in their request bodies:
kubectl then uses the patch metadata compiled into it from the same Go types.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache

from cluster.apiserver.kinds import generation, group_versions, kind_info, kinds_in
from cluster.kubeapi.resources import VERSION, Resource, groups
from cluster.openapi import definitions

_META = "io.k8s.apimachinery.pkg.apis.meta.v1"
# The types that marshal themselves as one of two JSON types: kube-openapi's v3 documents say so
# with oneOf (OpenAPIV3OneOfTypes) where v2 says "string", and kubectl explain then prints their
# names (`maxSurge <IntOrString>`, `limits <map[string]Quantity>`).
_ONE_OF = {
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": ["integer", "string"],
    "io.k8s.apimachinery.pkg.api.resource.Quantity": ["string", "number"],
}


definition_of = definitions.of_kind


def qualified(kind: str) -> str:
    """A kind's schema name: upstream's, or for a kind upstream does not define, one in its group."""
    found = definition_of(kind)
    if found:
        return found
    info = kind_info(kind)
    group = info.group.split(".")[0] if info and info.group else "core"
    return f"io.k8s.api.{group}.{info.version if info else 'v1'}.{kind}"


def _v3_ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _v3(schema: object, refs: set[str], field: bool = False) -> object:
    """A v2 schema in v3's words: refs under components, a field's ref wrapped in allOf beside its
    description, as kube-openapi writes the v3 documents."""
    if isinstance(schema, list):
        return [_v3(item, refs) for item in schema]
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref", "")
    if ref.startswith(definitions.REF_PREFIX):
        name = ref[len(definitions.REF_PREFIX) :]
        refs.add(name)
        rest = {k: _v3(v, refs) for k, v in schema.items() if k != "$ref"}
        return {"allOf": [_v3_ref(name)], **rest} if (field or rest) else _v3_ref(name)
    out = {}
    for key, value in schema.items():
        if key == "properties":
            out[key] = {f: _v3(prop, refs, field=True) for f, prop in value.items()}
        elif key in ("items", "additionalProperties"):
            out[key] = _v3(value, refs, field=True)
        else:
            out[key] = _v3(value, refs)
    return out


def _open_schema(refs: set[str]) -> dict:
    """A registered kind upstream does not define: its documents keep unknown fields."""
    refs.add(f"{_META}.ObjectMeta")
    props = {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"allOf": [_v3_ref(f"{_META}.ObjectMeta")], "default": {}},
    }
    return {"type": "object", "properties": props, "x-kubernetes-preserve-unknown-fields": True}


def _schemas(resources: list[Resource]) -> dict:
    out: dict[str, dict] = {}
    todo: list[str] = []
    for r in resources:
        name = definition_of(r.kind, r.version)
        if name is None:
            refs: set[str] = set()
            gvk = [{"group": r.group, "kind": r.kind, "version": r.version}]
            out[qualified(r.kind)] = {**_open_schema(refs), "x-kubernetes-group-version-kind": gvk}
            todo.extend(refs)
        else:
            todo.append(name)
    while todo:
        name = todo.pop()
        if name in out:
            continue
        refs = set()
        out[name] = _v3(definitions.DEFINITIONS[name], refs)
        if name in _ONE_OF:
            del out[name]["type"]
            out[name]["oneOf"] = [{"type": t} for t in _ONE_OF[name]]
        todo.extend(refs - out.keys())
    return dict(sorted(out.items()))


def _param(name: str, in_: str = "query", kind: str = "string") -> dict:
    return {"name": name, "in": in_, "schema": {"type": kind, "uniqueItems": True}}


_WRITE_PARAMS = [_param("dryRun"), _param("fieldManager"), _param("fieldValidation")]


def _op(r: Resource, action: str, params: list[dict], body: list[str] | None = None) -> dict:
    ref = _v3_ref(definition_of(r.kind, r.version) or qualified(r.kind))
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


def resource_paths(r: Resource) -> tuple[str, str, str | None]:
    """A kind's paths, as both documents list them: its collection, one object, and for a
    namespaced kind the list across namespaces (else None)."""
    prefix = f"/api/{r.version}" if not r.group else f"/apis/{r.group}/{r.version}"
    collection = f"{prefix}/namespaces/{{namespace}}/{r.plural}" if r.namespaced else f"{prefix}/{r.plural}"
    return collection, f"{collection}/{{name}}", f"{prefix}/{r.plural}" if r.namespaced else None


def _paths(r: Resource) -> dict:
    collection, item, every_namespace = resource_paths(r)
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
        item: {
            "get": _op(r, "get", []),
            "put": _op(r, "put", list(_WRITE_PARAMS), ["*/*"]),
            "patch": _op(r, "patch", [*_WRITE_PARAMS, _param("force", kind="boolean")], patch_types),
            "delete": _op(r, "delete", [_param("dryRun")]),
        },
    }
    if every_namespace:
        paths[every_namespace] = {"get": _op(r, "list", [_param("labelSelector")])}
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
        "info": {"title": "Kubernetes", "version": VERSION["gitVersion"]},
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


def strict_decode(kind: str, obj: dict, version: str | None = None) -> list[str]:
    """The paths of fields the real API server would reject as unknown, in document order.

    Paths are spelled as Kubernetes spells them: `spec.containers[0].imagee`. Strategic merge
    directives (`$patch`, `$setElementOrder/containers`, ...) are never unknown: kubectl puts them
    in the patches it sends, and the same check runs on patch bodies.
    """
    name = definition_of(kind, version)
    if name is None:
        return []
    unknown: list[str] = []
    _walk(name, obj, "", unknown)
    return unknown


def _walk(type_name: str, value: object, path: str, unknown: list[str]) -> None:
    fields = definitions.fields(type_name)
    if not isinstance(value, dict) or fields is None:
        return
    for key, child in value.items():
        child_path = f"{path}.{key}" if path else key
        spec = fields.get(key)
        if key.startswith("$"):
            continue
        if spec is None:
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
