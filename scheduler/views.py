"""The scheduler's HTTP endpoints under /clusters/<cluster>/scheduling/: a pod's attempts and where
it waits, and the what-if question (its configuration: scheduler/configview.py)."""

from __future__ import annotations

import json

from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from cluster.api.http import error_response
from cluster.apiserver.errors import ApiError, bad_request, too_large
from cluster.auth.access import caller_of, too_many_requests
from cluster.auth.ratelimit import RateLimiter
from cluster.auth.readlimit import limit_anonymous_read
from cluster.flow.views import refusals, view_cluster
from cluster.models import Cluster
from scheduler import queue_view, what_if
from scheduler.service import attempts


@require_GET
@refusals
def scheduling_view(request: HttpRequest, cluster: str, namespace: str, pod: str) -> JsonResponse:
    """The pod's scheduling attempts, newest first, each with the engine's full explanation."""
    found = view_cluster(request, cluster)
    tried = attempts(found, namespace, pod)
    # "queue": where the pod waits now (queue, backoff, rejecting plugins, what would retry it).
    return JsonResponse(
        {"namespace": namespace, "pod": pod, "queue": queue_view.for_pod(tried), "attempts": tried}
    )


@csrf_exempt  # a question, not a write: it changes nothing, so read access is enough
@require_POST
@refusals
def what_if_view(request: HttpRequest, cluster: str) -> JsonResponse:
    """POST {pod, nodes?, profile?, schedulerName?}: the explanation for that copy, writing nothing."""
    found = view_cluster(request, cluster)
    try:
        limit_anonymous_read(request)
        _limit_what_if(request, found)
        if len(request.body) > what_if.MAX_BODY_BYTES:
            raise too_large(what_if.MAX_BODY_BYTES)
        try:
            body = json.loads(request.body or b"null")
        except ValueError as err:
            raise bad_request(f"the request body is not JSON: {err}") from None
        return JsonResponse(what_if.answer(found, body))
    except ApiError as err:
        return error_response(err)


WHAT_IFS = RateLimiter()


def _limit_what_if(request: HttpRequest, cluster: Cluster) -> None:
    """Each what-if is a whole scheduling cycle over the cluster: at most
    what_if.PER_MINUTE per caller (by name, or address when anonymous); the teacher is not counted."""
    caller = caller_of(request)
    if caller.teacher:
        return
    who = caller.client if caller.anonymous else caller.name
    seconds = WHAT_IFS.retry_after((cluster.pk, who), what_if.PER_MINUTE, 60.0)
    if seconds:
        raise too_many_requests(seconds)
