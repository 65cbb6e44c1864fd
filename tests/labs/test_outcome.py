"""A check's outcome is stored only if nobody wrote the student's progress since it was read; one
worked out from an outcome not stored yet is stored after it, and loses with it."""

from __future__ import annotations

import pytest

from labs.models import StepProgress, Student
from labs.outcome import StepResult, store, work_out

pytestmark = pytest.mark.django_db(transaction=True)
FAILING = [{"message": {"en": "not yet", "zh": "还没有"}}]


def _start(student) -> tuple[StepProgress, tuple[int, str]]:
    """The student's first progress row, and their step and mark as read."""
    return student.progress.get(index=0), (student.current_step, student.action_mark)


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
    row, read = _start(student)
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
        [StepResult(0, row.step_id, FAILING, True)],
        5,
        "m",
    )
    assert store(first) is True and store(second) is False
    row.refresh_from_db()
    assert row.passed_at is not None and row.attempts == 0 and row.checked_revision == 5


def test_an_outcome_worked_out_from_a_pending_one_is_stored_after_it_and_loses_with_it(student_a):
    student = student_a.student
    row, read = _start(student)
    # Step 0 passes and step 1 (no row yet) fails: the row is created by the store.
    passed_then_failing = [StepResult(0, row.step_id, [], False), StepResult(1, "next", FAILING, False)]
    first = work_out(student, read, {0: row}, passed_then_failing, 5, "m")
    ahead, passes = (first.current_step, first.action_mark), [StepResult(1, "next", [], False)]
    second = work_out(student, ahead, first.rows_after(), passes, 6, "m")
    assert first.row(1).checked_revision == 5 and first.row(1).passed_at is None  # copies were changed
    assert store(first) is True and store(second) is True
    created = StepProgress.objects.get(student=student, step_id="next")
    assert created.passed_at is not None and created.checked_revision == 6
    student.refresh_from_db()
    assert student.current_step == 2

    # When the pending one loses (a reset got there first), the one after it loses too.
    Student.objects.filter(pk=student.pk).update(current_step=0, action_mark="")
    StepProgress.objects.filter(student=student).delete()
    row = StepProgress.objects.create(student=student, step_id=row.step_id, index=0)
    stale = work_out(student, (2, "m"), {0: row}, [StepResult(0, row.step_id, [], False)], 7, "")
    after = work_out(student, (stale.current_step, stale.action_mark), stale.rows_after(), [], 8, "")
    assert store(stale) is False and store(after) is False
    student.refresh_from_db()
    assert student.current_step == 0
