"""The classroom dashboard: one page per cluster, plus the server side of its panels.

The page itself is static HTML + ES modules; live state arrives over the websocket and the REST
API (cluster.api, cluster.flow). The few endpoints here render text the way kubectl prints it
(the web console, the Describe and Events views), reusing cluster.kubeapi's table and describe
code.
"""

from __future__ import annotations

import functools
import hmac
import json
from pathlib import Path

from django.conf import settings
from django.contrib.auth import login
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET, require_POST

from cluster.api.http import error_response
from cluster.apiserver.errors import ApiError
from cluster.apiserver.kinds import page_kinds
from cluster.auth.access import (
    caller_of,
    get_cluster,
    may_write,
    presenter_token,
    presenter_user,
    writes_always,
)
from cluster.auth.clientaddr import client_address
from cluster.auth.ratelimit import RateLimiter
from cluster.auth.sessions import stored_key
from cluster.client.leader import election_needed
from cluster.models import Cluster
from dashboard import files, history
from dashboard.console import run_command
from dashboard.console.workdir import Workdir, WorkdirError
from dashboard.inspect import describe_text, events_text
from dashboard.strings import flow_steps, ui_strings

EXAMPLES_DIR = Path(__file__).resolve().parent / "examples"
DEMO_CLUSTER = "demo"
MAX_CONSOLE_BYTES = 1024 * 1024
# Wrong presenter-link tokens per client address (see `presenter`).
PRESENTER_FAILURES = RateLimiter()


class Unseen(Http404):
    """A cluster this caller may not see: the page's HTML 404, or its helpers' Status."""

    def __init__(self, err: ApiError) -> None:
        super().__init__("No such cluster.")
        self.err = err


def visible_cluster(request: HttpRequest, name: str) -> Cluster:
    """The cluster if this caller may see it (cluster.auth.access, the one rule; staff see every one)."""
    try:
        return get_cluster(request, name)
    except ApiError as err:
        raise Unseen(err) from None


def refused_as_status(view):
    """The page's helpers answer a cluster the caller may not see (or a bad token) as every API
    path does, with a Status (`clusters "x" not found`), not the page's HTML 404."""

    @functools.wraps(view)
    def wrapped(*args, **kwargs) -> HttpResponse:
        try:
            return view(*args, **kwargs)
        except Unseen as unseen:
            return error_response(unseen.err)

    return wrapped


def examples() -> list[dict[str, str]]:
    return [
        {"name": path.stem, "text": path.read_text(encoding="utf-8")}
        for path in sorted(EXAMPLES_DIR.glob("*.yaml"))
    ]


@require_GET
def index(request: HttpRequest) -> HttpResponse:
    return redirect(reverse("dashboard:cluster", args=[DEMO_CLUSTER]))


def page_context(request: HttpRequest, cluster: Cluster) -> dict:
    """What dashboard/cluster.html needs; other pages that extend it (labs) build it here too."""
    server = request.build_absolute_uri(f"/clusters/{cluster.name}")
    caller = caller_of(request)
    writable = may_write(caller, cluster)
    always = writes_always(caller, cluster)
    boot = {
        "cluster": cluster.name,
        "server": server,
        "examples": examples(),
        "steps": flow_steps(),
        "strings": ui_strings(),
        "kinds": page_kinds(),
        "clock_offset": cluster.clock_offset,  # the cluster's clock runs this far ahead (docs/workloads.md)
        "stopped_kubelets": cluster.stopped_kubelets or {},  # the teacher's node failures
        "access": {
            "user": caller.name,
            "teacher": caller.teacher,
            "may_write": writable,
            "always": always,  # the teacher or the owner: "Class may write" does not matter
            "public": cluster.public,
            "class_may_write": cluster.class_may_write,
        },
    }
    return {
        "cluster": cluster,
        "boot": boot,
        "kubectl_server": server,
        "may_write": writable,
        "is_teacher": caller.teacher,
        "writes_always": always,
        # The leader chip means something only where control planes are elected (scale-out).
        "leader_election": election_needed(),
        "kubeconfig_url": f"/clusters/{cluster.name}/kubeconfig",
        "kubeconfig_file": f"{cluster.name}.kubeconfig",
    }


@require_GET
@ensure_csrf_cookie
def cluster_page(request: HttpRequest, cluster: str) -> HttpResponse:
    obj = visible_cluster(request, cluster)
    return render(request, "dashboard/cluster.html", page_context(request, obj))


