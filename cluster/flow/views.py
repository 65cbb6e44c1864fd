"""HTTP endpoints beside the websocket: snapshot, flow controls, traces (the scheduler's own:
scheduler/views.py)."""

from __future__ import annotations

import functools
import json

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from cluster.api.http import error_response
from cluster.apiserver.errors import ApiError, bad_request
from cluster.auth.access import caller_of, get_cluster
from cluster.auth.readlimit import limit_anonymous_read
from cluster.client import leader
from cluster.flow import controls, gate, snapshot, snapshotcache
from cluster.flow.recorder import steps_page, trace_json
from cluster.flow.steps import STEPS
from cluster.models import Cluster, FlowTrace


class Refused(Exception):
    """An access refusal, answered as the Status JSON with its code (see `refusals`): 404 for a
    cluster the caller may not see (`clusters "x" not found`, as every API path), 403, 429."""

    def __init__(self, err: ApiError) -> None:
        self.err = err


def view_cluster(request: HttpRequest, name: str, edit: bool = False) -> Cluster:
    """Flow controls are writes: `post` on their path, as kube-apiserver words non-resource verbs."""
    try:
        if edit:
            return get_cluster(request, name, verb="post", path=request.path)
        return get_cluster(request, name)
    except ApiError as err:
        raise Refused(err) from None


def _teachers(request: HttpRequest, name: str, refusal) -> Cluster:
    """A control of the simulation only the teacher may use (the clock, a node's kubelet): the
    cluster, or Refused with kube-apiserver's 403 words; `refusal(user, cluster)` says what was
    refused."""
    found = view_cluster(request, name, edit=True)
    caller = caller_of(request)
    if not caller.teacher:
        message = f"{refusal(caller.name, found.name)}: only the teacher may"
        raise Refused(ApiError(403, "Forbidden", message))
    return found


def refusals(view):
    """Answer a Refused as JSON: 404 and 403 with kube-apiserver's message, 429 with Retry-After."""

    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except Refused as refused:
            return error_response(refused.err)

    return wrapped


def _body(request: HttpRequest) -> dict:
    try:
        data = json.loads(request.body or b"{}")
    except ValueError:
        data = {}
    return data if isinstance(data, dict) else {}


def _argument(request: HttpRequest, name: str) -> tuple[object, bool]:
    """A control's argument, and whether it came form-encoded (text) rather than as JSON."""
    if name in request.POST:
        return request.POST[name], True
    return _body(request).get(name), False


def _bad_control(err: controls.BadControl) -> JsonResponse:
    return JsonResponse({"error": str(err)}, status=400)


def _settings(cluster: Cluster) -> JsonResponse:
    fresh = Cluster.objects.get(pk=cluster.pk)
    return JsonResponse({"pace_ms": fresh.pace_ms, "step_mode": fresh.step_mode})


@require_GET
@refusals
def snapshot_view(request: HttpRequest, cluster: str) -> HttpResponse:
    found = view_cluster(request, cluster)
    try:
        limit_anonymous_read(request)
    except ApiError as err:
        return error_response(err)
    view = request.GET.get("view", "full")
    if view not in snapshot.VIEWS:
        error = bad_request(f"view must be one of {', '.join(snapshot.VIEWS)}, not {view!r}")
        return JsonResponse(error.status(), status=error.code)
    if "revision" in request.GET:
        return _snapshot_at(found, request.GET["revision"], view)
    built = snapshotcache.shared(found, leader.with_leader({}, found), view)
    accepts = request.headers.get("Accept-Encoding", "")
    if len(built.body) <= snapshot.COMPRESS_OVER or "gzip" not in accepts.lower():
        response = HttpResponse(built.body, content_type="application/json")
    else:
        response = HttpResponse(built.gzipped(), content_type="application/json")
        response["Content-Encoding"] = "gzip"
    response["Vary"] = "Accept-Encoding"
    return response


def _snapshot_at(cluster: Cluster, value: str, view: str) -> JsonResponse:
    """?revision=N: the cluster as it was at revision N (replay), or a Status saying why not."""
    try:
        revision = int(value)
        if revision < 0:
            raise ValueError
        return JsonResponse(snapshot.build_at(cluster, revision, view))
    except ValueError:
        error = bad_request(f"revision must be a non-negative integer, not {value!r}")
    except ApiError as raised:
        error = raised
    return JsonResponse(error.status(), status=error.code)


@require_GET
@refusals
def steps_view(request: HttpRequest, cluster: str) -> JsonResponse:
    """The 13-step catalogue; with ?trace=ID, that trace's steps as `flow.step` messages, by seq:
    those after `after` (default 0) and before `before` (default: none), at most `limit` (default
    and cap 2,000), with `more` true when others follow."""
    found = view_cluster(request, cluster)
    if "trace" not in request.GET:
        return JsonResponse({"steps": list(STEPS)})
    row = get_object_or_404(FlowTrace, cluster=found, pk=request.GET["trace"])
    try:
        after, before, limit = (
            int(request.GET.get(name, default))
            for name, default in (("after", 0), ("before", 0), ("limit", 2000))
        )
        if min(after, before) < 0 or limit < 1:
            raise ValueError
    except ValueError:
        error = bad_request("after, before and limit must be non-negative integers (limit at least 1)")
        return JsonResponse(error.status(), status=error.code)
    page = steps_page(row.pk, found.name, after, before or None, min(limit, 2000))
    return JsonResponse({"trace": row.pk, **page})


@csrf_exempt  # cluster.auth.access checks CSRF for writes without a token
@require_POST
@refusals
def next_view(request: HttpRequest, cluster: str) -> JsonResponse:
    found = view_cluster(request, cluster, edit=True)
    try:
        asked = controls.trace_id(_argument(request, "trace")[0])
    except controls.BadControl as err:
        return _bad_control(err)
    if asked is not None and not FlowTrace.objects.filter(cluster=found, pk=asked).exists():
        return JsonResponse({"error": "no such trace"}, status=404)
    trace = gate.release_next(found.name, asked)
    if trace is None:
        # What the page's Next button shows: enabled only while a step waits for it.
        return JsonResponse({"error": "no step of this trace waits for Next"}, status=409)
    return JsonResponse({"trace": trace})


@csrf_exempt  # cluster.auth.access checks CSRF for writes without a token
@require_POST
@refusals
def continue_view(request: HttpRequest, cluster: str) -> JsonResponse:
    found = view_cluster(request, cluster, edit=True)
    gate.continue_all(found.name)
    return _settings(found)


@csrf_exempt  # cluster.auth.access checks CSRF for writes without a token
@require_POST
@refusals
def pace_view(request: HttpRequest, cluster: str) -> JsonResponse:
    found = view_cluster(request, cluster, edit=True)
    try:
        pace = controls.pace_ms(*_argument(request, "pace_ms"))
    except controls.BadControl as err:
        return _bad_control(err)
    gate.set_pace(found.name, pace)
    return _settings(found)


@csrf_exempt  # cluster.auth.access checks CSRF for writes without a token
@require_POST
@refusals
def step_mode_view(request: HttpRequest, cluster: str) -> JsonResponse:
    found = view_cluster(request, cluster, edit=True)
    try:
        on = controls.step_mode_on(*_argument(request, "on"))
    except controls.BadControl as err:
        return _bad_control(err)
    gate.set_step_mode(found.name, on)
    return _settings(found)


@require_GET
@refusals
def trace_view(request: HttpRequest, cluster: str, trace: str) -> JsonResponse:
    found = view_cluster(request, cluster)
    row = get_object_or_404(FlowTrace, cluster=found, pk=trace)
    return JsonResponse(trace_json(row, found.name))
