"""Courses: an ordered list of labs behind one join code, and each student's way through them.

A course's class freezes its plan when it opens (each lab and its version): editing the course or
a lab during the class changes nothing for it. A student keeps one sandbox (its name, kubeconfig
and token) across the course; each lab starts from its own starting state in it, because every
lab's checks are written against that state. When a student leaves a lab, its progress is kept as
a LabRecord (what each step's checks said, the answers, the console commands), readable in the
student's page, and the progress rows start again for the next lab.

The next lab opens at each student's own pace, or when the teacher opens it for everyone (then
every student on an earlier lab moves to it; a lab left unfinished is kept as it was).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils.translation import gettext as _

from dashboard import history
from labs import sandbox
from labs.catalog import lab_for, lab_of, pinned_lab
from labs.labmodel import Lab
from labs.loader import ID_PATTERN, LabValidationError
from labs.models import ClassSession, Course, CourseVersion, LabDefinition, LabRecord, Student
from labs.progress import notify

PACES = ("teacher", "student")
MAX_LABS = 20
MAX_TITLE = 200


@dataclass
class FieldError:
    field: str  # where: "id", "title.en", "labs[2]", "pace"
    text: str

    def as_dict(self) -> dict:
        return {"field": self.field, "text": self.text}


@dataclass
class CourseForm:
    slug: str
    title_en: str
    title_zh: str
    labs: list[str]
    pace: str


def validate(form: CourseForm, course: Course | None = None) -> list[FieldError]:
    """Every problem of the form at once, each with its field."""
    errors = []
    if course is None:
        if not ID_PATTERN.match(form.slug):
            errors.append(
                FieldError("id", _("The id must be lowercase letters, digits and '-' (at most 63)."))
            )
        elif Course.objects.filter(slug=form.slug).exists():
            errors.append(
                FieldError("id", _("Another course already has the id '%(id)s'.") % {"id": form.slug})
            )
    for field, title in (("title.en", form.title_en), ("title.zh", form.title_zh)):
        if not title.strip():
            errors.append(FieldError(field, _("Give the course a title in both languages.")))
        elif len(title) > MAX_TITLE:
            errors.append(FieldError(field, _("A title has at most %(n)d characters.") % {"n": MAX_TITLE}))
    if form.pace not in PACES:
        errors.append(FieldError("pace", _("Choose who opens the next lab: the teacher or each student.")))
    if len(form.labs) < 2:
        errors.append(FieldError("labs", _("A course has at least two labs.")))
    if len(form.labs) > MAX_LABS:
        errors.append(FieldError("labs", _("A course has at most %(n)d labs.") % {"n": MAX_LABS}))
    known = {d.slug: d for d in LabDefinition.objects.filter(slug__in=form.labs)}
    seen = set()
    for index, slug in enumerate(form.labs):
        where = f"labs[{index}]"
        definition = known.get(slug)
        if slug in seen:
            errors.append(FieldError(where, _("The lab '%(id)s' is in the course twice.") % {"id": slug}))
        elif definition is None:
            errors.append(FieldError(where, _("No lab has the id '%(id)s'.") % {"id": slug}))
        elif not definition.published:
            errors.append(FieldError(where, _("The lab '%(id)s' is not published.") % {"id": slug}))
        seen.add(slug)
    return errors


def save(form: CourseForm, course: Course | None, user) -> Course:
    """Store a validated form; a change of an existing course is its next version."""
    with transaction.atomic():
        if course is None:
            course = Course(slug=form.slug, created_by=user, version=1)
            changed = True
        else:
            changed = (course.labs, course.pace) != (form.labs, form.pace)
            course.version += 1 if changed else 0
        course.title_en, course.title_zh = form.title_en.strip(), form.title_zh.strip()
        course.labs, course.pace = list(form.labs), form.pace
        course.save()
        if changed:
            CourseVersion.objects.create(
                course=course, number=course.version, labs=course.labs, pace=course.pace, created_by=user
            )
    return course


class CourseError(ValueError):
    """The course cannot open, or the student cannot go on: the message says why."""


def open_class(course: Course, teacher) -> ClassSession:
    """A class on the course's newest version, each lab's newest version pinned in its plan."""
    definitions = {d.slug: d for d in LabDefinition.objects.filter(slug__in=course.labs)}
    plan = []
    for slug in course.labs:
        definition = definitions.get(slug)
        if definition is None or not definition.published:
            raise CourseError(_("The lab '%(id)s' is not published.") % {"id": slug})
        try:
            lab_of(definition)
        except LabValidationError as exc:
            raise CourseError(str(exc)) from None
        plan.append({"lab": slug, "version": definition.version})
    first = definitions[course.labs[0]]
    return ClassSession.objects.create(
        lab=first,
        lab_version=first.version,
        teacher=teacher,
        course=course,
        course_version=course.version,
        plan=plan,
        pace=course.pace,
        labs_open=1,
    )


def plan_labs(session: ClassSession) -> list[Lab]:
    return [pinned_lab(entry["lab"], entry["version"]) for entry in session.plan]


def is_open(session: ClassSession, position: int) -> bool:
    """May a student who finished the lab before `position` start it?"""
    if not 0 <= position < len(session.plan):
        return False
    return session.pace == "student" or position < session.labs_open


def next_lab(student: Student) -> dict | None:
    """What the student's page offers after the lab: {position, title, open} (None: the last)."""
    session = student.session
    position = student.lab_position + 1
    if not session.plan or position >= len(session.plan):
        return None
    entry = session.plan[position]
    lab = pinned_lab(entry["lab"], entry["version"])
    return {"position": position, "title": lab.title.as_dict(), "open": is_open(session, position)}


