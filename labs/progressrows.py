"""The grader's writes of an outcome as plain statements, built once per database vendor.

An outcome is stored while its transaction holds SQLite's one writer, and every queued request
waits for it: the ORM's `filter(...).update(...)` and `bulk_create` compiled their queries each
time (about two thirds of a store's CPU), and a lesson stores an outcome after nearly every
student write. The values still go through each field's own preparation (`get_db_prep_save`,
`pre_save` for `auto_now_add`), so what is stored is what the ORM would store, on either backend.
"""

from __future__ import annotations

from functools import cache

from django.db import connection

from database import plainsql
from labs.models import StepProgress, Student

# An outcome's update of a progress row: what a check changes.
CHECKED_FIELDS = ("checked_revision", "passed_at", "attempts", "unsettled", "last_failure")


def _column(model, name: str) -> str:
    return connection.ops.quote_name(model._meta.get_field(name).column)


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


@cache
def _statements(vendor: str) -> dict[str, str]:
    student, progress = _table(Student), _table(StepProgress)
    step, mark = _column(Student, "current_step"), _column(Student, "action_mark")
    checked = ", ".join(f"{_column(StepProgress, name)} = %s" for name in CHECKED_FIELDS)
    inserted = ", ".join(connection.ops.quote_name(field.column) for field in _inserted_fields())
    placeholders = ", ".join(["%s"] * len(_inserted_fields()))
    return {
        "move": f"UPDATE {student} SET {step} = %s, {mark} = %s "
        f"WHERE {_column(Student, 'id')} = %s AND {step} = %s AND {mark} = %s",
        "check": f"UPDATE {progress} SET {checked} WHERE {_column(StepProgress, 'student')} = %s "
        f"AND {_column(StepProgress, 'step_id')} = %s AND {_column(StepProgress, 'checked_revision')} = %s",
        "create": f"INSERT INTO {progress} ({inserted}) VALUES ({placeholders}) "
        f"RETURNING {connection.ops.quote_name(StepProgress._meta.pk.column)}",
    }


@cache
def _inserted_fields() -> tuple:
    return tuple(field for field in StepProgress._meta.concrete_fields if not field.primary_key)


@cache
def _checked_fields() -> tuple:
    return tuple(StepProgress._meta.get_field(name) for name in CHECKED_FIELDS)


def move_student(student_id: int, read: tuple[int, str], step: int, mark: str) -> bool:
    """Set the student's step and mark if they are still as read; whether they were."""
    with plainsql.cursor() as cursor:
        cursor.execute(_statements(plainsql.vendor())["move"], [step, mark, student_id, *read])
        return cursor.rowcount > 0


def update_checked(row: StepProgress, read_revision: int) -> bool:
    """Write a check's fields of `row` if the stored row is still at `read_revision` (found by
    its student and step, not its key: a chained outcome's row may have just been created)."""
    values = [field.get_db_prep_save(getattr(row, field.attname), connection) for field in _checked_fields()]
    with plainsql.cursor() as cursor:
        cursor.execute(
            _statements(plainsql.vendor())["check"], [*values, row.student_id, row.step_id, read_revision]
        )
        return cursor.rowcount > 0


def insert(row: StepProgress) -> None:
    """Insert a new progress row and give it its key, as `bulk_create` does."""
    values = [field.get_db_prep_save(field.pre_save(row, True), connection) for field in _inserted_fields()]
    with plainsql.cursor() as cursor:
        cursor.execute(_statements(plainsql.vendor())["create"], values)
        row.pk = cursor.fetchone()[0]
    row._state.adding = False
    row._state.db = connection.alias
