"""A lookup by a unique key reads its row without first()'s ORDER BY."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cluster.models import Cluster
from database.unique import unique_row

pytestmark = pytest.mark.django_db


def test_the_row_or_none_with_no_order_by():
    Cluster.objects.create(name="unique-a")
    with CaptureQueriesContext(connection) as queries:
        found = unique_row(Cluster.objects.filter(name="unique-a"))
        missing = unique_row(Cluster.objects.filter(name="unique-b"))
    assert found is not None and found.name == "unique-a" and missing is None
    assert [("ORDER BY" in q["sql"], "LIMIT 1" in q["sql"]) for q in queries.captured_queries] == [
        (False, True)
    ] * 2
