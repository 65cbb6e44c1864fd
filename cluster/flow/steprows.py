"""The recorder's statements as plain SQL (SQLite and PostgreSQL), like cluster/apiserver/rows.py.

A 1,000-replica scale records ~7,000 steps, most inside API writes; compiling the ORM's queries
for each would cost more than running them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache

from django.db import connection

from cluster.models import Cluster, FlowStep, FlowTrace
from database import plainsql
from database.sqlite import memo

STEP_COLUMNS = (
    "trace_id",
    "seq",
    "step",
    "actor",
    "source",
    "target",
    "title_en",
    "title_zh",
    "detail_en",
    "detail_zh",
    "skipped",
    "object_kind",
    "object_namespace",
    "object_name",
    "node",
    "revision",
    "ending",
    "final",
    "created_at",
)


# The trace's facts the hub reads with each step: a trace's first step tells the page what it is
# (its verb, who asked, the traces it follows from), so a trace met on the socket reads as one
# the snapshot carried (cluster/flow/recorder.py message_of).
TRACE_COLUMNS = ("trace_verb", "trace_client", "trace_causes")


@dataclass(slots=True)
class StepRow:
    """A FlowStep row to insert (STEP_COLUMNS), without the ORM's model machinery: a burst
    records ~13,000 and a model instance cost more to build than its row to insert."""

    trace_id: str
    seq: int
    step: int
    actor: str
    source: str
    target: str
    title_en: str
    title_zh: str
    detail_en: str
    detail_zh: str
    skipped: bool = False
    object_kind: str = ""
    object_namespace: str = ""
    object_name: str = ""
    node: str = ""
    revision: int = 0
    ending: str = ""
    final: bool = False
    created_at: datetime | None = None


@cache
def _statements(vendor: str) -> dict[str, str]:
    quote = connection.ops.quote_name
    cluster, trace, step = (quote(m._meta.db_table) for m in (Cluster, FlowTrace, FlowStep))
    lock = " FOR UPDATE OF c" if connection.features.has_select_for_update_of else ""
    columns = ", ".join(quote(c) for c in STEP_COLUMNS)
    placeholders = ", ".join(["%s"] * len(STEP_COLUMNS))
    return {
        # The cluster row lock, the one every API write holds: step ids are handed out in commit
        # order (PostgreSQL assigns them at insert), and seq numbers never collide.
        "lock": (
            f"SELECT c.id, c.revision, c.compacted_revision, t.kind, t.namespace, t.name FROM {cluster} c "
            f"INNER JOIN {trace} t ON t.cluster_id = c.id WHERE t.id = %s{lock}"
        ),
        "trace": f"SELECT kind, namespace, name FROM {trace} WHERE id = %s",
        "seq": f"SELECT MAX(seq) FROM {step} WHERE trace_id = %s",
        "insert": f"INSERT INTO {step} ({columns}) VALUES ({placeholders})",
        # The broadcast hub's read: a cluster's steps after the last one it sent, in id order.
        "since": (
            f"SELECT s.id, {', '.join('s.' + quote(c) for c in STEP_COLUMNS)}, t.verb, t.client, t.causes "
            f"FROM {step} s "
            f"INNER JOIN {trace} t ON t.id = s.trace_id WHERE t.cluster_id = %s AND s.id > %s ORDER BY s.id"
        ),
        "counts": (
            "SELECT SUM(CASE WHEN step = 7 THEN 1 ELSE 0 END), "
            "SUM(CASE WHEN step = 13 THEN 1 ELSE 0 END), SUM(CASE WHEN step = 6 THEN 1 ELSE 0 END), "
            "SUM(CASE WHEN step = 0 THEN 1 ELSE 0 END) "
            f"FROM {step} WHERE trace_id = %s AND seq > %s AND seq <= %s AND step IN (0, 6, 7, 13)"
        ),
        # Only the first ending counts: a trace ends once.
        "finish": f"UPDATE {trace} SET finished_at = %s WHERE id = %s AND finished_at IS NULL",
        "state": f"SELECT kind, namespace, name, finished_at FROM {trace} WHERE id = %s",
        "expected": f"SELECT expected_pods FROM {trace} WHERE id = %s",
        "traces": f"SELECT COUNT(*) FROM {trace} WHERE cluster_id = %s",
    }


def _sql(name: str) -> str:
    return _statements(plainsql.vendor())[name]


def _one(name: str, params: list) -> tuple | None:
    with plainsql.cursor() as cursor:
        cursor.execute(_sql(name), params)
        return cursor.fetchone()


def lock_cluster(trace_id: str) -> tuple[int, int, tuple[str, str, str]]:
    """Lock the trace's cluster row; (cluster id, its revision, the trace's (kind, namespace, name)).

    Inside a batch (database/sqlite/memo.py) what was read is kept: the trace's cluster and object
    never change, and the revision is the one the API server's writes keep up to date there."""
    trace = memo.get(("trace", trace_id))
    if trace is not None:
        cluster_id, own = trace
        kept = memo.get(("revision", cluster_id))
        if kept is not None:
            return cluster_id, kept[0], own
    found = _one("lock", [trace_id])
    if found is None:
        raise FlowTrace.DoesNotExist(f"no trace {trace_id!r}")
    cluster_id, revision, compacted, kind, namespace, name = found
    memo.put(("trace", trace_id), (cluster_id, (kind, namespace, name)))
    memo.put(("revision", cluster_id), (revision, compacted))
    return cluster_id, revision, (kind, namespace, name)


