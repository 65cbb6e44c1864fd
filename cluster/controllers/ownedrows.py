"""The controllers' reads of owned rows, as plain SQL (SQLite and PostgreSQL).

A replication controller counts its active pods in every batch it writes, and the garbage
collector looks for dangling dependents after every change of every cluster: sixty busy sandboxes
make that dozens of reads a second, and the ORM compiled each one (its JSON key lookup and
subquery) for more CPU than running it. The statements are built once per database. A pod being
deleted is told by its row's `deleting` column (metadata.deletionTimestamp set): counting a
1,000-replica controller's pods by each body's JSON parsed 1,000 bodies per batch of creates.
"""

from __future__ import annotations

from functools import cache

from django.db import connection

from cluster.models import ApiObject
from database import plainsql

TERMINAL_PHASES = ("Succeeded", "Failed")


@cache
def _statements(vendor: str) -> dict[str, str]:
    obj = connection.ops.quote_name(ApiObject._meta.db_table)
    terminal = ", ".join(f"'{phase}'" for phase in TERMINAL_PHASES)
    return {
        "active_pods": (
            f"SELECT COUNT(*) FROM {obj} WHERE cluster_id = %s AND kind = 'Pod' AND owner_uid = %s "
            f"AND phase NOT IN ({terminal}) AND NOT deleting"
        ),
        "dangling": (
            f"SELECT kind, namespace, name FROM {obj} WHERE cluster_id = %s AND owner_uid <> '' "
            f"AND owner_uid NOT IN (SELECT uid FROM {obj} WHERE cluster_id = %s) AND NOT deleting "
            "LIMIT %s"
        ),
    }


def _sql(name: str) -> str:
    return _statements(plainsql.vendor())[name]


def active_pod_count(cluster_id: int, owner_uid: str) -> int:
    """Pods the owner controls that are neither terminal nor terminating."""
    with plainsql.cursor() as cursor:
        cursor.execute(_sql("active_pods"), [cluster_id, owner_uid])
        return cursor.fetchone()[0]


def dangling(cluster_id: int, limit: int) -> list[tuple[str, str, str]]:
    """(kind, namespace, name) of objects whose controller owner uid names no object of the cluster
    and that are not already terminating."""
    with plainsql.cursor() as cursor:
        cursor.execute(_sql("dangling"), [cluster_id, cluster_id, limit])
        return [tuple(found) for found in cursor.fetchall()]
