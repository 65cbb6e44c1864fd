"""Every error of the API is a Kubernetes Status, never Django's HTML page.

The views answer their own errors as Status objects; what reaches a client otherwise (Django's
404 for a path nothing serves, 405 from `require_GET`, a 500, a 400 for a bad Host header) is
turned here into the Status kube-apiserver answers for that code, with its generic message
(apimachinery's NewGenericServerResponse). This applies to every request on the API port
(kubesim/apiroot.py) and to the paths under `/clusters/NAME/` on the browsers' port, except the
dashboard's page itself and its `ui/` helpers (those answer a browser, in text it shows).
A response that is JSON already, or is meant to be plain text (the health checks), is left alone.
"""

from __future__ import annotations

import json
import re

from django.http import HttpRequest, HttpResponse
from django.views.csrf import csrf_failure as django_csrf_failure

from kubesim.apiroot import SCOPE_FLAG

# /clusters/NAME/<something>, where <something> is not the page's own (empty, or ui/…).
API_PATH = re.compile(r"/clusters/[^/]+/(?!ui/|$).+")
CLUSTER_PATH = re.compile(r"/clusters/[^/]+/.+")
CSRF_MESSAGE = "CSRF verification failed: send the csrftoken in X-CSRFToken"

GENERIC: dict[int, tuple[str, str]] = {
    400: ("BadRequest", "the server rejected our request for an unknown reason"),
    401: ("Unauthorized", "the server has asked for the client to provide credentials"),
    403: ("Forbidden", "the server does not allow access to the requested resource"),
    404: ("NotFound", "the server could not find the requested resource"),
    405: ("MethodNotAllowed", "the server does not allow this method on the requested resource"),
    406: ("NotAcceptable", "the server was unable to respond with a content type that the client supports"),
    409: ("Conflict", "the server reported a conflict"),
    413: ("RequestEntityTooLarge", "the server has rejected the request because it is too large"),
    415: ("UnsupportedMediaType", "the server does not support the request's media type"),
    422: ("Invalid", "the server rejected our request due to an error in our request"),
    429: ("TooManyRequests", "the server has received too many requests and has asked us to try again later"),
    503: ("ServiceUnavailable", "the server is currently unable to handle the request"),
}


def status_of(code: int) -> dict:
    reason, message = GENERIC.get(code, ("", ""))
    if not reason and code >= 500:
        reason, message = "InternalError", "an error on the server has prevented the request from succeeding"
    elif not reason:
        reason, message = (
            "Unknown",
            f"the server responded with the status code {code} but did not return more information",
        )
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "details": {},
        "code": code,
    }


def speaks_api(request: HttpRequest) -> bool:
    scope = getattr(request, "scope", None) or {}
    return bool(scope.get(SCOPE_FLAG)) or bool(API_PATH.fullmatch(request.path))


def is_status_already(response: HttpResponse) -> bool:
    content_type = response.get("Content-Type", "").split(";")[0].strip().lower()
    return (
        response.streaming
        or getattr(response, "kubesim_plain_text", False)
        or content_type == "application/json"
        or content_type.endswith("+json")
    )


class StatusErrors:
    """Middleware, first of all: sees every response, errors the layers under it produced included."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code < 400 or is_status_already(response) or not speaks_api(request):
            return response
        replaced = HttpResponse(
            json.dumps(status_of(response.status_code)),
            status=response.status_code,
            content_type="application/json",
        )
        for header in ("Allow", "Retry-After", "WWW-Authenticate"):
            if header in response:
                replaced[header] = response[header]
        return replaced


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: a Status under /clusters/NAME/… (the page's helpers too, whose script
    reads JSON) and on the API port; Django's page for the forms elsewhere (admin, join, labs)."""
    scope = getattr(request, "scope", None) or {}
    if scope.get(SCOPE_FLAG) or CLUSTER_PATH.fullmatch(request.path):
        status = {**status_of(403), "message": CSRF_MESSAGE}
        return HttpResponse(json.dumps(status), status=403, content_type="application/json")
    return django_csrf_failure(request, reason)
