"""`/openapi/v2`: the API's one Swagger 2.0 document, as kube-apiserver serves it, in JSON.

Its definitions are upstream's v1.33 ones as they are (`cluster.openapi.definitions` holds them in
v2's words already); its paths are the served kinds' collections and objects with their
operations, parameters and `x-kubernetes-*` extensions. kube-apiserver also serves it as gnostic
protobuf, which is what kubectl asks for: KubeSim does not (docs/openapi.md), so kubectl keeps the
patch metadata compiled into it, as it does against any server whose v2 it cannot read.
"""

from __future__ import annotations

import json
from functools import cache

from cluster.apiserver.kinds import generation, group_versions, kinds_in
from cluster.kubeapi.openapi import definition_of, qualified, resource_paths
from cluster.kubeapi.resources import VERSION, Resource, groups
from cluster.openapi import definitions

_META = "io.k8s.apimachinery.pkg.apis.meta.v1"
_PRODUCES = ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"]
_PATCH_TYPES = [
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
]


def _ref(name: str) -> dict:
    return {"$ref": f"{definitions.REF_PREFIX}{name}"}


def _param(name: str, kind: str = "string") -> dict:
    return {"uniqueItems": True, "type": kind, "name": name, "in": "query"}


def _body(schema: dict) -> dict:
    return {"name": "body", "in": "body", "required": True, "schema": schema}


_WRITE_PARAMS = [_param("dryRun"), _param("fieldManager"), _param("fieldValidation")]


def _op(r: Resource, action: str, verb: str, params: list[dict], consumes: list[str] | None = None) -> dict:
    schema = _ref(definition_of(r.kind, r.version) or qualified(r.kind))
    op: dict = {}
    if consumes:
        op["consumes"] = consumes
        params = [_body(schema), *params]
    op.update(
        {
            "produces": _PRODUCES,
            "schemes": ["https"],
            "tags": [r.group_version.replace("/", "_").replace(".", "")],
            "operationId": f"{verb}{r.kind}",
            "parameters": params,
            "responses": {
                "200": {"description": "OK", "schema": schema},
                "401": {"description": "Unauthorized"},
            },
            "x-kubernetes-action": action,
            "x-kubernetes-group-version-kind": {"group": r.group, "kind": r.kind, "version": r.version},
        }
    )
    return op


def _paths(r: Resource) -> dict:
    collection, item, every_namespace = resource_paths(r)
    selectors = [_param("labelSelector"), _param("fieldSelector"), _param("watch", "boolean")]
    paths = {
        collection: {
            "get": _op(r, "list", "list", selectors),
            "post": _op(r, "post", "create", list(_WRITE_PARAMS), ["*/*"]),
        },
        item: {
            "get": _op(r, "get", "read", []),
            "put": _op(r, "put", "replace", list(_WRITE_PARAMS), ["*/*"]),
            "patch": _op(r, "patch", "patch", [*_WRITE_PARAMS, _param("force", "boolean")], _PATCH_TYPES),
            "delete": _op(r, "delete", "delete", [_param("dryRun")], ["*/*"]),
        },
    }
    if every_namespace:
        paths[every_namespace] = {"get": _op(r, "list", "list", selectors)}
    return paths


def _open_definition(r: Resource) -> dict:
    """A served kind upstream does not define: an object that keeps unknown fields."""
    return {
        "type": "object",
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"default": {}, **_ref(f"{_META}.ObjectMeta")},
        },
        "x-kubernetes-group-version-kind": [{"group": r.group, "kind": r.kind, "version": r.version}],
        "x-kubernetes-preserve-unknown-fields": True,
    }


def _refs(schema: object, found: set[str]) -> None:
    if isinstance(schema, list):
        for item in schema:
            _refs(item, found)
    elif isinstance(schema, dict):
        ref = schema.get("$ref", "")
        if isinstance(ref, str) and ref.startswith(definitions.REF_PREFIX):
            found.add(ref[len(definitions.REF_PREFIX) :])
        for value in schema.values():
            _refs(value, found)


def _definitions(resources: list[Resource]) -> dict:
    out: dict[str, dict] = {}
    todo = [f"{_META}.ObjectMeta", f"{_META}.Status"]
    for r in resources:
        name = definition_of(r.kind, r.version)
        if name is None:
            out[qualified(r.kind)] = _open_definition(r)
        else:
            todo.append(name)
    while todo:
        name = todo.pop()
        if name in out or name not in definitions.DEFINITIONS:
            continue
        out[name] = definitions.DEFINITIONS[name]
        found: set[str] = set()
        _refs(out[name], found)
        todo.extend(found - out.keys())
    return dict(sorted(out.items()))


def document() -> dict:
    """The whole v2 document of what this server serves (rebuilt when the kind registry changes)."""
    return _document(generation())


def encoded() -> bytes:
    """The document as JSON bytes, encoded once per registry generation (it is a few MB)."""
    return _encoded(generation())


@cache
def _encoded(registry_generation: int) -> bytes:
    return json.dumps(_document(registry_generation), separators=(",", ":")).encode()


def accepts_json(accept: str) -> bool:
    """Whether an Accept header lets the document be answered in JSON, as kube-openapi's handler
    reads it: the first media range (by q, then order) that names one of its formats decides;
    the gnostic protobuf one is skipped, as it is not served here."""
    ranges = []
    for order, clause in enumerate((accept or "*/*").split(",")):
        media, *params = [part.strip() for part in clause.split(";")]
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if q > 0 and "/" in media:
            ranges.append((-q, order, media.lower()))
    for _q, _order, media in sorted(ranges):
        kind, _, sub = media.partition("/")
        if kind in ("application", "*") and sub in ("json", "*"):
            return True
    return False


@cache
def _document(registry_generation: int) -> dict:
    resources = [r for g in groups() for v in group_versions(g) for r in kinds_in(g, v)]
    paths: dict = {}
    for r in resources:
        paths.update(_paths(r))
    return {
        "swagger": "2.0",
        "info": {"title": "Kubernetes", "version": VERSION["gitVersion"]},
        "paths": dict(sorted(paths.items())),
        "definitions": _definitions(resources),
        "securityDefinitions": {
            "BearerToken": {
                "description": "Bearer Token authentication",
                "type": "apiKey",
                "name": "authorization",
                "in": "header",
            }
        },
        "security": [{"BearerToken": []}],
    }
