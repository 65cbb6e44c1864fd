"""The scheduler settings view's endpoints: the configuration read (profiles, diffs, the located
error), a weight edited into config.yaml without writing, and the save (docs/scheduler.md §5)."""

from __future__ import annotations

import json

from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from cluster.api.http import actor_for, error_response
from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError, bad_request, method_not_allowed, too_large
from cluster.auth.access import get_cluster
from cluster.auth.readlimit import limit_anonymous_read
from scheduler import configuration, settings
from scheduler.configuration import InvalidConfiguration
from scheduler.engine.profile import default_profile

MAX_BODY_BYTES = configuration.MAX_CONFIG_BYTES + 4096


def _json_body(request: HttpRequest) -> dict:
    if len(request.body) > MAX_BODY_BYTES:
        raise too_large(MAX_BODY_BYTES)
    try:
        body = json.loads(request.body or b"{}")
    except ValueError as err:
        raise bad_request(f"the request body is not JSON: {err}") from None
    if not isinstance(body, dict):
        raise bad_request("the request body must be a JSON object")
    text = body.get("text")
    if text is not None and not isinstance(text, str):
        raise bad_request("text: must be a string (config.yaml)")
    return body


def _invalid(err: InvalidConfiguration) -> JsonResponse:
    field = str(err).split(": ", 2)[1] if str(err).count(": ") >= 2 else configuration.KEY
    status = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": str(err),
        "reason": "Invalid",
        "details": {"causes": [{"reason": "FieldValueInvalid", "message": str(err), "field": field}]},
        "code": 422,
    }
    return JsonResponse(status, status=422)


@csrf_exempt  # writes are checked by cluster.auth.access (CSRF for sessions, the token otherwise)
def config_view(request: HttpRequest, cluster: str) -> JsonResponse:
    """GET: the configuration as the settings view shows it. POST {text}: save it (a valid one)."""
    try:
        if request.method == "GET":
            found = get_cluster(request, cluster)
            limit_anonymous_read(request)
            return JsonResponse({**_current(found), "defaults": settings.describe_profile(default_profile())})
        if request.method != "POST":
            raise method_not_allowed(request.method or "")
        found = get_cluster(
            request, cluster, verb="update", resource="configmaps",
            namespace=configuration.NAMESPACE, name=configuration.NAME,
        )  # fmt: skip
        body = _json_body(request)
        try:
            settings.save(found, body.get("text") or "", actor_for(request))
        except InvalidConfiguration as err:
            return _invalid(err)
        return JsonResponse(_current(found))
    except ApiError as err:
        return error_response(err)


@csrf_exempt  # a question, not a write
def preview_view(request: HttpRequest, cluster: str) -> JsonResponse:
    """POST {text, profile?, plugin?, weight?}: the reading of `text` (with that weight set), unsaved."""
    try:
        if request.method != "POST":
            raise method_not_allowed(request.method or "")
        get_cluster(request, cluster)
        limit_anonymous_read(request)
        body = _json_body(request)
        text = body.get("text")
        if body.get("plugin") is not None:
            weight, plugin, profile = body.get("weight"), body.get("plugin"), body.get("profile")
            if not isinstance(weight, int) or isinstance(weight, bool) or not 0 <= weight <= 100:
                raise bad_request("weight: must be an integer in the range [0, 100]")
            if not isinstance(plugin, str) or not isinstance(profile, str):
                raise bad_request("plugin and profile: must be strings")
            try:
                text = settings.with_weight(text, profile, plugin, weight)
            except InvalidConfiguration as err:
                return _invalid(err)
        return JsonResponse(settings.reading(text))
    except ApiError as err:
        return error_response(err)


def _current(cluster) -> dict:
    """The ConfigMap's config.yaml read now, and the scheduler's latest refusal of it, if any."""
    try:
        found = api.get(cluster, "ConfigMap", configuration.NAMESPACE, configuration.NAME)
    except ApiError:
        found = None
    return {**settings.reading(configuration.config_text(found)), "exists": found is not None}
