"""`/metrics`: what this API server process really counted, in Prometheus' text format.

kube-apiserver's own series and words: `apiserver_request_total` (a counter per verb, dry run,
group, version, resource, subresource, scope, component and code) and
`apiserver_request_duration_seconds` (a histogram with upstream's buckets; watches and followed
logs, which last as long as the client likes, are counted but not timed, as upstream leaves
long-running requests out of it), then what the control plane's components count in this process
(cluster/client/counters.py: `scheduler_schedule_attempts_total`,
`scheduler_preemption_attempts_total`, `scheduler_pending_pods`, and the controller manager's
`workqueue_*` series). Each cluster's series are its
own: a caller reads those of the cluster it addresses. Counted in memory by the process that
answered, as each kube-apiserver instance counts its own (in the scale-out profile, one process's
share), and lost at restart.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET

from cluster.api.http import error_response
from cluster.api.paths import Target, resolve
from cluster.apiserver.errors import ApiError
from cluster.auth.access import get_cluster
from cluster.client import counters

# k8s.io/apiserver/pkg/endpoints/metrics: requestLatency's buckets.
BUCKETS = (
    0.005,
    0.025,
    0.05,
    0.1,
    0.2,
    0.4,
    0.6,
    0.8,
    1.0,
    1.25,
    1.5,
    2,
    3,
    4,
    5,
    6,
    8,
    10,
    15,
    20,
    30,
    45,
    60,
)
TOTAL_HELP = (
    "[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, "
    "resource, scope, component, and HTTP response code."
)
DURATION_HELP = (
    "[STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, "
    "resource, subresource, scope and component."
)
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_VERBS = {"GET": "GET", "HEAD": "GET", "POST": "POST", "PUT": "PUT", "PATCH": "PATCH", "DELETE": "DELETE"}


@dataclass(frozen=True, slots=True)
class Request:
    """One request's labels, as upstream's MonitorRequest names them."""

    verb: str
    dry_run: str
    group: str
    version: str
    resource: str
    subresource: str
    scope: str
    component: str = "apiserver"

    def labels(self) -> dict[str, str]:
        return {
            "component": self.component,
            "dry_run": self.dry_run,
            "group": self.group,
            "resource": self.resource,
            "scope": self.scope,
            "subresource": self.subresource,
            "verb": self.verb,
            "version": self.version,
        }


def describe(
    method: str, target: Target | None, *, watch: bool, apply: bool, dry_run: bool, group: str, version: str
) -> Request:
    """The labels of a resource request: LIST for a collection's GET, WATCH, APPLY for a
    server-side apply, DELETECOLLECTION; scope resource, namespace or cluster."""
    verb = _VERBS.get(method, method)
    named = bool(target and target.name)
    if watch:
        verb = "WATCH"
    elif verb == "GET" and not named:
        verb = "LIST"
    elif verb == "PATCH" and apply:
        verb = "APPLY"
    elif verb == "DELETE" and not named:
        verb = "DELETECOLLECTION"
    if target is None:
        return Request(verb, "All" if dry_run else "", group, version, "", "", "")
    scope = "resource" if named else ("namespace" if target.namespace else "cluster")
    return Request(
        verb,
        "All" if dry_run else "",
        target.info.group,
        version,
        target.info.plural,
        target.subresource,
        scope,
    )


class Registry:
    """Every cluster's counters; one lock, held only to add a number or copy them out."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._totals: dict[str, dict[tuple[Request, int], int]] = defaultdict(dict)
        # Per request: the count at or under each bucket's bound, then the count, then the sum.
        self._timings: dict[str, dict[Request, list[float]]] = defaultdict(dict)

    def observe(self, cluster: str, request: Request, code: int, seconds: float | None) -> None:
        with self._lock:
            totals = self._totals[cluster]
            totals[(request, code)] = totals.get((request, code), 0) + 1
            if seconds is None:
                return
            timing = self._timings[cluster].setdefault(request, [0.0] * (len(BUCKETS) + 2))
            for i, bound in enumerate(BUCKETS):
                if seconds <= bound:
                    timing[i] += 1
            timing[-2] += 1
            timing[-1] += seconds

    def snapshot(self, cluster: str) -> tuple[dict, dict]:
        with self._lock:
            totals = dict(self._totals.get(cluster, {}))
            timings = {k: list(v) for k, v in self._timings.get(cluster, {}).items()}
        return totals, timings


