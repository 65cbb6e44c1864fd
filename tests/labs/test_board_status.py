"""The board's status per student (not started / working / stuck / done), the stuck rule (the
lab's `stuck`, the teacher's setting for a class) and failures shown only once a student acted."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from labs.loader import load_lab
from labs.models import StepProgress
from labs.selftest import forget
from labs.state import board_state
from tests.labs.test_loader import GOOD

pytestmark = pytest.mark.django_db(transaction=True)


def _row(board: dict, name: str) -> dict:
    return next(row for row in board["students"] if row["name"] == name)


def _progress(student, **fields) -> StepProgress:
    row, _ = StepProgress.objects.get_or_create(
        student=student,
        step_id="pending-pod",
        defaults={"index": 0, "last_failure": [{"message": {"en": "x"}}]},
    )
    fields.setdefault("last_failure", [{"message": {"en": "x"}}])
    for key, value in fields.items():
        setattr(row, key, value)
    row.save()
    return row


def test_each_student_is_not_started_working_stuck_or_done(session, student_a, student_b):
    alice, bob = student_a.student, student_b.student
    _progress(alice)  # the starting state fails the step: that is not a wrong answer
    board = board_state(session)
    assert _row(board, "Alice")["status"] == "not-started"
    assert _row(board, "Alice")["last_failure"] is None
    _progress(alice, unsettled=True)
    assert _row(board_state(session), "Alice")["status"] == "working"
    _progress(alice, unsettled=False, attempts=3)
    row = _row(board_state(session), "Alice")
    assert (row["status"], row["attempts"], row["last_failure"]) == ("stuck", 3, {"en": "x"})
    _progress(bob, started_at=StepProgress.objects.get(student=bob).started_at - timedelta(minutes=6))
    assert _row(board_state(session), "Bob")["status"] == "stuck"  # 5 minutes without progress
    bob.current_step = 99
    bob.save()
    assert _row(board_state(session), "Bob")["status"] == "done"
    forget(alice.sandbox)
    forget(bob.sandbox)


def test_the_teacher_sets_the_stuck_rule_for_the_class(teacher, session, student_a):
    alice = student_a.student
    _progress(alice, attempts=3)
    board = board_state(session)
    assert board["stuck"] == {"attempts": 3, "minutes": 5, "lab": {"attempts": 3, "minutes": 5}}
    url = f"/labs/manage/sessions/{session.code}/stuck"
    response = teacher.post(url, json.dumps({"attempts": 5, "minutes": 20}), content_type="application/json")
    assert response.json() == {"stuck": {"attempts": 5, "minutes": 20}}
    board = board_state(session.__class__.objects.get(pk=session.pk))
    assert board["stuck"]["attempts"] == 5 and _row(board, "Alice")["status"] == "working"
    bad = teacher.post(url, json.dumps({"attempts": 0}), content_type="application/json")
    assert bad.status_code == 400
    assert student_a.post(url, "{}", content_type="application/json").status_code == 302  # staff only
    forget(alice.sandbox)


def test_a_lab_file_sets_its_stuck_rule():
    lab = load_lab(GOOD.replace("minutes: 10\n", "minutes: 10\nstuck: {attempts: 2, minutes: 8}\n"))
    assert (lab.stuck_attempts, lab.stuck_minutes) == (2, 8)
    assert (load_lab(GOOD).stuck_attempts, load_lab(GOOD).stuck_minutes) == (3, 5)
    with pytest.raises(ValueError, match="stuck: attempts must be a whole number"):
        load_lab(GOOD.replace("minutes: 10\n", "minutes: 10\nstuck: {attempts: 0}\n"))
