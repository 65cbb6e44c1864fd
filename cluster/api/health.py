"""`/healthz`, `/livez` and `/readyz`, as kube-apiserver prints them (k8s.io/apiserver's healthz).

`GET /readyz` → `ok`; `?verbose` lists every check (`[+]etcd ok` … `readyz check passed`);
`?exclude=NAME` skips one (`[+]NAME excluded: ok`); `/readyz/etcd` runs one. A failed check is
500 with `[-]etcd failed: reason withheld`, and its own path says why. Only checks KubeSim really
makes are listed: `ping` (the server answers) and `etcd` (the caller's cluster's store answers a
read of its revision; `etcd-readiness` on /readyz, as upstream names the same probe there).
Plain text, as upstream's: these are the API port's only answers that are not JSON.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET

from cluster.api.http import error_response
from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError, no_such_resource
from cluster.auth.access import get_cluster
from cluster.models import Cluster

Check = Callable[[Cluster], str]  # "" when healthy, else why not


def ping(cluster: Cluster) -> str:
    return ""


def etcd(cluster: Cluster) -> str:
    try:
        api.current_revision(cluster)
    except DatabaseError as err:
        return f"the cluster's store did not answer: {err}"
    return ""


CHECKS: dict[str, dict[str, Check]] = {
    "healthz": {"ping": ping, "etcd": etcd},
    "livez": {"ping": ping, "etcd": etcd},
    "readyz": {"ping": ping, "etcd": etcd, "etcd-readiness": etcd},
}


def text(body: str, status: int = 200) -> HttpResponse:
    response = HttpResponse(body, status=status, content_type="text/plain; charset=utf-8")
    response.kubesim_plain_text = True  # kubesim/errors.py leaves it as it is
    return response


def report(endpoint: str, cluster: Cluster, query) -> HttpResponse:
    """handleRootHealth: every check, the excluded ones skipped, verbose on request or failure."""
    excluded = list(dict.fromkeys(query.getlist("exclude")))
    lines, failed = [], False
    for name, check in CHECKS[endpoint].items():
        if name in excluded:
            excluded.remove(name)
            lines.append(f"[+]{name} excluded: ok\n")
        elif check(cluster):
            failed = True
            lines.append(f"[-]{name} failed: reason withheld\n")
        else:
            lines.append(f"[+]{name} ok\n")
    if excluded:
        names = ",".join(f'"{name}"' for name in excluded)
        lines.append(f"warn: some health checks cannot be excluded: no matches for {names}\n")
    if failed:
        return text("".join(lines) + f"{endpoint} check failed\n", 500)
    if "verbose" not in query:
        return text("ok")
    return text("".join(lines) + f"{endpoint} check passed\n")


def one_check(endpoint: str, name: str, cluster: Cluster) -> HttpResponse:
    check = CHECKS[endpoint].get(name)
    if check is None:
        raise no_such_resource()
    why = check(cluster)
    return text(f"internal server error: {why}\n", 500) if why else text("ok")


@csrf_exempt  # GET only: anything else is 405
@require_GET
def health(request: HttpRequest, cluster: str, endpoint: str, check: str | None = None) -> HttpResponse:
    """GET /clusters/<c>/{healthz,livez,readyz}[/<check>] (the API port's root: kubesim/apiroot.py)."""
    try:
        found = get_cluster(request, cluster)
        return one_check(endpoint, check, found) if check else report(endpoint, found, request.GET)
    except ApiError as err:
        return error_response(err)
