"""What a transaction read under the locks it holds, kept until the transaction ends.

A control plane's batch (an RC's pod creations, ten nodes' heartbeats) makes dozens of API
writes in one transaction, and each began by locking the cluster row and reading it, then
checking its fence (cluster/apiserver/fence.py): on PostgreSQL two round trips a write whose
answer could not have changed, since nobody else can change the row while this transaction holds
its lock. What was read is kept here with the connection's list of on-commit callbacks, which
Django replaces when the transaction commits or rolls back, when the connection closes and when a
savepoint rolls back (a row lock taken inside the savepoint is released with it): a new list,
nothing kept. Outside a transaction (autocommit) nothing is kept either.

PostgreSQL only: SQLite's batches keep more (database/sqlite/memo.py; its IMMEDIATE transactions
hold the whole database's write lock from BEGIN), and outside a batch its writer gate already
serves one transaction at a time, with no round trip to save. (A test's transaction on SQLite
wraps the whole test, whose own ORM updates of a row would not be seen.)
"""

from __future__ import annotations

from django.db import DEFAULT_DB_ALIAS, connections

# The backends whose transactions keep what they read (tests add SQLite's to run the rules).
VENDORS = ("postgresql",)


def kept() -> dict | None:
    """This transaction's kept values (a dict to read and fill), or None outside a transaction."""
    connection = connections[DEFAULT_DB_ALIAS]
    if connection.vendor not in VENDORS or not connection.in_atomic_block or connection.needs_rollback:
        return None
    current = getattr(connection, "kubesim_held", None)
    if current is None or current[0] is not connection.run_on_commit:
        current = connection.kubesim_held = (connection.run_on_commit, {})
    return current[1]
