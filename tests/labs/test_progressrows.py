"""The grader's plain statements store what the ORM stores, and only over the rows as read."""

from __future__ import annotations

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from labs import progressrows
from labs.models import StepProgress

pytestmark = pytest.mark.django_db
FAILURE = [{"message": {"en": "not yet", "zh": "还没有"}, "found": {"en": 'ü "x"', "zh": "无"}}]
STORED = ("student_id", "step_id", "index", "attempts", "passed_at", "last_failure", "checked_revision")


def _row(student, step_id: str, index: int) -> StepProgress:
    passed = timezone.now().replace(microsecond=123456) - datetime.timedelta(minutes=3)
    return StepProgress(
        student_id=student.pk,
        step_id=step_id,
        index=index,
        attempts=2,
        passed_at=passed,
        last_failure=FAILURE,
        checked_revision=41,
    )


def test_an_inserted_row_reads_back_as_the_orms_does(student_a):
    student = student_a.student
    plain, orm = _row(student, "plain", 7), _row(student, "orm", 8)
    with CaptureQueriesContext(connection) as queries:
        progressrows.insert(plain)
    assert len(queries) == 1 and plain.pk is not None and not plain._state.adding
    StepProgress.objects.bulk_create([orm])
    stored_plain, stored_orm = StepProgress.objects.get(pk=plain.pk), StepProgress.objects.get(pk=orm.pk)
    for name in STORED:
        if name not in ("step_id", "index"):
            assert getattr(stored_plain, name) == getattr(stored_orm, name), name
    assert stored_plain.passed_at == plain.passed_at and stored_plain.last_failure == FAILURE
    assert stored_plain.started_at is not None  # auto_now_add, as the ORM sets it


def test_a_checked_row_is_written_only_at_the_revision_it_was_read_at(student_a):
    student = student_a.student
    row = _row(student, "step", 9)
    progressrows.insert(row)
    row.checked_revision, row.attempts, row.last_failure, row.passed_at = 50, 3, [], None
    assert progressrows.update_checked(row, read_revision=40) is False  # someone wrote it since
    assert StepProgress.objects.get(pk=row.pk).checked_revision == 41
    assert progressrows.update_checked(row, read_revision=41) is True
    stored = StepProgress.objects.get(pk=row.pk)
    assert (stored.checked_revision, stored.attempts, stored.last_failure, stored.passed_at) == (
        50,
        3,
        [],
        None,
    )


def test_a_student_moves_only_from_the_step_and_mark_read(student_a):
    student = student_a.student
    read = (student.current_step, student.action_mark)
    assert progressrows.move_student(student.pk, (read[0] + 1, read[1]), 4, "m") is False
    assert progressrows.move_student(student.pk, read, 4, "m") is True
    student.refresh_from_db()
    assert (student.current_step, student.action_mark) == (4, "m")
    assert progressrows.move_student(student.pk, read, 5, "n") is False
