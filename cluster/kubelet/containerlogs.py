"""Containers' logs: what their processes print, each line with the time it was written.

A real runtime writes a container's stdout and stderr to a file on its node, one line at a time
with its time (`2026-12-05T08:00:00.123456789Z stdout F hello`), and `kubectl logs` reads that
file through the kubelet. Here the kubelet keeps the lines its container processes print
(`LogWriter`), and writes them to the database at most once a second (and at once when a
container ends, so its log is complete when its status says it terminated): every process that
serves `kubectl logs` reads them from there (`read_lines`).

Each run of a container has its own log, named by its container id: `--previous` reads the last
terminated one. A log over `KUBESIM_CONTAINER_LOG_MAX_BYTES` is rotated as the kubelet's log
manager rotates (`containerLogMaxSize`): the lines so far go to a rotated file that `kubectl
logs` no longer shows, and the log starts again. The logs go with their pod.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction

from cluster.models import Cluster, ContainerLogChunk
from database import plainsql
from k8s import clock

FLUSH_SECONDS = 1.0
# A line without its newline is cut here (the runtime's 16 KiB log line limit).
MAX_LINE = 16 * 1024
TIMESTAMP_LENGTH = len("2026-12-05T08:00:00.123456000Z")


def timestamp() -> str:
    """RFC 3339 with nanoseconds, as the runtime stamps each line (Go's fixed .000000000)."""
    return clock.now().isoformat(timespec="microseconds")[:26] + "000Z"  # strftime's text, sooner


@dataclass(slots=True)
class _Open:
    """One container run's log not yet written: whole lines, and a line still being printed."""

    pod_uid: str
    lines: list[str] = field(default_factory=list)
    partial: str = ""
    done: bool = False  # its process ended: nothing more comes
    fresh: bool = True  # nothing of it written yet: its first lines are written at once


class LogWriter:
    """The kubelet's side: the lines its containers printed, written in batches."""

    def __init__(self) -> None:
        self.open: dict[str, _Open] = {}
        self.stored: dict[str, int] = {}  # bytes in the database per container id (its rotation)
        self.rotate: set[str] = set()
        self.flushed_at = clock.monotonic()
        # Whether any run has lines kept, and whether one must be written at once (its first or
        # its last): known without a look at every open run (a thousand, twenty times a second).
        self.pending = False
        self.urgent = False

    def append(self, pod_uid: str, container_id: str, text: str) -> None:
        entry = self.open.get(container_id)
        if entry is None:
            entry = self.open[container_id] = _Open(pod_uid)
        text = entry.partial + text
        *whole, entry.partial = text.split("\n")
        if len(entry.partial) > MAX_LINE:
            whole.append(entry.partial[:MAX_LINE])
            entry.partial = entry.partial[MAX_LINE:]
        if whole:
            stamp = timestamp()
            entry.lines.extend(f"{stamp} {line}\n" for line in whole)
            self.pending = True
            self.urgent = self.urgent or entry.fresh or entry.done

    def close(self, container_id: str) -> None:
        """The process ended: a last line without its newline is a line too."""
        entry = self.open.get(container_id)
        if entry is not None and entry.partial:
            entry.lines.append(f"{timestamp()} {entry.partial}\n")
            entry.partial = ""
            self.pending = True

    def wait(self) -> float | None:
        """Seconds until the lines kept should be written (None: none are kept)."""
        if not self.pending:
            return None
        if self.urgent:
            return 0.0  # a run's first lines (its start), or its last: at once
        return max(0.0, FLUSH_SECONDS - (clock.monotonic() - self.flushed_at))

    def due(self) -> bool:
        wait = self.wait()
        return wait is not None and wait <= 0

    def flush(self, cluster: Cluster) -> None:
        """Database thread: one transaction for every container's new lines."""
        self.flushed_at = clock.monotonic()
        cap = settings.KUBESIM_CONTAINER_LOG_MAX_BYTES
        self.pending = self.urgent = False
        rows, rotated = [], []
        for container_id, entry in self.open.items():
            if not entry.lines:
                continue
            text = "".join(entry.lines)
            entry.lines, entry.fresh = [], False
            size = self.stored.get(container_id, 0) + len(text)
            if size > cap:
                rotated.append(container_id)  # what was written so far is the rotated file now
                text = _last_lines(text, cap)
                size = len(text)
            self.stored[container_id] = size
            rows.append((cluster.pk, entry.pod_uid, container_id, text))
        if rows:
            with transaction.atomic():
                if rotated:
                    ContainerLogChunk.objects.filter(cluster=cluster, container_id__in=rotated).delete()
                # A plain statement: a thousand looping containers make a thousand rows a second,
                # and the ORM's bulk_create spent more building them than SQLite did writing them.
                with plainsql.cursor() as cursor:
                    cursor.executemany(_insert_sql(), rows)
        # Runs that ended and are written: nothing more will come from them.
        for container_id in [cid for cid, entry in self.open.items() if entry.done and not entry.lines]:
            del self.open[container_id]
            self.stored.pop(container_id, None)

    def end(self, container_id: str) -> None:
        self.close(container_id)
        entry = self.open.get(container_id)
        if entry is not None:
            entry.done = True
            self.urgent = self.urgent or bool(entry.lines)


def _insert_sql() -> str:
    table = ContainerLogChunk._meta.db_table
    return f"INSERT INTO {table} (cluster_id, pod_uid, container_id, text) VALUES (%s, %s, %s, %s)"


def _last_lines(text: str, cap: int) -> str:
    """The whole lines at the end of text that fit in cap bytes."""
    if len(text) <= cap:
        return text
    cut = text[-cap:]
    return cut[cut.find("\n") + 1 :]


def read_lines(cluster: Cluster, container_id: str) -> list[str]:
    """The run's log as stored: lines of `<timestamp> <text>\\n`."""
    return read_after(cluster, container_id, 0)[1]


def read_after(cluster: Cluster, container_id: str, after: int) -> tuple[int, list[str]]:
    """(the last stored chunk's id, the lines of the chunks stored after chunk `after`): a follower
    reads only what is new. Ids only grow (AUTOINCREMENT in SQLite, a sequence in PostgreSQL), so a
    rotation's new file is in chunks after every one the follower read."""
    chunks = ContainerLogChunk.objects.filter(cluster=cluster, container_id=container_id, id__gt=after)
    rows = list(chunks.order_by("id").values_list("id", "text"))
    if not rows:
        return after, []
    return rows[-1][0], "".join(text for _id, text in rows).splitlines(keepends=True)


def forget_pods(cluster: Cluster, pod_uids: list[str]) -> None:
    if pod_uids:
        ContainerLogChunk.objects.filter(cluster=cluster, pod_uid__in=pod_uids).delete()


def forget_runs(cluster: Cluster, container_ids: list[str]) -> None:
    if container_ids:
        ContainerLogChunk.objects.filter(cluster=cluster, container_id__in=container_ids).delete()