def _browser(request: HttpRequest) -> str | None:
    """The stored key of the browser's session, whose console files the working directory shows."""
    key = request.session.session_key
    return stored_key(key) if key else None


def _json_object(body: bytes) -> dict | None:
    """The console's request body: a JSON object, else None (arrays, numbers, not JSON at all)."""
    try:
        payload = json.loads(body or b"{}")
    except (ValueError, UnicodeDecodeError):
        return None
    return payload if isinstance(payload, dict) else None


@require_POST
@refused_as_status
def console(request: HttpRequest, cluster: str) -> JsonResponse:
    obj = visible_cluster(request, cluster)
    if len(request.body) > MAX_CONSOLE_BYTES:
        return JsonResponse({"output": "error: input too large", "exit_code": 1}, status=413)
    payload = _json_object(request.body)
    if payload is None:
        error = "error: the request body must be a JSON object"
        return JsonResponse({"output": error, "exit_code": 1}, status=400)
    command = str(payload.get("command", ""))
    stdin = str(payload.get("stdin", ""))
    result = run_command(obj, command, stdin, who=request, workdir=Workdir(_browser(request)))
    if payload.get("background") is not True:  # the page's own (completion, a watch's lines): not typed
        history.record(obj, caller_of(request).name, command, stdin, result.output, result.exit_code)
    return JsonResponse(result.as_dict())


@require_POST
@refused_as_status
def save_file(request: HttpRequest, cluster: str) -> JsonResponse:
    """Keep an uploaded or saved file in this browser's console working directory."""
    obj = visible_cluster(request, cluster)
    if len(request.body) > MAX_CONSOLE_BYTES:
        return JsonResponse({"error": "input too large"}, status=413)
    payload = _json_object(request.body)
    if payload is None:
        return JsonResponse({"error": "error: the request body must be a JSON object"}, status=400)
    try:
        name = files.save(request, obj, str(payload.get("name", "")), str(payload.get("text", "")))
    except WorkdirError as exc:
        return JsonResponse({"error": str(exc)}, status=400)
    except files.Refused as refused:
        response = JsonResponse({"error": refused.message}, status=refused.status)
        if refused.retry_after:
            response["Retry-After"] = str(refused.retry_after)
        return response
    return JsonResponse({"name": name})


@require_GET
@refused_as_status
def describe(request: HttpRequest, cluster: str, kind: str, namespace: str, name: str) -> HttpResponse:
    obj = visible_cluster(request, cluster)
    text, status = describe_text(obj, kind, "" if namespace == "-" else namespace, name)
    return HttpResponse(text, content_type="text/plain; charset=utf-8", status=status)


@require_GET
@refused_as_status
def events(request: HttpRequest, cluster: str, kind: str, namespace: str, name: str) -> HttpResponse:
    obj = visible_cluster(request, cluster)
    text, status = events_text(obj, kind, "" if namespace == "-" else namespace, name)
    return HttpResponse(text, content_type="text/plain; charset=utf-8", status=status)


@require_GET
def presenter(request: HttpRequest) -> HttpResponse:
    """The teacher's link (`make run` prints it): a valid presenter token signs this browser in.

    Like a notebook server's token link: the token is checked once, the session remembers the
    teacher, and the redirect drops the token from the address bar. The right token always works;
    wrong ones are limited per client address (429 with Retry-After), which keeps a page that
    hammers the link from costing anything (the token's 256 bits are what stop a guess).
    """
    token = request.GET.get("token", "")
    if not hmac.compare_digest(token.encode(), presenter_token().encode()):
        key = ("presenter-link", client_address(request))
        wait = PRESENTER_FAILURES.retry_after(key, settings.KUBESIM_PRESENTER_FAILURES_PER_MINUTE, 60.0)
        if wait:
            response = HttpResponse(
                "Too many wrong presenter links from this address; try again later.\n",
                content_type="text/plain; charset=utf-8",
                status=429,
            )
            response["Retry-After"] = str(wait)
            return response
        return HttpResponse(
            "This presenter link is not valid (a newer one may have been printed).\n",
            content_type="text/plain; charset=utf-8",
            status=403,
        )
    login(request, presenter_user(), backend="django.contrib.auth.backends.ModelBackend")
    target = request.GET.get("next", "")
    if not url_has_allowed_host_and_scheme(target, {request.get_host()}):
        target = reverse("dashboard:cluster", args=[DEMO_CLUSTER])
    return redirect(target)
