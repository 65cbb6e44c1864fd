"""Scheduling attempts' rows, inserted as plain SQL with the bindings they explain (one statement
per attempt, for its id: the explainer fills its `decision` later, scheduler/explanations.py)."""

from __future__ import annotations

import json

from django.db import connection, transaction
from django.utils import timezone

from cluster.apiserver import rows
from database import plainsql
from scheduler.models import SchedulingAttempt

ATTEMPT_COLUMNS = (
    "cluster_id",
    "queue",
    "namespace",
    "pod",
    "pod_uid",
    "attempt",
    "result",
    "node",
    "message",
    "revision",
    "nodes",
    "trace_id",
)


def insert(batch: list[tuple[SchedulingAttempt, object]]) -> list[tuple[int, str, str, object]]:
    """Insert the attempts with no explanation yet; (id, namespace, pod, decision) of each, for
    the explainer."""
    if not batch:
        return []
    table = connection.ops.quote_name(SchedulingAttempt._meta.db_table)
    columns = ", ".join((*ATTEMPT_COLUMNS, "created_at"))
    placeholders = ", ".join(["%s"] * (len(ATTEMPT_COLUMNS) + 1))
    returning = connection.features.can_return_columns_from_insert
    statement = f"INSERT INTO {table} ({columns}) VALUES ({placeholders})"
    statement += " RETURNING id" if returning else ""
    now = timezone.now()
    created = connection.ops.adapt_datetimefield_value(now)
    saved = []
    with transaction.atomic(), plainsql.cursor() as cursor:
        for attempt, decision in batch:
            attempt.created_at = now
            values = [getattr(attempt, c) for c in ATTEMPT_COLUMNS]
            values[1] = rows.json_param(json.dumps(attempt.queue, ensure_ascii=False))
            cursor.execute(statement, [*values, created])
            attempt.pk = cursor.fetchone()[0] if returning else cursor.lastrowid
            saved.append((attempt.pk, attempt.namespace, attempt.pod, decision))
    return saved
