"""One function per REST verb on a resolved path; each calls one cluster.apiserver verb."""

from __future__ import annotations

import json

from django.db import transaction
from django.http import HttpRequest, HttpResponse

from cluster.api import eviction, negotiate, strict, tokenrequest
from cluster.api.http import (
    PROTOBUF,
    actor_for,
    decode_json,
    decode_protobuf,
    dry_run,
    flag,
    json_response,
    media_type,
    parse_object,
    read_body,
    unsupported,
)
from cluster.api.logs import log_response
from cluster.api.paths import Target
from cluster.apiserver import graceful, paging
from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError, bad_request, method_not_allowed
from cluster.apiserver.patch import PATCH_TYPES, apply_patch, check_shape, decode
from cluster.apiserver.scale import SCALE
from cluster.apiserver.service import DELETE_OPTIONS
from cluster.apiserver.typecheck import check_body, check_patched
from cluster.auth.readlimit import limit_anonymous_read
from cluster.client import leader
from cluster.models import Cluster


class _DryRun(Exception):
    """Raised to roll back a ?dryRun=All write after computing its answer."""

    def __init__(self, result: dict) -> None:
        self.result = result


def _write(request: HttpRequest, func, *args) -> dict:
    """Run one write; with ?dryRun=All the transaction is rolled back and the answer kept."""
    return write_or_try(dry_run(request), func, *args)


def _write_object(request: HttpRequest, cluster: Cluster, target: Target, func, *args) -> dict:
    """A write of one object; a dry run hands out no resourceVersion of its own, as upstream's
    dry-run storage: the stored object's, none for an object that does not exist yet."""
    if not dry_run(request):
        return func(*args)
    before = None
    if target.name:
        try:
            current = api.get(cluster, target.info.kind, target.namespace, target.name)
            before = current["metadata"].get("resourceVersion")
        except ApiError:
            pass  # the write itself answers for a missing object
    result = write_or_try(True, func, *args)
    meta = result.get("metadata")
    if isinstance(meta, dict):
        if before is None:
            meta.pop("resourceVersion", None)
        else:
            meta["resourceVersion"] = before
    return result


def write_or_try(dry: bool, func, *args) -> dict:
    """`func(*args)`, or with `dry` its answer from a transaction rolled back (dryRun=All)."""
    if not dry:
        return func(*args)
    try:
        with transaction.atomic():
            raise _DryRun(func(*args))
    except _DryRun as done:
        return done.result


def _list(request: HttpRequest, cluster: Cluster, target: Target) -> HttpResponse:
    kind = target.info.kind
    if kind == "Lease":
        leader.show_renewal(cluster, target.namespace)
    page = paging.list_page(
        cluster,
        kind,
        target.namespace or None,
        request.GET.get("labelSelector", ""),
        request.GET.get("fieldSelector", ""),
        paging.parse_limit(request.GET.get("limit")),
        request.GET.get("continue", ""),
    )
    table = negotiate.list_table(request, kind, page.items, page.revision)
    if table is not None:
        table.setdefault("metadata", {}).update(_page_meta(page))
        return json_response(table)
    body = {
        "kind": f"{kind}List",
        "apiVersion": target.info.api_version,
        "metadata": {"resourceVersion": str(page.revision), **_page_meta(page)},
        "items": page.items,
    }
    return json_response(body)


def _page_meta(page: paging.Page) -> dict:
    meta: dict = {}
    if page.continue_token:
        meta["continue"] = page.continue_token
    if page.remaining is not None:
        meta["remainingItemCount"] = page.remaining
    return meta


def _delete_collection(request: HttpRequest, cluster: Cluster, target: Target) -> HttpResponse:
    """DELETE on a collection (deletecollection): every object the selectors match, each deleted
    as a DELETE of its own would (gracefully for pods on a node); the list of what was deleted."""
    options = _delete_options(request, target)
    propagation = request.GET.get("propagationPolicy") or options.get("propagationPolicy") or "Background"
    grace = graceful.grace_from_query(request.GET.get("gracePeriodSeconds"))
    grace = graceful.grace_from_body(options) if grace is None else grace
    dry = dry_run(request) or "All" in (options.get("dryRun") or ())
    actor = actor_for(request)

    def delete_all() -> dict:
        with transaction.atomic():
            items, _ = api.list_objects(
                cluster,
                target.info.kind,
                target.namespace or None,
                request.GET.get("labelSelector", ""),
                request.GET.get("fieldSelector", ""),
            )
            deleted = []
            for item in items:
                meta = item["metadata"]
                args = (cluster, target.info.kind, meta.get("namespace"), meta["name"], actor, propagation)
                try:
                    deleted.append(api.delete(*args, None, grace))
                except ApiError as err:
                    if err.code != 404:  # a dependent an earlier deletion already took
                        raise
        return {
            "kind": f"{target.info.kind}List",
            "apiVersion": target.info.api_version,
            "metadata": {"resourceVersion": str(cluster.revision)},
            "items": deleted,
        }

    return json_response(write_or_try(dry, delete_all))


