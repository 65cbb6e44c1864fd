"""What one check of a student's steps changes, worked out in memory, then stored in one short
transaction.

The rows are read before the transaction and written back only if nobody wrote them in between
(optimistic: the student's step and mark, each row's checked revision), so the transaction holds
SQLite's one writer for a few statements, not for the reads and the Python around them. A check
that lost such a race stores nothing: whoever won told the listeners. A check may also start from
an outcome not stored yet (`Outcome.rows_after`): its own store then comes after that one, and
loses with it.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from django.db import IntegrityError, transaction
from django.utils import timezone

from labs import progressrows
from labs.models import StepProgress, Student


@dataclass
class StepResult:
    index: int
    step_id: str
    failures: list  # [] when the step passed
    explicit: bool  # asked for (an answer, "check now"): a failure is an attempt even unchanged


@dataclass
class Outcome:
    """The student's step, mark and progress rows as they are once the results are stored."""

    student_id: int
    read: tuple[int, str]  # (current step, action mark) as read: the write requires them unchanged
    current_step: int
    action_mark: str
    updated: list[tuple[StepProgress, int]] = field(default_factory=list)  # (row, checked revision read)
    created: list[StepProgress] = field(default_factory=list)
    changed: bool = False  # a pass, an attempt or another failure: the listeners need the new state

    def rows(self) -> list[StepProgress]:
        """The rows as they are once stored, created and updated."""
        return self.created + [row for row, _ in self.updated]

    def row(self, index: int) -> StepProgress | None:
        return next((r for r in self.rows() if r.index == index), None)

    def rows_after(self) -> dict[int, StepProgress]:
        """Copies of the rows as this outcome stores them, by step index: what a check chained
        behind its store reads in place of the database's (labs.progress.check)."""
        return {row.index: copy.copy(row) for row in self.rows()}


def work_out(
    student: Student,
    read: tuple[int, str],
    rows: dict[int, StepProgress],
    results: list[StepResult],
    revision: int,
    mark: str,
    settled: bool = False,
) -> Outcome:
    """Apply `results` (in step order) to copies of the rows read (`rows`, by step index).

    An attempt is a student action the step's checks judged and that did not pass the step. An
    action (the mark moved) that leaves the step failing is judged once the sandbox settled
    (`settled`: nothing but heartbeats written for a while, labs.grader): its pods may still be
    starting, and a correct `kubectl apply` passes the step before that. The action that passed a
    step is no attempt at the next one; an answer (`explicit`) is judged at once."""
    current, stored_mark = read
    outcome = Outcome(student.pk, read, current, stored_mark)
    now = timezone.now()
    passed_one = False
    for result in results:
        row = rows.get(result.index)
        if row is not None and row.step_id == result.step_id:
            outcome.updated.append((row, row.checked_revision))
        else:
            row = StepProgress(
                student_id=student.pk, step_id=result.step_id, index=result.index, started_at=now
            )
            outcome.created.append(row)
        before = (row.passed_at, row.attempts, row.unsettled, row.last_failure)
        row.checked_revision = revision
        if not result.failures:
            row.passed_at = now
            row.last_failure = []
            row.unsettled = False
            outcome.current_step = result.index + 1
            passed_one = True
        else:
            acted = bool(outcome.action_mark) and mark != outcome.action_mark and not passed_one
            if result.explicit:
                row.attempts += 1
                row.unsettled = False
            elif acted:
                row.unsettled = True
            elif settled and row.unsettled:
                row.attempts += 1
                row.unsettled = False
            outcome.action_mark = mark
            row.last_failure = result.failures
        outcome.changed |= before != (row.passed_at, row.attempts, row.unsettled, row.last_failure)
    return outcome


class _Lost(Exception):
    """Somebody wrote the student's progress since it was read."""


def store(outcome: Outcome) -> bool:
    """Write the outcome unless the rows changed since they were read; True when it was written."""
    try:
        with transaction.atomic():
            if not progressrows.move_student(
                outcome.student_id, outcome.read, outcome.current_step, outcome.action_mark
            ):
                raise _Lost
            for row, read_revision in outcome.updated:
                # A reset deletes the row: no update, nothing stored.
                if not progressrows.update_checked(row, read_revision):
                    raise _Lost
            for row in outcome.created:
                progressrows.insert(row)
    except (_Lost, IntegrityError):
        return False
    return True
