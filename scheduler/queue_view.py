"""The scheduling queue as the page sees it: read from each pod's latest attempt.

The queue lives in the scheduler's process; every attempt stores where the pod went afterwards
(its queue, backoff, rejecting plugins and the events that would retry it), so any web process
can answer "why is my pod still Pending, and what would wake it?" from the database.
"""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from cluster.models import Cluster
from scheduler.models import SchedulingAttempt
from scheduler.queue import MAX_UNSCHEDULABLE_SECONDS

RECENT_PENDING = 500
RECENT_ATTEMPTS = 5000


def current(queue: dict, created_at) -> dict:
    """The stored queue facts with the timers counted down to now."""
    if not queue:
        return {}
    elapsed = (timezone.now() - created_at).total_seconds()
    result = dict(queue)
    if "backoffSeconds" in queue:
        result["backoffLeftSeconds"] = round(max(0.0, queue["backoffSeconds"] - elapsed), 1)
    if queue.get("queue") == "unschedulablePods":
        result["flushInSeconds"] = round(max(0.0, MAX_UNSCHEDULABLE_SECONDS - elapsed))
    return result


def for_pod(attempts: list[dict]) -> dict | None:
    """The pod's queue state from its attempts (newest first, as SchedulingAttempt.to_json gives)."""
    if not attempts:
        return None
    latest = attempts[0]
    facts = current(latest.get("queue") or {}, datetime.fromisoformat(latest["createdAt"]))
    return {**facts, "message": latest.get("message", "")} if facts else None


def pending(cluster: Cluster) -> dict[str, dict]:
    """ "namespace/name" → queue state, for the pods whose latest attempt left them unschedulable.

    Read from the newest RECENT_ATTEMPTS attempts only, so every page load costs the same however
    long the cluster has run (a pod waiting longer is retried within 5 minutes anyway).
    """
    recent = (
        SchedulingAttempt.objects.filter(cluster=cluster)
        .order_by("-pk")
        .values_list("pk", "namespace", "pod", "result")[:RECENT_ATTEMPTS]
    )
    latest: dict[tuple[str, str], tuple[int, str]] = {}
    for pk, namespace, pod, result in recent:
        latest.setdefault((namespace, pod), (pk, result))
    waiting = [pk for pk, result in latest.values() if result == SchedulingAttempt.UNSCHEDULABLE]
    rows = SchedulingAttempt.objects.filter(pk__in=waiting[:RECENT_PENDING])
    return {
        f"{row.namespace}/{row.pod}": {**current(row.queue, row.created_at), "message": row.message}
        for row in rows.only("namespace", "pod", "queue", "created_at", "message")
    }
