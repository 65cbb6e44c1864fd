"""One row of a model with the rows its foreign keys point to, read by one plain statement.

`Model.objects.select_related(...).filter(...)` builds its join again on every call: ~0.4 ms of
query compiling for a Student with its session, lab and sandbox, more than half of a lab check's
CPU, and the same again for a sandbox token's owner on every student request. The statement and
the columns' converters are built here once per lookup; each call runs the statement and builds
the instances as the ORM would (`Model.from_db`, the backend's converters), with the related ones
cached on their parents as `select_related` leaves them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from django.db import connection
from django.db.models import Model

from database import plainsql


@dataclass(frozen=True)
class _Part:
    model: type[Model]
    alias: str
    attnames: list[str]
    columns: list[str]
    converters: list[tuple[int, list, object]]  # (column index, its converters, its expression)
    parent: int | None  # index of the part it hangs on (None: the row looked up)
    field_name: str  # the foreign key on the parent

    @property
    def pk_index(self) -> int:
        return self.attnames.index(self.model._meta.pk.attname)


class JoinedLookup:
    """`JoinedLookup(Student, "session", "session__lab", "sandbox", where=("id",)).get(pk)` is
    `unique_row(Student.objects.select_related(...).filter(id=pk))`: the row matching the
    `where` columns (a unique key), or None. `all(...)` gives every matching row, in no order;
    a `where` name ending in `__gte` compares with >=."""

    def __init__(self, model: type[Model], *related: str, where: Sequence[str]) -> None:
        self.model = model
        self.related = related
        self.where = tuple(where)

    @cached_property
    def _built(self) -> tuple[str, list[_Part]]:
        quote = connection.ops.quote_name
        parts = [_part(self.model, "t0", None, "")]
        joins = []
        by_path = {"": 0}
        for path in self.related:
            parent_path, _, name = path.rpartition("__")
            parent_index = by_path[parent_path]
            parent = parts[parent_index]
            field = parent.model._meta.get_field(name)
            alias = f"t{len(parts)}"
            target = field.related_model
            kind = "LEFT OUTER JOIN" if field.null else "INNER JOIN"
            joins.append(
                f"{kind} {quote(target._meta.db_table)} {alias} ON {alias}.{quote(target._meta.pk.column)}"
                f" = {parent.alias}.{quote(field.column)}"
            )
            by_path[path] = len(parts)
            parts.append(_part(target, alias, parent_index, name))
        selected = ", ".join(f"{part.alias}.{quote(column)}" for part in parts for column in part.columns)
        conditions = " AND ".join(_condition(self.model, name) for name in self.where)
        table = quote(self.model._meta.db_table)
        sql = f"SELECT {selected} FROM {table} t0 {' '.join(joins)} WHERE {conditions}"
        return sql, parts

    def get(self, *values) -> Model | None:
        sql, parts = self._built
        with plainsql.cursor() as cursor:
            cursor.execute(f"{sql} LIMIT 1", list(values))
            row = cursor.fetchone()
        return None if row is None else _build(parts, row)

    def all(self, *values) -> list[Model]:
        sql, parts = self._built
        with plainsql.cursor() as cursor:
            cursor.execute(sql, list(values))
            found = cursor.fetchall()
        return [_build(parts, row) for row in found]


def _condition(model: type[Model], name: str) -> str:
    name, gte, _ = name.partition("__gte")
    column = connection.ops.quote_name(model._meta.get_field(name).column)
    return f"t0.{column} {'>=' if gte else '='} %s"


def _build(parts: list[_Part], row: Sequence) -> Model:
    """The instances of one row, each related one set on its parent; the first one."""
    objects: list[Model | None] = []
    start = 0
    for part in parts:
        raw = row[start : start + len(part.columns)]
        start += len(part.columns)
        if part.parent is None:
            objects.append(part.model.from_db(connection.alias, part.attnames, _converted(part, raw)))
            continue
        parent = objects[part.parent]
        if parent is None or raw[part.pk_index] is None:
            objects.append(None)  # a null foreign key (the LEFT JOIN found nothing), or below one
            continue
        obj = part.model.from_db(connection.alias, part.attnames, _converted(part, raw))
        setattr(parent, part.field_name, obj)
        objects.append(obj)
    return objects[0]


def _part(model: type[Model], alias: str, parent: int | None, field_name: str) -> _Part:
    fields = model._meta.concrete_fields
    converters = []
    for index, field in enumerate(fields):
        column = field.get_col(alias)
        found = connection.ops.get_db_converters(column) + field.get_db_converters(connection)
        if found:
            converters.append((index, found, column))
    return _Part(
        model,
        alias,
        [field.attname for field in fields],
        [field.column for field in fields],
        converters,
        parent,
        field_name,
    )


def _converted(part: _Part, raw: Sequence) -> list:
    values = list(raw)
    for index, converters, expression in part.converters:
        for convert in converters:
            values[index] = convert(values[index], expression, connection)
    return values
