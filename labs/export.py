"""A class's progress and attempts for the teacher's records: JSON and CSV (one row per student
and step). The board's status of each student comes from labs.state, so the file says what the
board said when it was exported."""

from __future__ import annotations

import csv
import io

from django.utils import timezone

from labs.catalog import lab_for, session_lab
from labs.models import ClassSession
from labs.state import board_state

CSV_COLUMNS = (
    "student",
    "status",
    "step",
    "step_id",
    "step_title",
    "step_state",
    "attempts",
    "hints_shown",
    "solution_revealed",
    "started_at",
    "passed_at",
    "seconds",
    "answer",
    "last_failure",
)
# A spreadsheet runs a cell that starts with one of these as a formula: a student's display name
# or answer must stay text (OWASP's "CSV injection").
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _iso(value) -> str | None:
    return value.isoformat() if value else None


def progress_export(session: ClassSession, student_id: int | None = None) -> dict:
    """Every student (or the one), every step of the lab: reached or not, attempts, times, answers."""
    class_lab = session_lab(session)
    board = {row["id"]: row for row in board_state(session, student_id)["students"]}
    students = []
    chosen = session.students.all() if student_id is None else session.students.filter(pk=student_id)
    for student in chosen.prefetch_related("progress", "lab_records").order_by("joined_at"):
        student.session = session
        lab = lab_for(student)
        rows = {p.step_id: p for p in student.progress.all()}
        steps = []
        for index, step in enumerate(lab.steps):
            row = rows.get(step.id)
            if row is not None and row.passed_at is not None:
                state = "passed"
            elif index == student.current_step:
                state = "current"
            else:
                state = "not-reached"
            passed_in = (row.passed_at - row.started_at).total_seconds() if row and row.passed_at else None
            steps.append(
                {
                    "step": index + 1,
                    "id": step.id,
                    "title": step.title.as_dict(),
                    "state": state,
                    "attempts": row.attempts if row else 0,
                    "hints_shown": row.hints_shown if row else 0,
                    "solution_revealed": bool(row and row.solution_revealed),
                    "started_at": _iso(row.started_at) if row else None,
                    "passed_at": _iso(row.passed_at) if row else None,
                    "seconds": int(passed_in) if passed_in is not None else None,
                    "answer": row.answer if row else "",
                    # Only what the student did wrong: the starting state fails every step.
                    "last_failure": (
                        [f.get("message") for f in row.last_failure or []]
                        if row and (row.attempts or row.unsettled) and state == "current"
                        else []
                    ),
                }
            )
        shown = board.get(student.pk, {})
        students.append(
            {
                "id": student.pk,
                "name": student.display_name,
                "lab_version": student.lab_version,
                # A course's class: the student's lab, and the labs they left (labs/courses.py).
                "lab": lab.id,
                "lab_position": student.lab_position if session.plan else None,
                "earlier_labs": [
                    {
                        "position": r.position,
                        "lab": r.lab,
                        "lab_version": r.lab_version,
                        "finished": r.finished,
                        "steps": r.steps,
                    }
                    for r in student.lab_records.all()
                ],
                "joined_at": _iso(student.joined_at),
                "status": shown.get("status"),
                "current_step": min(student.current_step, len(lab.steps)) + 1,
                "done": student.current_step >= len(lab.steps),
                "attempts": sum(s["attempts"] for s in steps),
                "steps": steps,
            }
        )
    return {
        "session": session.code,
        "lab": {
            "id": class_lab.id,
            "title": class_lab.title.as_dict(),
            "steps": len(class_lab.steps),
            "version": session.lab_version,
        },
        "exported_at": timezone.now().isoformat(),
        "students": students,
    }


def _cell(value) -> str:
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


def _in(text: dict | None, language: str) -> str:
    text = text or {}
    return text.get(language) or text.get("en", "")


def progress_csv(export: dict, language: str = "en") -> str:
    """One row per student and step (the columns in CSV_COLUMNS)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for student in export["students"]:
        for step in student["steps"]:
            failures = " | ".join(_in(message, language) for message in step["last_failure"])
            writer.writerow(
                _cell(value)
                for value in (
                    student["name"],
                    student["status"],
                    step["step"],
                    step["id"],
                    _in(step["title"], language),
                    step["state"],
                    step["attempts"],
                    step["hints_shown"],
                    "yes" if step["solution_revealed"] else "no",
                    step["started_at"],
                    step["passed_at"],
                    step["seconds"],
                    step["answer"],
                    failures,
                )
            )
    return out.getvalue()
