"""Going back: an earlier step's instructions and the student's own results on it, for the
student's page. The current lab's steps up to the current one come from its progress rows; a
course's labs the student left come from their records (labs.courses). Steps not reached yet stay
hidden: reading ahead is not going back."""

from __future__ import annotations

from labs.catalog import lab_for, pinned_lab
from labs.labmodel import Lab
from labs.markdown import render
from labs.models import LabRecord, Student


def _both(text) -> dict | None:
    return None if text is None else {"en": str(render(text.en)), "zh": str(render(text.zh))}


def _iso(value) -> str | None:
    return value.isoformat() if value else None


def _from_row(row) -> dict:
    return {
        "attempts": row.attempts,
        "hints_shown": row.hints_shown,
        "solution_revealed": row.solution_revealed,
        "answer": row.answer,
        "started_at": _iso(row.started_at),
        "passed_at": _iso(row.passed_at),
        "last_failure": row.last_failure,
    }


def _step_view(lab: Lab, index: int, result: dict, commands: list | None) -> dict:
    step = lab.steps[index]
    solution = None
    # The solution as the step offered it: once the student passed, or it was revealed/opened.
    if result["passed_at"] or result["solution_revealed"] or result["attempts"] >= step.solution.reveal_after:
        solution = {
            "commands": list(step.solution.commands),
            "apply": step.solution.apply,
            "answer": step.solution.answer,
            "explanation": _both(step.solution.explanation),
        }
    failures = result["last_failure"] if not result["passed_at"] else []
    return {
        "lab": {"id": lab.id, "title": lab.title.as_dict()},
        "index": index,
        "id": step.id,
        "title": step.title.as_dict(),
        "instructions": _both(step.instructions),
        "questions": [check.params["question"].as_dict() for check in step.question_checks],
        "hints": [_both(hint) for hint in step.hints[: result["hints_shown"]]],
        "result": {
            **result,
            "last_failure": [{k: f[k] for k in ("message", "found") if k in f} for f in failures],
        },
        "solution": solution,
        "commands": commands,
    }


def step_review(student: Student, position: int, index: int) -> dict | None:
    """Step `index` of the student's lab at `position` (the current lab: the student's own
    `lab_position`, 0 outside a course), or None when the student has not reached it."""
    if position == student.lab_position:
        lab = lab_for(student)
        if not 0 <= index < len(lab.steps) or index > student.current_step:
            return None
        row = student.progress.filter(step_id=lab.steps[index].id).first()
        if row is None:
            return None
        return _step_view(lab, index, _from_row(row), None)
    record = LabRecord.objects.filter(student=student, position=position).first()
    if record is None:
        return None
    lab = pinned_lab(record.lab, record.lab_version)
    found = next((s for s in record.steps if s["index"] == index and s["id"] == _step_id(lab, index)), None)
    if found is None:
        return None
    return _step_view(lab, index, found, record.commands)


def _step_id(lab: Lab, index: int) -> str | None:
    return lab.steps[index].id if 0 <= index < len(lab.steps) else None
