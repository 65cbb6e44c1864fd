"""A check's outcome is stored only if nobody wrote the student's progress since it was read."""

from __future__ import annotations

import pytest

from labs.models import StepProgress
from labs.outcome import StepResult, store, work_out

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_check_that_lands_after_a_reset_is_dropped_quietly(student_a):
    student = student_a.student
    gone = StepProgress(pk=987654321, student_id=student.pk, step_id="first", index=0)
    read = (student.current_step, student.action_mark)
    outcome = work_out(student, read, {0: gone}, [StepResult(0, "first", [], False)], 1, "")
    assert outcome.changed and outcome.current_step == 1
    assert store(outcome) is False
    student.refresh_from_db()
    assert student.current_step == 0  # the student's move went with the refused row


def test_of_two_checks_that_read_the_same_progress_only_the_first_is_stored(student_a):
    student = student_a.student
    row = student.progress.get(index=0)
    read = (student.current_step, student.action_mark)
    failing = [{"message": {"en": "not yet", "zh": "还没有"}}]
    first = work_out(
        student,
        read,
        {0: StepProgress.objects.get(pk=row.pk)},
        [StepResult(0, row.step_id, [], False)],
        5,
        "",
    )
    second = work_out(
        student,
        read,
        {0: StepProgress.objects.get(pk=row.pk)},
        [StepResult(0, row.step_id, failing, True)],
        5,
        "m",
    )
    assert store(first) is True and store(second) is False
    row.refresh_from_db()
    assert row.passed_at is not None and row.attempts == 0 and row.checked_revision == 5