def _respond(data: dict, warnings: list[str], status: int = 200) -> HttpResponse:
    response = json_response(data, status)
    if warnings:
        response["Warning"] = ", ".join(warnings)
    return response


def _body_for(request: HttpRequest, target: Target) -> tuple[dict, list[str]]:
    """The POST/PUT body with path namespace and name checked, unknown fields dropped, and warnings."""
    duplicates: list[str] = []
    obj = parse_object(request, (target.info.api_version, target.info.kind), duplicates)
    check_body(target.info, obj)  # wrong JSON types answer 400 before anything reads them
    # Unknown fields are judged in the body's own version, as the decoder does, before conversion.
    warnings = strict.check(request, target.info.kind, target.info.version, obj, duplicates=duplicates)
    obj = target.info.to_stored(obj)  # a body of another version than the stored one
    obj.setdefault("kind", target.info.kind)
    obj.setdefault("apiVersion", target.info.api_version)
    meta = obj.setdefault("metadata", {})
    if not isinstance(meta, dict):
        raise bad_request("metadata must be an object")
    if target.namespace:
        if meta.get("namespace") and meta["namespace"] != target.namespace:
            raise bad_request(
                "the namespace of the provided object does not match the namespace sent on the request"
            )
        meta["namespace"] = target.namespace
    if target.name and meta.get("name") and meta["name"] != target.name:
        raise bad_request(
            f"the name of the object ({meta['name']}) does not match the name on the URL ({target.name})"
        )
    if target.name:
        meta["name"] = target.name
    return obj, warnings


def _get(request: HttpRequest, cluster: Cluster, target: Target) -> HttpResponse:
    kind = target.info.kind
    if target.subresource == "scale":
        return json_response(api.get_scale(cluster, kind, target.namespace, target.name))
    if kind == "Lease":
        leader.show_renewal(cluster, target.namespace)
    obj = api.get(cluster, kind, target.namespace, target.name)
    table = None if target.subresource else negotiate.object_table(request, kind, obj)
    return json_response(table or obj)


def _put(request: HttpRequest, cluster: Cluster, target: Target) -> HttpResponse:
    actor = actor_for(request)
    if target.subresource == "scale":
        scale = parse_object(request, ("autoscaling/v1", "Scale"))
        check_body(SCALE, scale)
        replicas = (scale.get("spec") or {}).get("replicas")
        rv = (scale.get("metadata") or {}).get("resourceVersion")
        args = (cluster, target.info.kind, target.namespace, target.name, replicas, actor, rv)
        return json_response(_write_object(request, cluster, target, api.scale, *args))
    obj, warnings = _body_for(request, target)
    sub = target.subresource or None
    result = _write_object(request, cluster, target, api.update, cluster, obj, actor, sub, True)
    return _respond(result, warnings)


def _patch(request: HttpRequest, cluster: Cluster, target: Target) -> HttpResponse:
    content_type = media_type(request)
    if content_type not in PATCH_TYPES:
        raise unsupported(content_type, patch=True)
    body, actor = decode(read_body(request), content_type), actor_for(request)
    check_shape(body, content_type)
    force = flag(request, "force")
    # force=false is "specified" too (a *bool), refused on a non-apply patch as upstream refuses it.
    api.check_patch_options(content_type, request.GET.get("fieldManager", ""), "force" in request.GET)
    kind, ns, name = target.info.kind, target.namespace, target.name
    if target.subresource == "scale":
        current = api.get_scale(cluster, kind, ns, name)
        patched = apply_patch(current, body, content_type, "Scale")
        check_patched(SCALE, name, patched)
        replicas = (patched.get("spec") or {}).get("replicas")
        # A precondition only when the patch itself set one: as upstream, a patch applies to the
        # latest object (the controller's status writes must not make a scale-down a conflict).
        rv = (patched.get("metadata") or {}).get("resourceVersion")
        rv = rv if rv != current["metadata"].get("resourceVersion") else None
        args = (cluster, kind, ns, name, replicas, actor, rv)
        return json_response(_write_object(request, cluster, target, api.scale, *args))
    warnings = strict.check(request, kind, target.info.version, body, patch=True)
    sub = target.subresource or None
    if target.info.stored_version:  # a patch of another version applies to the object in that version
        current = target.info.from_stored(api.get(cluster, kind, ns, name))
        patched = target.info.to_stored(apply_patch(current, body, content_type, kind))
        check_patched(target.info, name, patched)
        result = _write_object(request, cluster, target, api.update, cluster, patched, actor, sub, True)
        return _respond(result, warnings)
    args = (cluster, kind, ns, name, body, content_type, actor, sub, force)
    result = _write_object(request, cluster, target, api.patch, *args)
    return _respond(result, warnings)


