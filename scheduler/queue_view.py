"""The scheduling queue as the page sees it: read from each pod's latest attempt.

The queue lives in the scheduler's process; every attempt stores where the pod went afterwards
(its queue, backoff, rejecting plugins and the events that would retry it), so any web process
can answer "why is my pod still Pending, and what would wake it?" from the database.
"""

from __future__ import annotations

from datetime import datetime

from django.db.models import Max
from django.utils import timezone

from cluster.models import Cluster
from scheduler.models import SchedulingAttempt
from scheduler.queue import MAX_UNSCHEDULABLE_SECONDS

RECENT_PENDING = 500


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
    """ "namespace/name" → queue state, for the pods whose latest attempt left them unschedulable."""
    latest = (
        SchedulingAttempt.objects.filter(cluster=cluster)
        .values("namespace", "pod")
        .annotate(top=Max("pk"))
        .order_by("-top")
        .values_list("top", flat=True)[:RECENT_PENDING]
    )
    rows = SchedulingAttempt.objects.filter(pk__in=list(latest), result=SchedulingAttempt.UNSCHEDULABLE)
    return {
        f"{row.namespace}/{row.pod}": {**current(row.queue, row.created_at), "message": row.message}
        for row in rows.only("namespace", "pod", "queue", "created_at", "message")
    }
