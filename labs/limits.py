"""Sandbox limits, enforced as Kubernetes enforces a ResourceQuota: an admission check on writes.

A student's sandbox may hold at most so many objects, nodes and pods (replicas count when a
workload is scaled), and a student's own requests are rate-limited, so that one student cannot
exhaust the server. Refusals are Kubernetes Status errors that kubectl and the console print as
they are: 403 Forbidden "exceeded quota: sandbox-limits, requested: pods=1, used: pods=60,
limited: pods=60", or 429 TooManyRequests. Clusters that are not sandboxes are never touched.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass

from django.conf import settings

from cluster.apiserver.errors import ApiError
from cluster.apiserver.kinds import kind_info
from cluster.models import ApiObject

QUOTA_NAME = "sandbox-limits"
USER_CLIENTS = frozenset({"kubectl", "web", "upload", "api"})
WORKLOADS = ("ReplicationController", "ReplicaSet", "Deployment")


@dataclass(frozen=True, slots=True)
class Limits:
    objects: int = 300  # every stored object but Events and Leases
    nodes: int = 20
    pods: int = 100
    writes: int = 30  # a student's own writes per `window` seconds
    window: float = 10.0


def limits() -> Limits:
    overrides = getattr(settings, "KUBESIM_SANDBOX_LIMITS", {})
    return Limits(**overrides)


def is_sandbox(cluster) -> bool:
    from labs.models import Student

    return Student.objects.filter(sandbox_id=cluster.pk).exists()


def _forbidden(kind: str, name: str, resource: str, requested: int, used: int, limit: int) -> ApiError:
    info = kind_info(kind)
    plural = info.qualified if info else kind.lower()
    return ApiError(
        403,
        "Forbidden",
        f'{plural} "{name}" is forbidden: exceeded quota: {QUOTA_NAME}, requested: {resource}={requested}, '
        f"used: {resource}={used}, limited: {resource}={limit}",
    )


class RateLimiter:
    """Sliding-window counts per cluster, in this process (the embedded control plane's)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._times: dict[int, deque[float]] = {}

    def allow(self, key: int, limit: int, window: float, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        with self._lock:
            times = self._times.setdefault(key, deque())
            while times and times[0] <= now - window:
                times.popleft()
            if len(times) >= limit:
                return False
            times.append(now)
            return True

    def reset(self, key: int) -> None:
        with self._lock:
            self._times.pop(key, None)


RATE = RateLimiter()


def admit(cluster, verb: str, kind: str, body: dict, actor) -> None:
    """Raise ApiError when this write would take a sandbox past its limits."""
    if verb in ("status", "delete") or kind in ("Event", "Lease") or not is_sandbox(cluster):
        return
    lim = limits()
    name = (body.get("metadata") or {}).get("name", "")
    if actor.client in USER_CLIENTS and not RATE.allow(cluster.pk, lim.writes, lim.window):
        raise ApiError(
            429,
            "TooManyRequests",
            f"Too many requests: this sandbox accepts {lim.writes} changes every {lim.window:g} seconds; "
            "wait a moment and try again.",
        )
    rows = ApiObject.objects.filter(cluster=cluster).exclude(kind__in=("Event", "Lease"))
    if kind in WORKLOADS:
        replicas = (body.get("spec") or {}).get("replicas") or 0
        if isinstance(replicas, int) and replicas > lim.pods:
            raise _forbidden(kind, name, "pods", replicas, rows.filter(kind="Pod").count(), lim.pods)
    if verb != "create":
        return
    if kind == "Node" and (used := rows.filter(kind="Node").count()) >= lim.nodes:
        raise _forbidden(kind, name, "nodes", 1, used, lim.nodes)
    if kind == "Pod" and (used := rows.filter(kind="Pod").count()) >= lim.pods:
        raise _forbidden(kind, name, "pods", 1, used, lim.pods)
    if (used := rows.count()) >= lim.objects:
        raise _forbidden(kind, name, "count/objects", 1, used, lim.objects)


def install() -> None:
    """Register `admit` with the API server's admission chain."""
    from cluster.apiserver import admission

    admission.register(admit)