def _record(student: Student, lab: Lab) -> LabRecord:
    """Keep the lab the student leaves: its progress rows as they are and its console commands."""
    rows = list(student.progress.order_by("index"))
    started = min((row.started_at for row in rows if row.started_at), default=None)
    cluster = student.sandbox
    commands = history.recent(cluster) if cluster is not None else []
    if started is not None:
        commands = [c for c in commands if c["at"] >= started.isoformat()]
    steps = [
        {
            "id": row.step_id,
            "index": row.index,
            "attempts": row.attempts,
            "hints_shown": row.hints_shown,
            "solution_revealed": row.solution_revealed,
            "answer": row.answer,
            "started_at": row.started_at.isoformat() if row.started_at else None,
            "passed_at": row.passed_at.isoformat() if row.passed_at else None,
            "last_failure": row.last_failure,
        }
        for row in rows
    ]
    entry = student.session.plan[student.lab_position]
    record, _created = LabRecord.objects.update_or_create(
        student=student,
        position=student.lab_position,
        defaults={
            "lab": entry["lab"],
            "lab_version": entry["version"],
            "finished": student.current_step >= len(lab.steps),
            "steps": steps,
            "commands": commands,
            "started_at": started,
        },
    )
    return record


def move_to(student: Student, position: int) -> None:
    """Keep the student's current lab as a record, then start lab `position` in the same sandbox."""
    leaving = lab_for(student)
    _record(student, leaving)
    entry = student.session.plan[position]
    Student.objects.filter(pk=student.pk).update(lab_position=position, lab_version=entry["version"])
    student.lab_position, student.lab_version = position, entry["version"]
    if student.sandbox is not None:
        sandbox.reset(student, pinned_lab(entry["lab"], entry["version"]))
    notify(student)


def go_on(student: Student) -> None:
    """The student's own step to the next lab: only once this one is done and the next is open."""
    session = student.session
    if not session.plan:
        raise CourseError(_("This class has one lab."))
    if student.current_step < len(lab_for(student).steps):
        raise CourseError(_("Finish this lab first."))
    following = next_lab(student)
    if following is None:
        raise CourseError(_("This was the course's last lab."))
    if not following["open"]:
        raise CourseError(_("Your teacher opens the next lab for everyone; wait for it."))
    move_to(student, following["position"])


def open_next(session: ClassSession) -> dict:
    """The teacher's "Open next lab for everyone": the next lab opens and every student on an
    earlier lab moves to it (what they did there is kept as a record)."""
    if not session.plan:
        raise CourseError(_("This class has one lab."))
    if session.labs_open >= len(session.plan):
        raise CourseError(_("Every lab of the course is open already."))
    # Compare and set: two clicks (or two teachers) open one lab, not two.
    opened = ClassSession.objects.filter(pk=session.pk, labs_open=session.labs_open)
    if not opened.update(labs_open=session.labs_open + 1):
        raise CourseError(_("Someone opened the next lab just now."))
    session.labs_open += 1
    position = session.labs_open - 1
    students = list(
        session.students.filter(lab_position__lt=position).select_related("session__lab", "sandbox", "user")
    )
    for student in students:
        student.session = session
        move_to(student, position)
    return {"open": session.labs_open, "position": position, "moved": len(students)}
