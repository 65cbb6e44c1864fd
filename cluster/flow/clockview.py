"""The cluster's simulated clock, as a control of the simulation beside pace and step mode:
`GET /clusters/<c>/clock` tells the cluster's time and when each CronJob runs next;
`POST /clusters/<c>/clock` (the teacher's) moves the clock forward, by `seconds` or to the next
schedule of one CronJob (`{"to": "next-schedule", "cronJob": {"namespace", "name"}}`) or of
whichever runs first (`{"to": "next-schedule"}`). A lesson cannot wait a minute per run.
"""

from __future__ import annotations

import math
from datetime import timedelta

from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from cluster.apiserver import service as api
from cluster.apiserver.errors import bad_request
from cluster.controllers.cronjob import (
    NEXT_SCHEDULE_DELTA,
    next_schedule_time_duration,
    schedule_of,
    timestamp,
)
from cluster.controlplane import simtime
from cluster.flow.views import _body, _teachers, refusals, view_cluster
from cluster.models import Cluster
from k8s import clock, cron


def next_runs(cluster: Cluster) -> list[dict]:
    """Every CronJob that will run, with its next scheduled time on the cluster's clock."""
    now = clock.now()
    found = []
    items, _ = api.list_objects(cluster, "CronJob")
    for cj in items:
        spec, meta = cj.get("spec") or {}, cj["metadata"]
        entry = {
            "namespace": meta.get("namespace", ""),
            "name": meta["name"],
            "schedule": spec.get("schedule", ""),
            "timeZone": spec.get("timeZone"),
            "suspend": bool(spec.get("suspend")),
            "nextRun": None,
            "inSeconds": None,
        }
        if not entry["suspend"]:
            try:
                wait = next_schedule_time_duration(cj, now, schedule_of(cj)[0]) - NEXT_SCHEDULE_DELTA
            except cron.CronError:
                wait = None
            if wait is not None and wait < timedelta(days=365 * 5):
                entry["nextRun"] = timestamp(now + wait)
                entry["inSeconds"] = max(math.ceil(wait.total_seconds()), 0)
        found.append(entry)
    return sorted(
        found, key=lambda e: (e["inSeconds"] is None, e["inSeconds"] or 0, e["namespace"], e["name"])
    )


def _state(cluster: Cluster, **extra) -> JsonResponse:
    offset = simtime.shift_of(cluster.name).seconds
    return JsonResponse(
        {"clockOffset": offset, "now": timestamp(clock.now()), "cronJobs": next_runs(cluster), **extra}
    )


@csrf_exempt  # cluster.auth.access checks CSRF for writes without a token
@require_http_methods(["GET", "POST"])
@refusals
def clock_view(request: HttpRequest, cluster: str) -> JsonResponse:
    if request.method == "GET":
        return _state(view_cluster(request, cluster))
    found = _teachers(
        request,
        cluster,
        lambda user, name: f'clock is forbidden: User "{user}" cannot move the clock of cluster "{name}"',
    )
    body = _body(request)
    try:
        seconds, target = _jump_of(found, body)
        simtime.jump(found, seconds)
    except (ValueError, TypeError) as err:
        error = bad_request(str(err))
        return JsonResponse(error.status(), status=error.code)
    return _state(found, jumpedSeconds=seconds, cronJob=target)


def _jump_of(cluster: Cluster, body: dict) -> tuple[float, str | None]:
    """(how many seconds to move, the CronJob whose run that reaches, if one does)."""
    if body.get("to") is None:
        seconds = body.get("seconds")
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not math.isfinite(seconds):
            raise ValueError('give "seconds" (a number) or "to": "next-schedule"')
        return float(seconds), None
    if body.get("to") != "next-schedule":
        raise ValueError(f'"to" must be "next-schedule", not {body.get("to")!r}')
    wanted = body.get("cronJob")
    runs = [run for run in next_runs(cluster) if run["inSeconds"] is not None]
    if isinstance(wanted, dict):
        runs = [
            r for r in runs if (r["namespace"], r["name"]) == (wanted.get("namespace"), wanted.get("name"))
        ]
    if not runs:
        raise ValueError(
            "no CronJob that will run: none, or all suspended"
            if wanted is None
            else "that CronJob will not run"
        )
    run = runs[0]
    # A second past the scheduled time: the controller's timer (100 ms past it) has fired by then.
    return float(run["inSeconds"] + 1), f"{run['namespace']}/{run['name']}"
