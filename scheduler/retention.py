"""The scheduler's share of a cluster's bounded past (cluster/retention.py): its newest attempts,
KUBESIM_SCHEDULING_ATTEMPTS_KEEP of them, and each pod's newest whatever its age (its explanation)."""

from __future__ import annotations

from django.conf import settings
from django.db.models import Max

from cluster.models import Cluster
from cluster.retention import delete_batches, over
from scheduler.models import SchedulingAttempt


def prune_attempts(cluster: Cluster) -> int:
    keep = settings.KUBESIM_SCHEDULING_ATTEMPTS_KEEP
    attempts = SchedulingAttempt.objects.filter(cluster=cluster)
    if not over(attempts.count(), keep):
        return 0
    latest = attempts.values("namespace", "pod").annotate(top=Max("pk")).values_list("top", flat=True)
    newest = attempts.order_by("-pk").values_list("pk", flat=True)[:keep]
    old = attempts.exclude(pk__in=list(latest)).exclude(pk__in=list(newest)).values_list("pk", flat=True)
    return delete_batches(SchedulingAttempt.objects, list(old))
