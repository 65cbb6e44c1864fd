"""Moving a class to a newer version of its lab, progress mapped by step id.

A student keeps the version they started (labs.catalog.lab_for); the teacher may move the whole
class to the lab's newest version. Each student's passed steps stay passed where the new version
still has a step with that id; their current step becomes the new version's first step they have
not passed; steps the new version no longer has are dropped from their progress and named in the
warning the teacher gets.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction

from labs.catalog import lab_for, version_lab
from labs.labmodel import Lab
from labs.models import ClassSession, StepProgress, Student
from labs.progress import notify


@dataclass
class Move:
    version: int  # the class's version now
    moved: int = 0  # students whose version changed
    # The steps of the versions they left that the new one does not have: {id, title, students}.
    removed: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"version": self.version, "moved": self.moved, "removed": self.removed}


def removed_steps(old: Lab, new: Lab) -> list:
    kept = {step.id for step in new.steps}
    return [step for step in old.steps if step.id not in kept]


def preview(session: ClassSession) -> list[dict]:
    """What moving the class to the newest version would drop: [{id, title, students}]."""
    return _plan(session, session.lab.version)


def _plan(session: ClassSession, number: int) -> list[dict]:
    new = version_lab(session.lab, number)
    removed: dict[str, dict] = {}
    for student in session.students.exclude(lab_version=number):
        own = lab_for(student)
        for step in removed_steps(own, new):
            blank = {"id": step.id, "title": step.title.as_dict(), "students": []}
            entry = removed.setdefault(step.id, blank)
            if own.steps.index(step) == student.current_step:
                entry["students"].append(student.display_name)
    return list(removed.values())


def move_student(student: Student, new: Lab, number: int) -> None:
    """Map the student's progress onto version `number` of the lab (`new`) by step id."""
    index_of = {step.id: index for index, step in enumerate(new.steps)}
    rows = list(student.progress.all())
    passed = {row.step_id for row in rows if row.passed_at is not None}
    current = next((i for i, step in enumerate(new.steps) if step.id not in passed), len(new.steps))
    StepProgress.objects.filter(student=student).exclude(step_id__in=index_of).delete()
    for row in rows:
        if row.step_id in index_of and row.index != index_of[row.step_id]:
            row.index = index_of[row.step_id]
            # The check runs again on the new version's step: its stored result is not the new one's.
            row.checked_revision = -1
            row.save(update_fields=["index", "checked_revision"])
    if current < len(new.steps):
        step_id = new.steps[current].id
        StepProgress.objects.filter(student=student, step_id=step_id).update(checked_revision=-1)
        StepProgress.objects.get_or_create(student=student, step_id=step_id, defaults={"index": current})
    # A new action mark: the grader's stored outcome for the old version must not land on this.
    Student.objects.filter(pk=student.pk).update(lab_version=number, current_step=current, action_mark="")
    student.lab_version, student.current_step, student.action_mark = number, current, ""


def move_class(session: ClassSession) -> Move:
    """Move the class and every student on another version to the lab's newest version."""
    number = session.lab.version
    new = version_lab(session.lab, number)
    move = Move(number, removed=_plan(session, number))
    students = list(session.students.exclude(lab_version=number).select_related("session__lab"))
    with transaction.atomic():
        ClassSession.objects.filter(pk=session.pk).update(lab_version=number)
        session.lab_version = number
        for student in students:
            move_student(student, new, number)
    move.moved = len(students)
    for student in students:
        notify(student)
    return move
