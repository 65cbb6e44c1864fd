"""The SQLite backend's cursor converts each statement's placeholders once per distinct text, and its
savepoints keep a few texts (named by depth)."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from cluster.models import Cluster
from database.sqlite import base

pytestmark = pytest.mark.sqlite_only("the SQLite backend's cursor and savepoints")


@pytest.mark.django_db
def test_placeholders_and_literal_percent_signs_run_as_django_runs_them():
    with connection.cursor() as cursor:
        for _ in range(3):
            cursor.execute("SELECT %s || '%%', %s", ["50", 7])
            assert cursor.fetchone() == ("50%", 7)


@pytest.mark.django_db
def test_a_statement_text_is_converted_once_then_reused():
    query = "SELECT %s + %s AS converted_once"
    with connection.cursor() as cursor:
        cursor.execute(query, [1, 2])
        before = base._qmark.cache_info()
        for n in range(5):
            cursor.execute(query, [n, 1])
            assert cursor.fetchone() == (n + 1,)
        after = base._qmark.cache_info()
    assert after.misses == before.misses
    assert after.hits == before.hits + 5


@pytest.mark.django_db
def test_named_parameters_still_use_django_conversion():
    with connection.cursor() as cursor:
        cursor.execute("SELECT %(a)s * %(b)s", {"a": 6, "b": 7})
        assert cursor.fetchone() == (42,)


def _savepoint_texts(queries) -> list[str]:
    return [q["sql"] for q in queries if "SAVEPOINT" in q["sql"]]


@pytest.mark.django_db(transaction=True)
def test_savepoints_are_named_by_depth_and_undo_only_their_own_writes():
    """Each API write of a batch has its own savepoint: a failed one rolls back its own writes
    and commit hooks only, and the texts repeat so SQLite prepares them once."""
    hooks = []
    with CaptureQueriesContext(connection) as queries, transaction.atomic():
        for name in ("kept-1", "failed", "kept-2"):
            try:
                with transaction.atomic():
                    Cluster.objects.create(name=name)
                    transaction.on_commit(lambda name=name: hooks.append(name))
                    with transaction.atomic():  # nested: one level deeper
                        Cluster.objects.filter(name=name).update(pace_ms=1)
                    if name == "failed":
                        raise RuntimeError("this write fails after its rows were written")
            except RuntimeError:
                pass
        assert connection.open_savepoints == []
    assert set(Cluster.objects.values_list("name", flat=True)) >= {"kept-1", "kept-2"}
    assert not Cluster.objects.filter(name="failed").exists()
    assert hooks == ["kept-1", "kept-2"]  # the failed write's hook went with its savepoint
    texts = _savepoint_texts(queries.captured_queries)
    assert set(texts) == {
        'SAVEPOINT "k1"',
        'SAVEPOINT "k2"',
        'RELEASE SAVEPOINT "k2"',
        'RELEASE SAVEPOINT "k1"',
        'ROLLBACK TO SAVEPOINT "k1"',
    }
    assert len(texts) == 3 * 4 + 1


@pytest.mark.django_db(transaction=True)
def test_a_manual_savepoint_released_early_releases_those_inside_it():
    with transaction.atomic():
        outer = transaction.savepoint()
        transaction.savepoint()
        transaction.savepoint_commit(outer)  # SQLite's RELEASE ends the inner one too
        assert connection.open_savepoints == []
        again = transaction.savepoint()
        assert connection.open_savepoints == [(again, "k1")]
        transaction.savepoint_rollback(again)
        transaction.savepoint_commit(again)
