"""What a control plane's batch transaction has read under SQLite's write lock, kept until it ends.

A batch (an RC's pod creations, the scheduler's bindings, the kubelets' status reports) runs
dozens of API writes in one transaction, and each write re-read the same few values: the
cluster's revision, the trace's last step number, its object counts for the quota. SQLite's
IMMEDIATE transaction holds the database's write lock from BEGIN, so only this transaction can
change them, and the writes that do (store.write, the step recorder) update what is kept here.

Inside `batch()` the first read of each value is kept; the backend (database/sqlite/base.py) drops
everything kept when the transaction commits or rolls back, or a savepoint rolls back (a failed
write inside the batch undid its changes). Outside `batch()`, and on PostgreSQL, whose row locks
do not keep other processes from these values in the same way, nothing is kept here and every call
reads the database, as before; on PostgreSQL a transaction keeps what it read of the cluster row
it locked, and a few reads under that lock, in database/held.py.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Hashable, Iterator

from django.db import DEFAULT_DB_ALIAS, connections

# This thread's batch: (its connection, what is kept). Looking the connection up through Django's
# `connections` costs ~3 µs, and a batch's writes ask for kept values a dozen times each.
_local = threading.local()


def _kept() -> dict | None:
    current = getattr(_local, "batch", None)
    if current is None:
        return None
    connection, kept = current
    return kept if connection.in_atomic_block else None


@contextlib.contextmanager
def batch() -> Iterator[None]:
    """Keep what the transactions inside read under the lock (nested: the outer batch's)."""
    connection = connections[DEFAULT_DB_ALIAS]
    if not hasattr(connection, "memo") or connection.memo is not None:
        yield
        return
    connection.memo = {}
    _local.batch = (connection, connection.memo)
    try:
        yield
    finally:
        connection.memo = None
        _local.batch = None


def get(key: Hashable):
    kept = _kept()
    return None if kept is None else kept.get(key)


def put(key: Hashable, value) -> None:
    kept = _kept()
    if kept is not None:
        kept[key] = value


def drop(key: Hashable) -> None:
    kept = _kept()
    if kept:
        kept.pop(key, None)


def forget(prefix: tuple) -> None:
    """Drop every value whose key starts with `prefix`."""
    kept = _kept()
    if kept:
        for key in [key for key in kept if key[: len(prefix)] == prefix]:
            del kept[key]
