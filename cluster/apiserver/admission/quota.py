"""Every cluster's quota and rate limits: a ResourceQuota-like policy enforced at admission.

A cluster may hold at most so many objects, nodes and pods, for everyone who writes to it (the
controllers included: an RC's creates beyond the quota fail with FailedCreate events, as
upstream's do). Refusals are worded as upstream's ResourceQuota admission words them: 403
Forbidden `pods "x" is forbidden: exceeded quota: classroom-quota, requested: pods=1, used:
pods=200, limited: pods=200`. Callers other than the teacher are also limited to `writes` requests
per `window` seconds (cluster.auth.access answers 429 with Retry-After).

Classroom defaults come from settings (KUBESIM_QUOTA for shared clusters, KUBESIM_SANDBOX_LIMITS
for students' sandboxes); the teacher overrides them per cluster (`Cluster.quota`). Admission runs
in the write path every writer shares (store.write), on the cluster row as locked for that write
(store.lock reads the overrides under the lock): a change holds for the very next write of every
client, the controllers of a control plane that has run for hours included.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from functools import cache

from django.conf import settings
from django.db import connection

from cluster.apiserver.admission import chain
from cluster.apiserver.errors import ApiError
from cluster.apiserver.kinds import KINDS, kind_info
from cluster.models import ApiObject
from database import plainsql
from database.sqlite import memo

# Events and Leases are many; Endpoints and EndpointSlices mirror Services (a controller writes them).
UNCOUNTED = ("Event", "Lease", "Endpoints", "EndpointSlice")


@dataclass(frozen=True, slots=True)
class Policy:
    name: str = "classroom-quota"
    objects: int = 1000  # every stored object but Events and Leases
    nodes: int = 20
    pods: int = 200
    writes: int = 30  # a caller's writes per `window` seconds (the teacher's are not counted)
    window: float = 10.0

    def to_json(self) -> dict:
        return asdict(self)


SANDBOX = Policy(name="sandbox-limits", objects=300, nodes=20, pods=100)
NUMBERS = tuple(f.name for f in fields(Policy) if f.name != "name")


def is_sandbox(cluster) -> bool:
    return not cluster.public and cluster.owner_id is not None


def policy(cluster) -> Policy:
    """The classroom default for this kind of cluster, with the teacher's overrides."""
    if is_sandbox(cluster):
        base = replace(SANDBOX, **settings.KUBESIM_SANDBOX_LIMITS)
    else:
        base = replace(Policy(), **settings.KUBESIM_QUOTA)
    overrides = {k: v for k, v in (cluster.quota or {}).items() if k in NUMBERS}
    return replace(base, **overrides)


def clean_overrides(data: object) -> dict:
    """A teacher's overrides, checked: known names, positive numbers. Raises ValueError."""
    if not isinstance(data, dict):
        raise ValueError("quota must be an object")
    clean = {}
    for key, value in data.items():
        if key not in NUMBERS:
            raise ValueError(f"unknown quota field {key!r} (known: {', '.join(NUMBERS)})")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise ValueError(f"quota field {key!r} must be a positive number")
        clean[key] = value if key == "window" else int(value)
    return clean


def _forbidden(quota: Policy, kind: str, name: str, resource: str, used: int, limit: int) -> ApiError:
    info = kind_info(kind)
    plural = info.qualified if info else kind.lower()
    details = {"name": name, "kind": info.plural if info else kind.lower()}
    if info and info.group:
        details["group"] = info.group
    return ApiError(
        403,
        "Forbidden",
        f'{plural} "{name}" is forbidden: exceeded quota: {quota.name}, requested: {resource}=1, '
        f"used: {resource}={used}, limited: {resource}={limit}",
        details,
    )


def admit(cluster, verb: str, kind: str, body: dict, actor) -> None:
    """Admission: refuse a create that would take the cluster past its quota."""
    if verb != "create" or kind in UNCOUNTED:
        return
    quota = policy(cluster)
    name = (body.get("metadata") or {}).get("name", "")
    used = counts(cluster)
    if kind in ("Node", "Pod"):
        limit = quota.nodes if kind == "Node" else quota.pods
        if used.get(kind, 0) >= limit:
            raise _forbidden(quota, kind, name, f"{kind.lower()}s", used.get(kind, 0), limit)
    if (total := sum(used.values())) >= quota.objects:
        raise _forbidden(quota, kind, name, "count/objects", total, quota.objects)
    # Admitted: the object is stored next, or the write fails and rolls back what a batch kept.
    used[kind] = used.get(kind, 0) + 1


def counts(cluster) -> dict[str, int]:
    """Stored objects per counted kind, in one query over the (cluster, kind, …) index: Events
    and Leases, the numerous ones, are never scanned. Plain SQL: it runs with every create, and
    compiling the ORM's grouped count cost ~1 ms, ten times running it.

    Inside a batch (database/sqlite/memo.py: an RC's hundreds of creates in one transaction) the
    counts are read once and kept: admit counts each create it lets through, and a deletion
    drops them (store.write)."""
    key = ("objects", cluster.pk, "counts")
    kept = memo.get(key)
    if kept is not None:
        return kept
    counted = tuple(kind for kind in KINDS if kind not in UNCOUNTED)
    statement = _count_statement(plainsql.vendor(), len(counted))
    with plainsql.cursor() as cursor:
        cursor.execute(statement, [cluster.pk, *counted])
        found = dict(cursor.fetchall())
    memo.put(key, found)
    return found


@cache
def _count_statement(vendor: str, kinds: int) -> str:
    table = connection.ops.quote_name(ApiObject._meta.db_table)
    placeholders = ", ".join(["%s"] * kinds)
    return (
        f"SELECT kind, COUNT(*) FROM {table} WHERE cluster_id = %s AND kind IN ({placeholders}) GROUP BY kind"
    )


def install() -> None:
    chain.register(admit)
