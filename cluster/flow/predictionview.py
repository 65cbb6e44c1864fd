"""The prediction round's endpoints (cluster/flow/prediction.py):

- GET    /clusters/<c>/prediction        the round (or null) and the caller's own guess
- POST   /clusters/<c>/prediction        {"ask_plugin": bool}: the teacher arms a new round
- DELETE /clusters/<c>/prediction        the teacher cancels the open round
- POST   /clusters/<c>/prediction/guess  {"round": id, "node": …, "plugin": …}: anyone who may
  watch the cluster guesses, once per student or browser session, changeable until it closes
"""

from __future__ import annotations

import hashlib
import json

from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt

from cluster.api.http import error_response, json_response
from cluster.apiserver.errors import ApiError, bad_request, method_not_allowed
from cluster.auth.access import caller_of, check_csrf, forbidden, get_cluster, too_many_requests
from cluster.auth.ratelimit import RateLimiter
from cluster.flow import prediction

GUESSES_PER_MINUTE = 10  # per voter: changing one's mind a few times, not a flood
ANONYMOUS_GUESSES_PER_MINUTE = 240  # per address, for callers without a name (a NAT's class)
MAX_BODY_BYTES = 4096
GUESSES = RateLimiter()


def _body(request: HttpRequest) -> dict:
    if len(request.body) > MAX_BODY_BYTES:
        raise ApiError(413, "RequestEntityTooLarge", f"Request entity too large: limit is {MAX_BODY_BYTES}")
    try:
        data = json.loads(request.body or b"{}")
    except (ValueError, UnicodeDecodeError):
        raise bad_request("the request body is not JSON") from None
    if not isinstance(data, dict):
        raise bad_request("the request body must be a JSON object")
    return data


def _voter(request: HttpRequest, create: bool = True) -> str | None:
    """A student (any named caller) votes as themself; an anonymous viewer as their browser
    session (made for the first guess: a page that only reads gets none)."""
    caller = caller_of(request)
    if not caller.anonymous:
        return f"user:{caller.name}"[:100]
    if not request.session.session_key:
        if not create:
            return None
        request.session.save()  # the cookie goes back with this answer
    return "session:" + hashlib.sha256(request.session.session_key.encode()).hexdigest()[:40]


def _state(request: HttpRequest, row) -> dict:
    voter = _voter(request, create=False)
    return {"round": prediction.round_json(row), "mine": prediction.mine(row, voter) if voter else None}


@csrf_exempt  # checked below, for callers without a token
def prediction_view(request: HttpRequest, cluster: str) -> HttpResponse:
    try:
        found = get_cluster(request, cluster)
        if request.method == "GET":
            return json_response(_state(request, prediction.settle(found)))
        if request.method not in ("POST", "DELETE"):
            raise method_not_allowed(request.method or "")
        caller = caller_of(request)
        if not caller.teacher:
            raise forbidden(caller, request.method.lower(), "", path=request.path)
        if not caller.by_token:
            check_csrf(request)
        if request.method == "DELETE":
            return json_response(_state(request, prediction.cancel(found)))
        ask = _body(request).get("ask_plugin", False)
        if not isinstance(ask, bool):
            raise bad_request("ask_plugin must be true or false")
        row = prediction.arm(found, caller.name, ask)
        return json_response(_state(request, row), status=201)
    except ApiError as err:
        return error_response(err)


@csrf_exempt  # checked below, for callers without a token
def guess_view(request: HttpRequest, cluster: str) -> HttpResponse:
    try:
        found = get_cluster(request, cluster)
        if request.method != "POST":
            raise method_not_allowed(request.method or "")
        caller = caller_of(request)
        if not caller.by_token:
            check_csrf(request)
        data = _body(request)
        voter = _voter(request)
        limits = [((found.pk, voter), GUESSES_PER_MINUTE)]
        if caller.anonymous:
            limits.append(((found.pk, "addr", caller.client), ANONYMOUS_GUESSES_PER_MINUTE))
        seconds = GUESSES.retry_after_all(limits, 60.0)
        if seconds:
            raise too_many_requests(seconds)
        round_id = data.get("round")
        if round_id is not None and (not isinstance(round_id, int) or isinstance(round_id, bool)):
            raise bad_request("round must be the round's id, an integer")
        row = prediction.guess(found, voter, data.get("node"), data.get("plugin"), round_id)
        return json_response(_state(request, row))
    except ApiError as err:
        return error_response(err)
