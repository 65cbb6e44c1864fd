"""pods/exec and pods/attach over plain HTTP: what kubectl's SPDY fallback (a POST) and other callers get.

A refused websocket handshake makes kubectl retry over SPDY; this answers that retry with the
Status kube-apiserver would send, which kubectl prints (`Error from server (BadRequest): pod web
does not have a host assigned`). The stream itself is served over WebSocket only.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from cluster import execsessions
from cluster.api.exec_access import exec_cluster
from cluster.api.exec_target import parse_options, resolve, runtime_error
from cluster.api.http import error_response
from cluster.api.paths import Target
from cluster.apiserver.errors import ApiError, bad_request, method_not_allowed
from cluster.auth import access


def exec_response(request: HttpRequest, cluster_name: str, target: Target) -> HttpResponse:
    try:
        if request.method not in ("GET", "POST"):
            raise method_not_allowed(request.method or "")
        resource = f"pods/{target.subresource}"  # exec or attach
        cluster, _user = exec_cluster(request, cluster_name, target.namespace, target.name, resource)
        execsessions.check_room(cluster, execsessions.holder_of(access.caller_of(request)))
        options = parse_options(target.namespace, target.name, dict(request.GET.lists()))
        pod, container = resolve(cluster, options, attach=target.subresource == "attach")
        problem = runtime_error(pod, container)
        if problem:  # the kubelet's plain-text answer, passed through by the API server's proxy
            return HttpResponse(problem, status=500, content_type="text/plain; charset=utf-8")
        if "spdy" in request.headers.get("Upgrade", "").lower():
            raise bad_request(
                f"KubeSim streams {target.subresource} over WebSocket (v5.channel.k8s.io) only; "
                "this client fell back to SPDY"
            )
        raise bad_request("Upgrade request required")
    except ApiError as err:
        return error_response(err)
