"""The REST API under /clusters/<cluster>/, on Kubernetes' own paths.

Views only translate HTTP to cluster.apiserver calls and Status errors back; watches stream from
watch.py and logs from logs.py.
"""

from __future__ import annotations

import time

from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt

from cluster.api import deprecation, handlers, metrics
from cluster.api.clusters import find_cluster
from cluster.api.exec_http import exec_response
from cluster.api.http import (
    actor_for,
    error_response,
    flag,
    json_response,
    media_type,
    read_body,
)
from cluster.api.logs import follow_response
from cluster.api.paths import Target, resolve
from cluster.api.portforward.http_view import portforward_response
from cluster.api.watch import watch_response
from cluster.apiserver import service as api
from cluster.apiserver.decoding import text_of
from cluster.apiserver.errors import ApiError, bad_request, method_not_allowed
from cluster.auth.access import get_cluster
from cluster.kubeapi.negotiation import protobuf_only

_VERBS = {"POST": "create", "PUT": "update", "PATCH": "patch"}


def verb_of(method: str, target: Target) -> str:
    """The Kubernetes verb of a request, as kube-apiserver's RequestInfo names it."""
    if method in ("GET", "HEAD"):
        return "get" if target.name else "list"
    if method == "DELETE":
        return "delete" if target.name else "deletecollection"
    return _VERBS.get(method, method.lower())


def _serve(request: HttpRequest, cluster_name: str, group: str, version: str, rest: str) -> HttpResponse:
    try:
        target = resolve(group, version, rest)
        if target.subresource in ("exec", "attach"):  # authorized as `create` on pods/exec|attach
            return exec_response(request, cluster_name, target)
        if target.subresource == "portforward":  # authorized as `create` on pods/portforward
            return portforward_response(request, cluster_name, target)
        cluster = find_cluster(request, cluster_name, verb_of(request.method or "", target), target)
        if protobuf_only(request.headers.get("Accept", "")):
            raise ApiError(
                406, "NotAcceptable", "only the following media types are accepted: application/json"
            )
        return handlers.dispatch(request, cluster, target)
    except ApiError as err:
        return error_response(err)


def _route(request: HttpRequest, cluster: str, group: str, version: str, rest: str) -> HttpResponse:
    """Synchronous, like the middleware before it (kubesim/handler.py): a request is one hop to its
    thread. Watches and `logs -f` return a response that streams from the event loop. Each is
    counted for /metrics (cluster/api/metrics.py)."""
    started = time.perf_counter()
    response = _answer(request, cluster, group, version, rest)
    metrics.record(request, group, version, rest, response, started)
    return response


def _answer(request: HttpRequest, cluster: str, group: str, version: str, rest: str) -> HttpResponse:
    if request.method == "GET" and flag(request, "watch"):
        response = watch_response(request, cluster, group, version, rest)
    elif request.method == "GET" and rest.rstrip("/").endswith("/log") and flag(request, "follow"):
        response = follow_response(request, cluster, group, version, rest)
    else:
        response = _serve(request, cluster, group, version, rest)
    return deprecation.add_warning(response, group, version, rest)


@csrf_exempt
def core(request: HttpRequest, cluster: str, rest: str) -> HttpResponse:
    """/clusters/<c>/api/v1/..."""
    return _route(request, cluster, "", "v1", rest)


@csrf_exempt
def grouped(request: HttpRequest, cluster: str, group: str, version: str, rest: str) -> HttpResponse:
    """/clusters/<c>/apis/<group>/<version>/..."""
    return _route(request, cluster, group, version, rest)


def _apply(request: HttpRequest, cluster_name: str) -> HttpResponse:
    try:
        if request.method != "POST":
            raise method_not_allowed(request.method or "")
        cluster = get_cluster(request, cluster_name, verb="create", resource="pods", namespace="default")
        raw = read_body(request)
        if media_type(request) not in (
            "application/yaml",
            "application/x-yaml",
            "text/yaml",
            "application/json",
            "",
        ):
            raise bad_request("POST /apply takes YAML (Content-Type: application/yaml)")
        mode = request.GET.get("fieldValidation", "Strict")  # the page's apply is kubectl's: Strict
        result = api.apply_manifests(cluster, text_of(raw), actor_for(request), field_validation=mode)
        return json_response(result)
    except ApiError as err:
        return error_response(err)


@csrf_exempt
def apply(request: HttpRequest, cluster: str) -> HttpResponse:
    """POST /clusters/<c>/apply: multi-document YAML, all or nothing."""
    return _apply(request, cluster)
