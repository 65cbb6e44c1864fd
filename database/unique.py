"""The one row a lookup by a unique key finds, without `QuerySet.first()`'s ORDER BY.

`first()` orders an unordered query by its key so that "first" means something; for a lookup by a
unique column the order cannot matter, and building it cost ~130 µs a call (of ~470 µs for a
sandbox token's check, which every student request makes).
"""

from __future__ import annotations

from django.db.models import Model, QuerySet


def unique_row(queryset: QuerySet) -> Model | None:
    """The row of a query that matches one row at most (a unique key), or None."""
    found = list(queryset[:1])
    return found[0] if found else None
