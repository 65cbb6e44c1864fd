"""HTTP views for what kubectl asks before it touches any object: version, discovery, OpenAPI.

These answer the same for every cluster (the API surface is fixed); only the caller's right to see
the cluster is checked (cluster.auth.access), so a mistyped `--server .../clusters/demoo` and a sandbox
the caller may not see both fail with the same NotFound.
"""

from __future__ import annotations

import json

from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET

from cluster.apiserver.errors import ApiError
from cluster.auth.access import get_cluster
from cluster.kubeapi import discovery, openapi, openapiv2
from cluster.kubeapi.resources import VERSION


def json_response(doc: dict, status: int = 200, content_type: str = "application/json") -> HttpResponse:
    return HttpResponse(json.dumps(doc), status=status, content_type=content_type)


def not_found(message: str) -> HttpResponse:
    status = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": "NotFound",
        "details": {},
        "code": 404,
    }
    return json_response(status, 404)


def _missing(request: HttpRequest, cluster: str) -> HttpResponse | None:
    """None when the caller may see the cluster; else its Status (404, or 401 for a bad token)."""
    try:
        get_cluster(request, cluster)
    except ApiError as err:
        return json_response(err.status(), err.code)
    return None


@csrf_exempt  # GET only: a DELETE is 405, as kube-apiserver answers, not a CSRF refusal
@require_GET
def version(request: HttpRequest, cluster: str) -> HttpResponse:
    return _missing(request, cluster) or json_response(VERSION)


def _discovery(request: HttpRequest, cluster: str, core: bool) -> HttpResponse:
    if missing := _missing(request, cluster):
        return missing
    media_type = discovery.wants_aggregated(request.headers.get("Accept", ""))
    if media_type:
        return json_response(discovery.aggregated(core, media_type), content_type=media_type)
    return json_response(discovery.api_versions() if core else discovery.api_group_list())


@csrf_exempt  # GET only: a DELETE is 405, as kube-apiserver answers, not a CSRF refusal
@require_GET
def core_api(request: HttpRequest, cluster: str) -> HttpResponse:
    return _discovery(request, cluster, core=True)


@csrf_exempt  # GET only: a DELETE is 405, as kube-apiserver answers, not a CSRF refusal
@require_GET
def named_apis(request: HttpRequest, cluster: str) -> HttpResponse:
    return _discovery(request, cluster, core=False)


@csrf_exempt  # GET only: a DELETE is 405, as kube-apiserver answers, not a CSRF refusal
@require_GET
def api_group(request: HttpRequest, cluster: str, group: str) -> HttpResponse:
    if missing := _missing(request, cluster):
        return missing
    doc = discovery.api_group(group)
    return json_response(doc) if doc else not_found("the server could not find the requested resource")


@csrf_exempt  # GET only: a DELETE is 405, as kube-apiserver answers, not a CSRF refusal
@require_GET
def resource_list(request: HttpRequest, cluster: str, version: str, group: str = "") -> HttpResponse:
    if missing := _missing(request, cluster):
        return missing
    doc = discovery.api_resource_list(group, version)
    return json_response(doc) if doc else not_found("the server could not find the requested resource")


@csrf_exempt  # GET only: a DELETE is 405, as kube-apiserver answers, not a CSRF refusal
@require_GET
def openapi_root(request: HttpRequest, cluster: str) -> HttpResponse:
    return _missing(request, cluster) or json_response(openapi.root_document())


@csrf_exempt  # GET only: a DELETE is 405, as kube-apiserver answers, not a CSRF refusal
@require_GET
def openapi_document(request: HttpRequest, cluster: str, gv_path: str) -> HttpResponse:
    if missing := _missing(request, cluster):
        return missing
    doc = openapi.group_version_document(gv_path)
    if doc is None:
        return not_found(f"the server could not find the requested resource ({gv_path})")
    response = json_response(doc)
    # kubectl fetches with the ?hash= the root gave it; the document under a hash never changes.
    if request.GET.get("hash") == openapi.document_hash(gv_path):
        response["Cache-Control"] = "public, immutable"
    return response


@csrf_exempt  # GET only: a DELETE is 405, as kube-apiserver answers, not a CSRF refusal
@require_GET
def openapi_v2(request: HttpRequest, cluster: str) -> HttpResponse:
    """The Swagger 2.0 document in JSON; an Accept that wants only the gnostic protobuf (kubectl's)
    is 406 with no body, as kube-openapi answers a format it does not have."""
    if missing := _missing(request, cluster):
        return missing
    if not openapiv2.accepts_json(request.headers.get("Accept", "")):
        response = HttpResponse(status=406)
    else:
        response = HttpResponse(openapiv2.encoded(), content_type="application/json")
    response["Vary"] = "Accept"
    return response
