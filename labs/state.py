"""What the student's lab panel and the instructor's progress board show, as JSON."""

from __future__ import annotations

from collections import Counter

from django.utils import timezone

from labs import courses, versions
from labs.catalog import lab_for, session_lab, start_position
from labs.labmodel import Lab, Text
from labs.markdown import render
from labs.models import ClassSession, StepProgress, Student


def _both(text: Text | None) -> dict | None:
    return None if text is None else {"en": str(render(text.en)), "zh": str(render(text.zh))}


def _pushed(hint: dict) -> dict | None:
    return (
        {"en": hint.get("en", ""), "zh": hint.get("zh", ""), "at": hint.get("at")} if hint.get("en") else None
    )


def _failures(progress: StepProgress) -> list:
    """The step's failing checks; their covering hints only once the student acted on the step
    (the starting state fails every step: a hint then would give the step away)."""
    acted = progress.attempts > 0 or progress.unsettled
    failures = progress.last_failure or []
    return failures if acted else [{k: v for k, v in f.items() if k != "hint"} for f in failures]


def solution_visible(progress: StepProgress, lab: Lab) -> bool:
    step = lab.steps[progress.index]
    return progress.solution_revealed or progress.attempts >= step.solution.reveal_after


def student_state(student: Student, progress: StepProgress | None = None) -> dict:
    """The lab panel's state; `progress` is the current step's row when the caller has it (labs.grader
    shows a check's outcome before it is stored)."""
    lab = lab_for(student)
    done = student.current_step >= len(lab.steps)
    state = {
        "lab": {"id": lab.id, "title": lab.title.as_dict(), "steps": [s.title.as_dict() for s in lab.steps]},
        "student": student.display_name,
        "sandbox": student.sandbox.name if student.sandbox else None,
        "current": student.current_step,
        "done": done,
        "pushed_hint": _pushed(student.pushed_hint),
        "class_hint": _pushed(student.session.class_hint),
        "step": None,
        "course": course_state(student, done),
    }
    if done:
        return state
    step = lab.steps[student.current_step]
    if progress is None or progress.step_id != step.id:
        progress = student.progress.filter(step_id=step.id).first()
    if progress is None:
        progress = StepProgress(student=student, step_id=step.id, index=student.current_step)
    solution = None
    if solution_visible(progress, lab):
        solution = {
            "commands": list(step.solution.commands),
            "apply": step.solution.apply,
            "answer": step.solution.answer,
            "explanation": _both(step.solution.explanation),
        }
    state["step"] = {
        "id": step.id,
        "title": step.title.as_dict(),
        "instructions": _both(step.instructions),
        "questions": [check.params["question"].as_dict() for check in step.question_checks],
        "answer": progress.answer,
        "attempts": progress.attempts,
        "started_at": progress.started_at.isoformat() if progress.started_at else None,
        "failures": _failures(progress),
        "hints": [_both(hint) for hint in step.hints[: progress.hints_shown]],
        "hints_left": max(0, len(step.hints) - progress.hints_shown),
        "solution": solution,
        "solution_after": max(0, step.solution.reveal_after - progress.attempts),
    }
    return state


def course_state(student: Student, done: bool) -> dict | None:
    """A course's class: its labs (the student's place among them) and what comes after this lab."""
    session = student.session
    if not session.plan:
        return None
    labs = []
    for position, lab in enumerate(courses.plan_labs(session)):
        if position < student.lab_position:
            state = "left"
        elif position == student.lab_position:
            state = "current"
        else:
            state = "open" if courses.is_open(session, position) else "locked"
        labs.append(
            {"title": lab.title.as_dict(), "steps": [s.title.as_dict() for s in lab.steps], "state": state}
        )
    finished = set(student.lab_records.filter(finished=True).values_list("position", flat=True))
    for position in finished:
        if position < len(labs):
            labs[position]["state"] = "finished"
    course = session.course
    return {
        "title": {"en": course.title_en, "zh": course.title_zh} if course else None,
        "pace": session.pace,
        "position": student.lab_position,
        "labs": labs,
        "next": courses.next_lab(student) if done else None,
    }


def stuck_rule(session: ClassSession, lab: Lab) -> dict:
    """When a student counts as stuck in this class: the teacher's setting, else the lab's."""
    chosen = session.stuck if isinstance(session.stuck, dict) else {}
    rule = {"attempts": lab.stuck_attempts, "minutes": lab.stuck_minutes}
    for key in rule:
        value = chosen.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
            rule[key] = value
    return rule


def student_status(done: bool, step: int, current: StepProgress | None, seconds: int, rule: dict) -> str:
    """done; stuck (the rule's wrong attempts on the step, or its minutes without passing it);
    working (acted on the step, or passed one before it); not-started."""
    if done:
        return "done"
    attempts = current.attempts if current else 0
    if attempts >= rule["attempts"] or seconds >= 60 * rule["minutes"]:
        return "stuck"
    acted = current is not None and (attempts > 0 or current.unsettled)
    return "working" if acted or step > 0 else "not-started"


