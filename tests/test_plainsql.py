"""database.plainsql: fixed statements on the backend's cursor behave as on Django's."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, reset_queries, transaction
from django.db.backends.utils import CursorWrapper
from django.db.transaction import TransactionManagementError
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from cluster.models import Cluster
from database import plainsql

pytestmark = pytest.mark.django_db

TABLE = Cluster._meta.db_table


def _insert(name: str) -> None:
    """A new cluster named `name`: made by the ORM as `plain-new`, renamed by a plain statement
    (the name is unique, so a second rename to a taken name fails in the driver)."""
    cluster = Cluster.objects.create(name=f"plain-new-{Cluster.objects.count()}")
    with plainsql.cursor() as cursor:
        cursor.execute(f"UPDATE {TABLE} SET name = %s WHERE id = %s", [name, cluster.pk])


def _names() -> list[str]:
    with plainsql.cursor() as cursor:
        cursor.execute(f"SELECT name FROM {TABLE} WHERE name LIKE %s ORDER BY name", ["plain-%"])
        return [name for (name,) in cursor.fetchall()]


def test_statements_run_on_the_backends_own_cursor_and_see_the_transactions_writes():
    with plainsql.cursor() as cursor:
        assert not isinstance(cursor, CursorWrapper)
    with transaction.atomic():
        _insert("plain-a")
        assert "plain-a" in _names()
    assert Cluster.objects.filter(name="plain-a").exists()


def test_a_drivers_error_is_raised_as_djangos_and_the_transaction_rolls_back():
    _insert("plain-b")
    with pytest.raises(IntegrityError), transaction.atomic():
        _insert("plain-c")
        _insert("plain-b")  # the name is unique
    assert [name for name in _names() if name in ("plain-b", "plain-c")] == ["plain-b"]


def test_a_statement_in_a_transaction_that_must_roll_back_is_refused():
    with transaction.atomic():
        with pytest.raises(IntegrityError):
            _insert("plain-d")
            _insert("plain-d")
        # Django marks the block for rollback only at its end; mark it as atomic(savepoint=False) does.
        transaction.set_rollback(True)
        with pytest.raises(TransactionManagementError):
            _names()


def test_while_queries_are_captured_every_statement_is_seen():
    with CaptureQueriesContext(connection) as captured:
        _insert("plain-e")
        assert "plain-e" in _names()
    statements = [query["sql"] for query in captured.captured_queries]
    assert any(sql.startswith("UPDATE") and "plain-e" in sql for sql in statements)
    assert any(sql.startswith("SELECT name FROM") for sql in statements)


def test_the_vendor_is_the_default_databases():
    assert plainsql.vendor() == connection.vendor


def test_with_debug_on_statements_are_logged_as_djangos_are():
    with override_settings(DEBUG=True):
        reset_queries()
        _names()
        assert any(query["sql"].startswith("SELECT name FROM") for query in connection.queries)
    with plainsql.cursor() as cursor:
        assert not isinstance(cursor, CursorWrapper)  # DEBUG is off again


def test_now_is_bound_as_the_backend_binds_a_datetime_and_reads_back_the_same():
    moment, bound = plainsql.now()
    assert moment.tzinfo is not None
    assert bound == connection.ops.adapt_datetimefield_value(moment)
    cluster = Cluster.objects.create(name="plain-time")
    with plainsql.cursor() as cursor:
        cursor.execute(f"UPDATE {TABLE} SET created_at = %s WHERE id = %s", [bound, cluster.pk])
    cluster.refresh_from_db()
    assert cluster.created_at == moment


@pytest.mark.django_db(transaction=True)
def test_a_kept_connection_is_health_checked_once_per_request_as_djangos_cursor_checks_it(monkeypatch):
    connection.ensure_connection()
    dead = connection.connection
    checks = []
    monkeypatch.setattr(connection, "health_check_enabled", True)
    monkeypatch.setattr(connection, "health_check_done", False)  # a request has just begun
    monkeypatch.setattr(connection, "is_usable", lambda: checks.append(1) or False)
    _names()
    _names()
    assert checks == [1]  # checked once, found unusable, replaced
    assert connection.connection is not dead