def _delete_options(request: HttpRequest, target: Target) -> dict:
    """The DELETE body (JSON, or protobuf as typed clients such as `kubectl drain` send it)."""
    raw = read_body(request)
    if media_type(request) == PROTOBUF and raw:
        return decode_protobuf(raw, target.info.api_version, "DeleteOptions")
    options = decode_json(raw) if raw.strip() else {}
    if not isinstance(options, dict):
        raise bad_request("DeleteOptions must be an object")
    check_body(DELETE_OPTIONS, options)  # wrong JSON types (a grace period "30") answer 400
    return options


def _delete(request: HttpRequest, cluster: Cluster, target: Target) -> HttpResponse:
    options = _delete_options(request, target)
    propagation = request.GET.get("propagationPolicy") or options.get("propagationPolicy") or "Background"
    preconditions = options.get("preconditions") or {}
    grace = graceful.grace_from_query(request.GET.get("gracePeriodSeconds"))
    grace = graceful.grace_from_body(options) if grace is None else grace
    args = (cluster, target.info.kind, target.namespace, target.name, actor_for(request), propagation)
    rv, uid = preconditions.get("resourceVersion"), preconditions.get("uid")
    dry = dry_run(request) or "All" in (options.get("dryRun") or ())
    return json_response(write_or_try(dry, api.delete, *args, rv, grace, uid))


def _create(request: HttpRequest, cluster: Cluster, target: Target) -> HttpResponse:
    obj, warnings = _body_for(request, target)
    result = _write_object(request, cluster, target, api.create, cluster, obj, actor_for(request), True)
    return _respond(result, warnings, 201)


def _bind(request: HttpRequest, cluster: Cluster, target: Target) -> HttpResponse:
    binding = parse_object(request, ("v1", "Binding"))
    node = (binding.get("target") or {}).get("name")
    if not node:
        raise bad_request("Binding.target.name is required")
    _write(request, api.bind, cluster, target.namespace, target.name, node, actor_for(request))
    return json_response(
        {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}, 201
    )


def dispatch(request: HttpRequest, cluster: Cluster, target: Target) -> HttpResponse:
    response = _dispatch(request, cluster, target)
    if target.info.stored_version and response.get("Content-Type") == "application/json":
        data = json.loads(response.content)
        if data.get("kind") in (target.info.kind, f"{target.info.kind}List"):
            converted = json_response(target.info.from_stored(data), response.status_code)
            if response.has_header("Warning"):
                converted["Warning"] = response["Warning"]
            return converted
    return response


def _dispatch(request: HttpRequest, cluster: Cluster, target: Target) -> HttpResponse:
    method = request.method or "GET"
    if target.subresource and method not in target.info.subresource(target.subresource).methods:
        raise method_not_allowed(method)
    if not target.name:
        if method == "GET":
            limit_anonymous_read(request)  # a list of a big cluster is megabytes (watches stream elsewhere)
            return _list(request, cluster, target)
        in_scope = bool(target.namespace) or not target.info.namespaced  # not a cluster-wide list
        if method == "POST" and in_scope:
            return _create(request, cluster, target)
        if method == "DELETE" and in_scope and "deletecollection" in target.info.verbs:
            return _delete_collection(request, cluster, target)
        raise method_not_allowed(method)
    if target.subresource == "log":
        return log_response(request, cluster, target)
    if target.subresource == "binding":
        return _bind(request, cluster, target)
    if target.subresource == "eviction":
        return eviction.evict(request, cluster, target)
    if target.subresource == "token":
        return tokenrequest.create_token(request, cluster, target)
    handler = {"GET": _get, "PUT": _put, "PATCH": _patch, "DELETE": _delete}.get(method)
    if handler is None or (method == "DELETE" and target.subresource):
        raise method_not_allowed(method)
    return handler(request, cluster, target)
