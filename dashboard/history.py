"""The web console's history on private clusters: a student's last commands and what they printed.

The teacher reads it beside the student's sandbox (labs' read-only view). Bounded: the newest
KEEP entries per cluster, each command, input and output cut to a few kilobytes, so a student
who loops `kubectl get pods` costs one row's worth of storage. Public clusters keep none.
What the real kubectl sends is not a console command: its effects show in the cluster itself.
"""

from __future__ import annotations

from cluster.models import Cluster
from dashboard.models import ConsoleEntry

KEEP = 30
MAX_COMMAND = 2000
MAX_STDIN = 4000
MAX_OUTPUT = 8000
CUT = "\n… (cut)"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - len(CUT)] + CUT


def record(cluster: Cluster, who: str, command: str, stdin: str, output: str, exit_code: int) -> None:
    """Keep one command of a private cluster's console (and drop the ones beyond the newest KEEP)."""
    if cluster.public or not command.strip():
        return
    entry = ConsoleEntry.objects.create(
        cluster=cluster,
        who=who[:150],
        command=_cut(command, MAX_COMMAND),
        stdin=_cut(stdin, MAX_STDIN),
        output=_cut(output, MAX_OUTPUT),
        exit_code=exit_code,
    )
    older = ConsoleEntry.objects.filter(cluster=cluster, id__lt=entry.id).order_by("-id")
    oldest_kept = list(older.values_list("id", flat=True)[KEEP - 2 : KEEP - 1])
    if oldest_kept:
        ConsoleEntry.objects.filter(cluster=cluster, id__lt=oldest_kept[0]).delete()


def recent(cluster: Cluster, limit: int = KEEP) -> list[dict]:
    """The newest commands first: {command, stdin, output, exit_code, who, at}."""
    rows = ConsoleEntry.objects.filter(cluster=cluster).order_by("-id")[:limit]
    return [
        {
            "command": row.command,
            "stdin": row.stdin,
            "output": row.output,
            "exit_code": row.exit_code,
            "who": row.who,
            "at": row.at.isoformat(),
        }
        for row in rows
    ]
