"""The cluster as it was at revision N, read back from the event log (etcd's `get --rev=N`).

An object whose resourceVersion is at most N has not changed since N: its stored body is its state
at N. Every other object (changed or deleted after N) is found in the log: its newest entry at or
below N, or nothing when its first entry after N is its creation. Compaction keeps, as etcd's
does, the newest entry of every key at or below the compacted revision (store._compact), so every
revision from the compacted one to the current one reads back whole; an older one is Gone (410).
"""

from __future__ import annotations

import json

from django.db import connection

from cluster.apiserver import rows
from cluster.apiserver.errors import Gone, bad_request
from cluster.models import ApiObject, WatchEvent

CHUNK = 500


def _q(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _kinds(kinds: tuple[str, ...]) -> str:
    return ", ".join(["%s"] * len(kinds))


def objects_at(cluster_id: int, revision: int, kinds: tuple[str, ...]) -> dict[str, list[dict]]:
    """Every object of `kinds` as it stood at `revision`, by kind, in namespace/name order."""
    current, compacted = rows.revisions(cluster_id)
    if revision > current:
        raise bad_request(f"revision {revision} is in the future (the cluster is at revision {current})")
    if revision < compacted:
        raise Gone(revision, compacted + 1)
    out: dict[tuple, dict] = {}
    obj, event = _q(ApiObject), _q(WatchEvent)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT kind, namespace, name, body FROM {obj} "
            f"WHERE cluster_id = %s AND resource_version <= %s AND kind IN ({_kinds(kinds)})",
            [cluster_id, revision, *kinds],
        )
        for kind, namespace, name, body in cursor.fetchall():
            out[(kind, namespace, name)] = _decode(body)
        # Keys written after N: their state at N is their newest entry at or below N.
        cursor.execute(
            f"SELECT DISTINCT kind, namespace, name FROM {event} "
            f"WHERE cluster_id = %s AND revision > %s AND kind IN ({_kinds(kinds)})",
            [cluster_id, revision, *kinds],
        )
        changed = set(cursor.fetchall())
        if changed:
            cursor.execute(
                f"SELECT kind, namespace, name, MAX(revision) FROM {event} "
                f"WHERE cluster_id = %s AND revision <= %s AND kind IN ({_kinds(kinds)}) "
                "GROUP BY kind, namespace, name",
                [cluster_id, revision, *kinds],
            )
            wanted = [
                rev for kind, namespace, name, rev in cursor.fetchall() if (kind, namespace, name) in changed
            ]
            for start in range(0, len(wanted), CHUNK):
                chunk = wanted[start : start + CHUNK]
                cursor.execute(
                    f"SELECT type, kind, namespace, name, object FROM {event} "
                    f"WHERE cluster_id = %s AND revision IN ({_kinds(chunk)})",
                    [cluster_id, *chunk],
                )
                for type_, kind, namespace, name, body in cursor.fetchall():
                    if type_ != "DELETED":
                        out[(kind, namespace, name)] = _decode(body)
    found: dict[str, list[dict]] = {kind: [] for kind in kinds}
    for key in sorted(out):
        found[key[0]].append(out[key])
    return found


def _decode(body) -> dict:
    return json.loads(body) if isinstance(body, str | bytes) else body
