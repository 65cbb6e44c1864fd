"""Who is inside which pod: the exec sessions open now and the recent ones, per cluster.

Stored (ExecSession rows) so that every Daphne process's dashboards see every session: opening
and closing take a `seq` under the cluster row lock and nudge the hubs ("other news"); each hub
sends the changes as `{"type": "exec.session", "session": {...}}` and the snapshot carries
`exec_sessions`. An exec is not a creation: the page shows it beside the pod's 13 steps.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from cluster.broadcast import nudge
from cluster.models import Cluster, ExecSession

RECENT = 50
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
           client: str, tty: bool) -> dict:  # fmt: skip
    with transaction.atomic():
        cluster = Cluster.objects.select_for_update().get(name=cluster_name)
        row = ExecSession.objects.create(
            cluster=cluster, seq=_next_seq(cluster), namespace=namespace, pod=pod, container=container,
            command=list(command), user=user, client=client, tty=tty,
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


def check_room() -> None:
    """429 when this installation already serves as many sessions as it allows."""
    from django.conf import settings

    from cluster.apiserver.errors import ApiError

    if open_count() >= settings.KUBESIM_EXEC_MAX_SESSIONS:
        raise ApiError(429, "TooManyRequests", "too many exec sessions are open; try again later")


def open_count() -> int:
    return ExecSession.objects.filter(closed_at__isnull=True, seen_at__gte=_stale_before()).count()
