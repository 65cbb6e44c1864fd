"""HTTP endpoints beside the websocket: snapshot, flow controls, traces, scheduling attempts."""

from __future__ import annotations

import json

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET, require_POST

from cluster import leader
from cluster.api.access import can_edit, can_view
from cluster.apiserver.errors import ApiError, bad_request
from cluster.flow import gate, snapshot
from cluster.flow.recorder import trace_json
from cluster.flow.steps import STEPS
from cluster.models import Cluster, FlowTrace
from scheduler.service import attempts


def _cluster(request: HttpRequest, name: str, edit: bool = False) -> Cluster:
    cluster = get_object_or_404(Cluster, name=name)
    if not can_view(request, cluster):
        raise Http404("no such cluster")
    if edit and not can_edit(request, cluster):
        raise Http404("no such cluster")
    return cluster


def _body(request: HttpRequest) -> dict:
    try:
        data = json.loads(request.body or b"{}")
    except ValueError:
        data = {}
    if not isinstance(data, dict):
        data = {}
    return {**request.POST.dict(), **data}


def _settings(cluster: Cluster) -> JsonResponse:
    fresh = Cluster.objects.get(pk=cluster.pk)
    return JsonResponse({"pace_ms": fresh.pace_ms, "step_mode": fresh.step_mode})


@require_GET
def snapshot_view(request: HttpRequest, cluster: str) -> HttpResponse:
    found = _cluster(request, cluster)
    if "revision" in request.GET:
        return _snapshot_at(found, request.GET["revision"])
    text = snapshot.build_text(found, leader.with_leader({}, found))
    return HttpResponse(text.encode(), content_type="application/json")


def _snapshot_at(cluster: Cluster, value: str) -> JsonResponse:
    """?revision=N: the cluster as it was at revision N (replay), or a Status saying why not."""
    try:
        revision = int(value)
        if revision < 0:
            raise ValueError
        return JsonResponse(snapshot.build_at(cluster, revision))
    except ValueError:
        error = bad_request(f"revision must be a non-negative integer, not {value!r}")
    except ApiError as raised:
        error = raised
    return JsonResponse(error.status(), status=error.code)


@require_GET
def steps_view(request: HttpRequest, cluster: str) -> JsonResponse:
    _cluster(request, cluster)
    return JsonResponse({"steps": list(STEPS)})


@require_POST
def next_view(request: HttpRequest, cluster: str) -> JsonResponse:
    found = _cluster(request, cluster, edit=True)
    trace = gate.release_next(found.name, _body(request).get("trace") or None)
    if trace is None:
        return JsonResponse({"error": "no such trace"}, status=404)
    return JsonResponse({"trace": trace})


@require_POST
def continue_view(request: HttpRequest, cluster: str) -> JsonResponse:
    found = _cluster(request, cluster, edit=True)
    gate.continue_all(found.name)
    return _settings(found)


@require_POST
def pace_view(request: HttpRequest, cluster: str) -> JsonResponse:
    found = _cluster(request, cluster, edit=True)
    try:
        pace = int(_body(request).get("pace_ms"))
    except (TypeError, ValueError):
        return JsonResponse({"error": "pace_ms must be an integer number of milliseconds"}, status=400)
    gate.set_pace(found.name, pace)
    return _settings(found)


@require_POST
def step_mode_view(request: HttpRequest, cluster: str) -> JsonResponse:
    found = _cluster(request, cluster, edit=True)
    on = _body(request).get("on")
    gate.set_step_mode(found.name, on in (True, "true", "1", "on", 1))
    return _settings(found)


@require_GET
def trace_view(request: HttpRequest, cluster: str, trace: str) -> JsonResponse:
    found = _cluster(request, cluster)
    row = get_object_or_404(FlowTrace, cluster=found, pk=trace)
    return JsonResponse(trace_json(row, found.name))


@require_GET
def scheduling_view(request: HttpRequest, cluster: str, namespace: str, pod: str) -> JsonResponse:
    """The pod's scheduling attempts, newest first, each with the engine's full explanation."""
    found = _cluster(request, cluster)
    return JsonResponse({"namespace": namespace, "pod": pod, "attempts": attempts(found, namespace, pod)})