REQUESTS = Registry()


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _series(name: str, labels: dict[str, str], value: float) -> str:
    if not labels:
        return f"{name} {counters.number_text(value)}\n"
    # Sorted by name, a histogram's `le` last, as client_golang writes them.
    ordered = sorted(labels.items(), key=lambda item: (item[0] == "le", item[0]))
    inner = ",".join(f'{k}="{_escape(v)}"' for k, v in ordered)
    return f"{name}{{{inner}}} {counters.number_text(value)}\n"


def _order(labels: dict[str, str]) -> list[tuple[str, str]]:
    return sorted(labels.items())


def exposition(cluster: str, registry: Registry = REQUESTS) -> str:
    """The cluster's series in the Prometheus text format (version 0.0.4), sorted."""
    totals, timings = registry.snapshot(cluster)
    name = "apiserver_request_duration_seconds"
    out = [f"# HELP {name} {DURATION_HELP}\n", f"# TYPE {name} histogram\n"]
    for request in sorted(timings, key=lambda r: _order(r.labels())):
        timing, labels = timings[request], request.labels()
        for i, bound in enumerate(BUCKETS):
            out.append(_series(f"{name}_bucket", {**labels, "le": counters.number_text(bound)}, timing[i]))
        out.append(_series(f"{name}_bucket", {**labels, "le": "+Inf"}, timing[-2]))
        out.append(_series(f"{name}_sum", labels, timing[-1]))
        out.append(_series(f"{name}_count", labels, timing[-2]))
    out += [f"# HELP apiserver_request_total {TOTAL_HELP}\n", "# TYPE apiserver_request_total counter\n"]
    series = [({**request.labels(), "code": str(code)}, value) for (request, code), value in totals.items()]
    for labels, value in sorted(series, key=lambda item: _order(item[0])):
        out.append(_series("apiserver_request_total", labels, value))
    for name, counted in counters.samples(cluster).items():
        kind, text = counters.DEFINITIONS[name]
        out += [f"# HELP {name} {text}\n", f"# TYPE {name} {kind}\n"]
        out += [_series(sample, labels, value) for sample, labels, value in counted]
    return "".join(out)


def record(
    request: HttpRequest, group: str, version: str, rest: str, response: HttpResponse, started: float
) -> None:
    """Count one REST request of a cluster that exists (a made-up name adds no series), timed
    unless it streams (a watch, `logs -f`)."""
    cluster = getattr(request, "kubesim_cluster_found", "")
    if not cluster:
        return
    try:
        target = resolve(group, version, rest)
    except ApiError:
        target = None
    labels = describe(
        request.method or "GET",
        target,
        watch=request.GET.get("watch", "").lower() in ("1", "true"),
        apply=(request.content_type or "").startswith("application/apply-patch"),
        dry_run=bool(request.GET.get("dryRun")),
        group=group,
        version=version,
    )
    seconds = None if response.streaming else time.perf_counter() - started
    REQUESTS.observe(cluster, labels, response.status_code, seconds)


@csrf_exempt  # GET only: anything else is 405
@require_GET
def metrics_view(request: HttpRequest, cluster: str) -> HttpResponse:
    """GET /clusters/<c>/metrics (the API port's root /metrics: kubesim/apiroot.py)."""
    try:
        found = get_cluster(request, cluster)
    except ApiError as err:
        return error_response(err)
    response = HttpResponse(exposition(found.name), content_type=CONTENT_TYPE)
    response.kubesim_plain_text = True
    return response
