"""The REST API under /clusters/<cluster>/, on Kubernetes' own paths.

Views only translate HTTP to cluster.apiserver calls and Status errors back; watches stream from
watch.py and logs from logs.py.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt

from cluster.api import handlers
from cluster.api.access import can_edit, can_view
from cluster.api.http import (
    actor_for,
    check_csrf,
    error_response,
    flag,
    json_response,
    media_type,
    read_body,
)
from cluster.api.paths import resolve
from cluster.api.watch import watch_response
from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError, bad_request, method_not_allowed
from cluster.models import Cluster

_READS = ("GET", "HEAD")


def find_cluster(request: HttpRequest, name: str, write: bool) -> Cluster:
    """The cluster if the caller may see it (and change it, for writes); 404 hides the rest."""
    cluster = Cluster.objects.filter(name=name).first()
    if cluster is None or not can_view(request, cluster):
        raise ApiError(404, "NotFound", f'cluster "{name}" not found')
    if write and not can_edit(request, cluster):
        raise ApiError(403, "Forbidden", f'you may not change cluster "{name}"')
    if write:
        check_csrf(request)
    return cluster


def _serve(request: HttpRequest, cluster_name: str, group: str, version: str, rest: str) -> HttpResponse:
    try:
        target = resolve(group, version, rest)
        if target.subresource == "exec":  # authorized as `create` on pods/exec, for GET and POST alike
            from cluster.api.exec_http import exec_response

            return exec_response(request, cluster_name, target)
        cluster = find_cluster(request, cluster_name, request.method not in _READS)
        return handlers.dispatch(request, cluster, target)
    except ApiError as err:
        return error_response(err)


def _route(request: HttpRequest, cluster: str, group: str, version: str, rest: str) -> HttpResponse:
    """Synchronous, like the middleware before it (kubesim/handler.py): a request is one hop to its
    thread. Watches and `logs -f` return a response that streams from the event loop."""
    if request.method == "GET" and flag(request, "watch"):
        return watch_response(request, cluster, group, version, rest)
    if request.method == "GET" and rest.rstrip("/").endswith("/log") and flag(request, "follow"):
        from cluster.api.logs import follow_response

        return follow_response(request, cluster, group, version, rest)
    return _serve(request, cluster, group, version, rest)


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
        cluster = find_cluster(request, cluster_name, write=True)
        raw = read_body(request)
        if media_type(request) not in (
            "application/yaml",
            "application/x-yaml",
            "text/yaml",
            "application/json",
            "",
        ):
            raise bad_request("POST /apply takes YAML (Content-Type: application/yaml)")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise bad_request("the request body is not valid UTF-8") from None
        result = api.apply_manifests(cluster, text, actor_for(request))
        return json_response(result)
    except ApiError as err:
        return error_response(err)


@csrf_exempt
def apply(request: HttpRequest, cluster: str) -> HttpResponse:
    """POST /clusters/<c>/apply: multi-document YAML, all or nothing."""
    return _apply(request, cluster)
