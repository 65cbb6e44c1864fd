"""Who is inside which pod: the exec sessions open now and the recent ones, per cluster.

Stored (ExecSession rows) so that every Daphne process's dashboards see every session: opening
and closing take a `seq` under the cluster row lock and nudge the hubs ("other news"); each hub
sends the changes as `{"type": "exec.session", "session": {...}}` and the snapshot carries
`exec_sessions`. An exec is not a creation: the page shows it beside the pod's 13 steps.
"""

from __future__ import annotations

import threading
from datetime import timedelta

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from cluster.broadcast import nudge
from cluster.models import Cluster, ExecSession

RECENT = 50
# Openings of this process take turns: each one's check of the room sees the ones before it.
_opening = threading.Lock()
HEARTBEAT_SECONDS = 30.0
# An open session not renewed for this long lost its process: it is shown as ended.
STALE_SECONDS = 90.0


def _stamp(row) -> str | None:
    return row.strftime("%Y-%m-%dT%H:%M:%SZ") if row else None


def _stale_before():
    return timezone.now() - timedelta(seconds=STALE_SECONDS)


def as_json(row: ExecSession, cluster_name: str) -> dict:
    closed_at = row.closed_at
    if closed_at is None and row.seen_at < _stale_before():
        closed_at = row.seen_at  # its process ended without closing it
    return {
        "id": row.pk,
        "cluster": cluster_name,
        "namespace": row.namespace,
        "pod": row.pod,
        "container": row.container,
        "command": row.command,
        "user": row.user,
        "client": row.client,
        "tty": row.tty,
        "opened_at": _stamp(row.opened_at),
        "closed_at": _stamp(closed_at),
        "exit_code": row.exit_code,
    }


def _next_seq(cluster: Cluster) -> int:
    """Under the cluster row lock (held by the caller's transaction)."""
    return (ExecSession.objects.filter(cluster=cluster).aggregate(top=Max("seq"))["top"] or 0) + 1


def opened(cluster_name: str, namespace: str, pod: str, container: str, command: list[str], user: str,
           client: str, tty: bool, holder: str = "") -> dict:  # fmt: skip
    """The session's row; ApiError 429 if there is no room for it (checked again here, in turn
    with every other opening of this process, so that a burst cannot all pass the check first)."""
    with _opening, transaction.atomic():
        cluster = Cluster.objects.select_for_update().get(name=cluster_name)
        check_room(cluster, holder)
        row = ExecSession.objects.create(
            cluster=cluster, seq=_next_seq(cluster), namespace=namespace, pod=pod, container=container,
            command=list(command), user=user, client=client, tty=tty, holder=holder,
        )  # fmt: skip
        transaction.on_commit(lambda: nudge.notify(cluster_name, None))
    return as_json(row, cluster_name)


def seen(session: dict) -> None:
    """The serving process still holds the session open."""
    ExecSession.objects.filter(pk=session["id"], closed_at__isnull=True).update(seen_at=timezone.now())


def closed(session: dict, exit_code: int | None) -> None:
    with transaction.atomic():
        cluster = Cluster.objects.select_for_update().filter(name=session["cluster"]).first()
        if cluster is None:  # the cluster (a sandbox) was removed meanwhile, its sessions with it
            return
        ExecSession.objects.filter(pk=session["id"], closed_at__isnull=True).update(
            seq=_next_seq(cluster), closed_at=timezone.now(), exit_code=exit_code
        )
        transaction.on_commit(lambda: nudge.notify(session["cluster"], None))


def latest_seq(cluster: Cluster) -> int:
    return ExecSession.objects.filter(cluster=cluster).aggregate(top=Max("seq"))["top"] or 0


def changed_since(cluster: Cluster, seq: int) -> list[tuple[int, dict]]:
    """(seq, session) for every open or close after `seq`, in order."""
    rows = ExecSession.objects.filter(cluster=cluster, seq__gt=seq).order_by("seq")
    return [(row.seq, as_json(row, cluster.name)) for row in rows]


def listing(cluster_name: str) -> list[dict]:
    """The newest sessions (open or closed), oldest first."""
    rows = ExecSession.objects.filter(cluster__name=cluster_name).order_by("-pk")[:RECENT]
    return [as_json(row, cluster_name) for row in reversed(rows)]


def holder_of(caller) -> str:
    """The key a caller's sessions are counted under (an access.Caller): one per user, one per
    client address for anonymous callers."""
    kind, value = caller.rate_key()
    return f"{kind}:{value}"


def check_room(cluster: Cluster | None = None, holder: str = "") -> None:
    """429 when the installation, the cluster or the caller already has as many sessions open
    as it may: one student's sessions cannot take everyone else's turn."""
    from django.conf import settings

    from cluster.apiserver.errors import ApiError

    if holder and open_count(holder=holder) >= settings.KUBESIM_EXEC_MAX_SESSIONS_PER_USER:
        limit = settings.KUBESIM_EXEC_MAX_SESSIONS_PER_USER
        raise ApiError(
            429, "TooManyRequests", f"you have {limit} exec sessions open; close one and try again", {}
        )
    if cluster is not None and open_count(cluster=cluster) >= settings.KUBESIM_EXEC_MAX_SESSIONS_PER_CLUSTER:
        raise ApiError(
            429, "TooManyRequests", "too many exec sessions are open in this cluster; try again later", {}
        )
    if open_count() >= settings.KUBESIM_EXEC_MAX_SESSIONS:
        # details as NewTooManyRequests has them, without a Retry-After (kubectl would retry)
        raise ApiError(429, "TooManyRequests", "too many exec sessions are open; try again later", {})


def open_count(cluster: Cluster | None = None, holder: str = "") -> int:
    rows = ExecSession.objects.filter(closed_at__isnull=True, seen_at__gte=_stale_before())
    if cluster is not None:
        rows = rows.filter(cluster=cluster)
    if holder:
        rows = rows.filter(holder=holder)
    return rows.count()
