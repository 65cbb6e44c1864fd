"""What a cluster remembers of its past, bounded: flow traces, scheduling attempts, exec sessions
and the marks of graceful deletions.

Each grows with the class's writes (a trace per write, an attempt per scheduling cycle, a row per
exec), so each keeps its newest rows per cluster (`KUBESIM_*_KEEP`, docs/configuration.md) and
the oldest go, in batches, when the garbage collector sweeps (at most every PRUNE_SECONDS). Only
what no one can still write to goes:
- a trace while it runs, or while a live object names it (controllers write its steps later), or
  for TRACE_GRACE after it finished (a late kubelet or scheduler step), stays;
- each pod keeps its newest scheduling attempt (its explanation), whatever its age (the scheduler
  prunes its own attempts: scheduler/retention.py);
- open exec sessions stay;
- a graceful deletion's mark stays while its object exists.
"""

from __future__ import annotations

import time
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from cluster.models import ApiObject, Cluster, ExecSession, FlowTrace, Termination
from cluster.schedulerport import scheduler_app

PRUNE_SECONDS = 30.0
TRACE_GRACE = timedelta(minutes=10)
BATCH = 500  # rows deleted per statement, so a long-unpruned cluster never holds its tables long


def over(count: int, keep: int) -> bool:
    """Prune in batches: only once the table passes its bound by a tenth (most sweeps skip)."""
    return count > keep + max(1, keep // 10)


def delete_batches(queryset, pks: list) -> int:
    deleted = 0
    for start in range(0, len(pks), BATCH):
        deleted += queryset.filter(pk__in=pks[start : start + BATCH]).delete()[0]
    return deleted


def prune_traces(cluster: Cluster) -> int:
    keep = settings.KUBESIM_FLOW_TRACES_KEEP
    traces = FlowTrace.objects.filter(cluster=cluster)
    if not over(traces.count(), keep):
        return 0
    named = ApiObject.objects.filter(cluster=cluster, trace__isnull=False).values("trace_id")
    newest = traces.order_by("-created_at", "-pk").values_list("pk", flat=True)[:keep]
    old = (
        traces.filter(finished_at__lt=timezone.now() - TRACE_GRACE)
        .exclude(pk__in=named)
        .exclude(pk__in=list(newest))
        .values_list("pk", flat=True)
    )
    return delete_batches(FlowTrace.objects, list(old))


def prune_exec_sessions(cluster: Cluster) -> int:
    keep = settings.KUBESIM_EXEC_SESSIONS_KEEP
    closed = ExecSession.objects.filter(cluster=cluster, closed_at__isnull=False)
    if not over(closed.count(), keep):
        return 0
    newest = closed.order_by("-seq").values_list("pk", flat=True)[:keep]
    return delete_batches(
        ExecSession.objects, list(closed.exclude(pk__in=list(newest)).values_list("pk", flat=True))
    )


def prune_terminations(cluster: Cluster) -> int:
    """Marks whose object is gone another way (a forced delete, a crash between the two writes)."""
    live = ApiObject.objects.filter(cluster=cluster).values("uid")
    gone = Termination.objects.filter(cluster=cluster).exclude(uid__in=live).values_list("pk", flat=True)
    return delete_batches(Termination.objects, list(gone))


def prune(cluster: Cluster) -> dict[str, int]:
    """Every bounded table of `cluster` back within its bound; how many rows each lost."""
    return {
        "traces": prune_traces(cluster),
        "scheduling_attempts": scheduler_app().prune(cluster),
        "exec_sessions": prune_exec_sessions(cluster),
        "terminations": prune_terminations(cluster),
    }


class Pruner:
    """One per control plane: prune at most every PRUNE_SECONDS, from the collector's sweeps."""

    def __init__(self) -> None:
        self.pruned_at: float | None = None

    def due(self) -> bool:
        now = time.monotonic()
        if self.pruned_at is not None and now - self.pruned_at < PRUNE_SECONDS:
            return False
        self.pruned_at = now
        return True