def _layout(session: ClassSession) -> tuple[list[Lab], list[int], list[dict]]:
    """The board's histogram buckets: each lab's steps and its "done" (a course: every lab's, in
    order); the labs, each one's first bucket, and the buckets' labels."""
    labs = courses.plan_labs(session) if session.plan else [session_lab(session)]
    offsets, labels = [], []
    for position, lab in enumerate(labs):
        offsets.append(len(labels))
        prefix = f"L{position + 1} · " if session.plan else ""
        labels.extend(
            {"en": f"{prefix}{i + 1}. {step.title.en}", "zh": f"{prefix}{i + 1}. {step.title.zh}"}
            for i, step in enumerate(lab.steps)
        )
        labels.append({"en": f"{prefix}Done", "zh": f"{prefix}完成"})
    return labs, offsets, labels


def board_state(session: ClassSession, student_id: int | None = None) -> dict:
    """The board: every student's row (or only that student's), the histogram, the rules."""
    labs, offsets, labels = _layout(session)
    lab = labs[start_position(session)] if session.plan else labs[0]  # a course: the newest open lab
    rule = stuck_rule(session, lab)
    now = timezone.now()
    rows = []
    histogram: Counter[int] = Counter()
    students = session.students.select_related("sandbox").prefetch_related("progress")
    if student_id is not None:
        students = students.filter(pk=student_id)
    for student in students:
        student.session = session
        own = lab_for(student)  # the version the student works on (labs/versions.py)
        position = min(student.lab_position, len(labs) - 1) if session.plan else 0
        current = {p.index: p for p in student.progress.all()}.get(student.current_step)
        done = student.current_step >= len(own.steps)
        # The class's steps by id: a student still on an older version counts at the same step.
        class_index = {step.id: index for index, step in enumerate(labs[position].steps)}
        step_at = len(labs[position].steps) if done else class_index.get(own.steps[student.current_step].id)
        bucket = None if step_at is None else offsets[position] + step_at
        if bucket is not None:
            histogram[bucket] += 1
        # A failure is the student's only once they acted on the step: the starting state fails
        # too, and "did nothing" must not read as "did it wrong".
        acted = current is not None and (current.attempts > 0 or current.unsettled)
        failure = (current.last_failure or [{}])[0] if acted else {}
        seconds = int((now - current.started_at).total_seconds()) if current and not done else 0
        rows.append(
            {
                "id": student.pk,
                "name": student.display_name,
                "sandbox": student.sandbox.name if student.sandbox else None,
                "step": student.current_step,
                "steps": len(own.steps),
                "step_title": None if done else own.steps[student.current_step].title.as_dict(),
                "version": student.lab_version,
                # A course's class: the student's lab (its place in the plan) and its title.
                "lab": position if session.plan else None,
                "lab_title": own.title.as_dict() if session.plan else None,
                "bucket": bucket,
                "done": done,
                # A course's later lab counts as progress: "working", not "not started".
                "status": student_status(
                    done, offsets[position] + student.current_step, current, seconds, stuck_rule(session, own)
                ),
                "attempts": current.attempts if current else 0,
                "seconds_on_step": seconds,
                "last_failure": failure.get("message"),
                "solution_revealed": bool(current and current.solution_revealed),
            }
        )
    steps = [step.title.as_dict() for step in lab.steps]
    course = None
    if session.plan:
        course = {
            "title": {"en": session.course.title_en, "zh": session.course.title_zh},
            "pace": session.pace,
            "open": session.labs_open,
            "labs": [
                {"title": one.title.as_dict(), "students": sum(1 for r in rows if r["lab"] == position)}
                for position, one in enumerate(labs)
            ],
        }
    single = not session.plan
    return {
        "code": session.code,
        "lab": {"id": lab.id, "title": lab.title.as_dict(), "steps": steps},
        "course": course,
        # The class's version (new students get it) and the lab's newest (labs/versions.py); a
        # course's class keeps the versions its plan pinned.
        "version": session.lab_version,
        "latest": session.lab.version if single else session.lab_version,
        # What moving the class to the newest version would drop (the teacher is warned first).
        "removed_if_moved": (
            versions.preview(session) if single and session.lab.version != session.lab_version else []
        ),
        "open": session.is_open,
        "stuck": {**rule, "lab": {"attempts": lab.stuck_attempts, "minutes": lab.stuck_minutes}},
        "students": rows,
        "buckets": labels,
        "histogram": [histogram.get(i, 0) for i in range(len(labels))],  # each lab's last bucket: done
        "class_hint": _pushed(session.class_hint),
    }
