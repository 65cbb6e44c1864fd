"""pods/portforward over plain HTTP: what kubectl's SPDY fallback (a POST) and other callers get.

A refused WebSocket handshake makes kubectl retry with a raw SPDY upgrade, which Daphne cannot
serve; this answers that retry with the Status kube-apiserver would send first (403, 404, 400,
429), which kubectl prints as `error: error upgrading connection: ...`.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from cluster import execsessions
from cluster.api.exec_access import exec_cluster
from cluster.api.http import error_response
from cluster.api.paths import Target
from cluster.api.portforward.target import pod_for_forward
from cluster.apiserver.errors import ApiError, bad_request, method_not_allowed
from cluster.auth import access


def portforward_response(request: HttpRequest, cluster_name: str, target: Target) -> HttpResponse:
    try:
        if request.method not in ("GET", "POST"):
            raise method_not_allowed(request.method or "")
        cluster, _user = exec_cluster(
            request, cluster_name, target.namespace, target.name, "pods/portforward"
        )
        execsessions.check_room(cluster, execsessions.holder_of(access.caller_of(request)))
        pod_for_forward(cluster, target.namespace, target.name)
        if "spdy" in request.headers.get("Upgrade", "").lower():
            raise bad_request(
                "KubeSim serves port-forward over WebSocket (SPDY/3.1+portforward.k8s.io) only; "
                "this client fell back to SPDY"
            )
        raise bad_request("Upgrade request required")
    except ApiError as err:
        return error_response(err)