def trace_object(trace_id: str) -> tuple[str, str, str]:
    trace = memo.get(("trace", trace_id))
    if trace is not None:
        return trace[1]
    found = _one("trace", [trace_id])
    if found is None:
        raise FlowTrace.DoesNotExist(f"no trace {trace_id!r}")
    return found


def last_seq(trace_id: str) -> int:
    """The trace's last step number; inside a batch, kept and advanced by insert."""
    kept = memo.get(("seq", trace_id))
    if kept is not None:
        return kept
    seq = (_one("seq", [trace_id]) or (None,))[0] or 0
    memo.put(("seq", trace_id), seq)
    return seq


def since(cluster_id: int, step_id: int) -> list[dict]:
    """The cluster's steps with ids above `step_id`, oldest first, as dicts of `id`, STEP_COLUMNS
    and their trace's TRACE_COLUMNS (what the ORM's .values() gives, without its per-row
    conversion machinery: a 1,000-replica burst's hub reads ~13,000 steps)."""
    with plainsql.cursor() as cursor:
        cursor.execute(_sql("since"), [cluster_id, step_id])
        found = cursor.fetchall()
    names = ("id", *STEP_COLUMNS, *TRACE_COLUMNS)
    skipped, final, created = (names.index(c) for c in ("skipped", "final", "created_at"))
    steps = []
    for row in found:
        step = dict(zip(names, row, strict=True))
        step["skipped"], step["final"] = bool(row[skipped]), bool(row[final])
        step["created_at"] = _aware(row[created])
        steps.append(step)
    return steps


def _aware(value: datetime | None) -> datetime | None:
    """A stored created_at as the ORM reads it: SQLite's driver gives naive UTC (Django registers
    its converter for the column's declared type), PostgreSQL's an aware time."""
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value


def insert(steps: list[StepRow]) -> None:
    created, adapted = plainsql.now()
    params = []
    for step in steps:
        step.created_at = created
        params.append([*(getattr(step, c) for c in STEP_COLUMNS[:-1]), adapted])
    plainsql.later_many(_sql("insert"), params, FlowStep._meta.db_table)
    newest: dict[str, int] = {}
    for step in steps:  # numbered from last_seq: each trace's highest is its last now
        newest[step.trace_id] = max(step.seq, newest.get(step.trace_id, 0))
        _count_in(step)
    for trace_id, seq in newest.items():
        memo.put(("seq", trace_id), max(seq, memo.get(("seq", trace_id)) or 0))


def _count_in(step: StepRow) -> None:
    """Inside a batch, a trace's tally counted up to the step before this one takes this one in:
    the batch's next step-13 write of the trace reads no rows (nor sends the waiting ones,
    database/sqlite/deferred.py). A rolled-back savepoint drops what the batch kept."""
    key = ("tally", step.trace_id)
    tally = memo.get(key)
    if tally is None or tally[0] != step.seq - 1:
        return
    _, created, done, decided, gone = tally
    n = step.step
    memo.put(key, (step.seq, created + (n == 7), done + (n == 13), decided + (n == 6), gone + (n == 0)))


# Per trace: (seq counted up to, steps 8, steps 13, steps 6, pods ended early) among committed
# rows. Rows are only ever added, with seq handed out under the cluster lock, so counting the rows
# above the last seq counted keeps this exact without re-reading a 7,000-step trace for each of
# its 1,000 pods.
_tallies: dict[str, tuple[int, int, int, int, int]] = {}
_expected: dict[str, int] = {}
TALLIES_KEPT = 1000


def trace_count(cluster_id: int) -> int:
    """How many flow traces the cluster has (each create, scale or image change starts one)."""
    found = _one("traces", [cluster_id])
    return found[0] if found else 0


def trace_state(trace_id: str) -> tuple[str, str, str, object] | None:
    """(kind, namespace, name, finished_at) of the trace, or None."""
    return _one("state", [trace_id])


def is_complete(trace_id: str, committed_seq: int, new_steps: list[int]) -> bool:
    """A trace is complete when its replicas were decided (step 6, done or skipped) and every pod
    it created (step 7, written with the pod) reached step 13 or ended early (deleted: an ending
    entry, step 0).

    `committed_seq` is the trace's last seq before this transaction's `new_steps`. A pod that
    finishes before its sibling is even created can make the trace complete early; the sibling's
    steps then follow the ending.
    """
    tally = memo.get(("tally", trace_id)) or _tallies.get(trace_id, (0, 0, 0, 0, 0))
    counted, created, done, decided, gone = tally
    if committed_seq > counted:
        more = _one("counts", [trace_id, counted, committed_seq])
        created, done, decided, gone = (
            a + (b or 0) for a, b in zip((created, done, decided, gone), more, strict=True)
        )
        if len(_tallies) >= TALLIES_KEPT:
            _tallies.clear()
        _tallies[trace_id] = tally = (committed_seq, created, done, decided, gone)
    memo.put(("tally", trace_id), tally)  # inside a batch, counted on by insert (_count_in)
    created += new_steps.count(7)
    done += new_steps.count(13)
    decided += new_steps.count(6)
    gone += new_steps.count(0)
    if not decided or done + gone < created or created == 0:
        return False
    expected = _expected.get(trace_id)
    if expected is None:
        expected = (_one("expected", [trace_id]) or (0,))[0] or 0
        if len(_expected) >= TALLIES_KEPT:
            _expected.clear()
        _expected[trace_id] = expected  # written with step 6, before any pod of the trace
    return created >= expected


def mark_finished(trace_id: str) -> bool:
    """Stamp the trace's end; False when it had ended already."""
    _, now = plainsql.now()
    with plainsql.cursor() as cursor:
        cursor.execute(_sql("finish"), [now, trace_id])
        return cursor.rowcount == 1
