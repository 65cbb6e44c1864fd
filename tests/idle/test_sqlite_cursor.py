"""The SQLite backend's cursor converts each statement's placeholders once per distinct text."""

from __future__ import annotations

import pytest
from django.db import connection

from kubesim.sqlite import base


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
