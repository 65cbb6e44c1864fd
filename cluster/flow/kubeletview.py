"""The teacher's node failure, a control of the simulation beside the clock (kubectl cannot stop a
kubelet): `GET /clusters/<c>/kubelets` → `{"stoppedKubelets": {node: since}}`;
`POST /clusters/<c>/kubelets/<node>` with `{"running": false}` stops the node's kubelet, with
`{"running": true}` starts it again (the teacher only). What follows is the cluster's own doing:
docs/workloads.md, "Node failure"."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError, bad_request
from cluster.flow.views import _body, _teachers, refusals, view_cluster
from cluster.kubelet import power


@csrf_exempt  # cluster.auth.access checks CSRF for writes without a token
@require_http_methods(["GET"])
@refusals
def kubelets_view(request: HttpRequest, cluster: str) -> JsonResponse:
    found = view_cluster(request, cluster)
    power.observe(found.name, found.stopped_kubelets)
    return JsonResponse({"stoppedKubelets": power.stopped(found.name)})


@csrf_exempt
@require_http_methods(["POST"])
@refusals
def kubelet_view(request: HttpRequest, cluster: str, node: str) -> JsonResponse:
    found = _teachers(
        request,
        cluster,
        lambda user, name: (
            f'kubelets is forbidden: User "{user}" cannot stop or start the kubelet of node "{node}" '
            f'in cluster "{name}"'
        ),
    )
    running = _body(request).get("running")
    if not isinstance(running, bool):
        error = bad_request('give "running": true (start the kubelet) or false (stop it)')
        return JsonResponse(error.status(), status=error.code)
    try:
        api.get(found, "Node", None, node)
    except ApiError as err:
        return JsonResponse(err.status(), status=err.code)
    stopped = power.set_running(found, node, running)
    return JsonResponse({"node": node, "running": node not in stopped, "stoppedKubelets": stopped})
