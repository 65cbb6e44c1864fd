"""Labs in the database: lab files, class sessions, students and their progress per step.

A student has no account of their own making: joining with the code creates a throwaway Django
user that owns the student's sandbox Cluster (public=False), so the API server's access rules
(owner or staff) isolate sandboxes everywhere — UI, REST and websocket — with no special case.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models

from cluster.models import Cluster

# No 0/O, 1/I/L: a code read aloud or from a projector is typed right the first time.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6


def new_join_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


class LabDefinition(models.Model):
    """A lab file as the instructor wrote it; parsed by labs.loader when used."""

    slug = models.SlugField(max_length=63, unique=True)
    title_en = models.CharField(max_length=200)
    title_zh = models.CharField(max_length=200)
    source = models.TextField()
    published = models.BooleanField(default=False)
    bundled = models.BooleanField(default=False, help_text="Loaded from labs/bundled/.")
    # The newest version's number: every saved change of the text is a new version (LabVersion),
    # and a class keeps the version it started with (labs/versions.py).
    version = models.PositiveIntegerField(default=1)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug


class LabVersion(models.Model):
    """One saved text of a lab. Never changed once stored: students who started it keep it."""

    definition = models.ForeignKey(LabDefinition, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    source = models.TextField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["definition", "number"]
        constraints = [models.UniqueConstraint(fields=["definition", "number"], name="lab_version_unique")]

    def __str__(self) -> str:
        return f"{self.definition.slug} v{self.number}"


class Course(models.Model):
    """An ordered list of labs behind one join code (labs/courses.py). Every saved change is its
    next version (CourseVersion); a class keeps the plan it opened with."""

    PACES = [("teacher", "The teacher opens the next lab"), ("student", "Each student's own pace")]

    slug = models.SlugField(max_length=63, unique=True)
    title_en = models.CharField(max_length=200)
    title_zh = models.CharField(max_length=200)
    # The newest version's labs and pace (CourseVersion keeps every saved one).
    labs = models.JSONField(default=list)  # [lab slug, ...] in order
    pace = models.CharField(max_length=10, choices=PACES, default="teacher")
    version = models.PositiveIntegerField(default=1)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug


class CourseVersion(models.Model):
    """One saved course: its labs in order and its pace. Never changed once stored."""

    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    labs = models.JSONField(default=list)
    pace = models.CharField(max_length=10)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["course", "number"]
        constraints = [models.UniqueConstraint(fields=["course", "number"], name="course_version_unique")]


class ClassSession(models.Model):
    """One lesson: a lab (or a course of labs), a teacher and the students who joined with the code."""

    code = models.CharField(max_length=12, unique=True, default=new_join_code)
    lab = models.ForeignKey(LabDefinition, on_delete=models.PROTECT, related_name="sessions")
    teacher = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="lab_sessions"
    )
    is_open = models.BooleanField(default=True)
    # The lab version new students get (LabVersion.number); the teacher may move the class on.
    lab_version = models.PositiveIntegerField(default=1)
    # A hint the teacher pushed to the whole class: {"en": .., "zh": .., "at": iso}.
    class_hint = models.JSONField(default=dict, blank=True)
    # The teacher's "stuck" thresholds for this class ({"attempts": N, "minutes": M}); the lab's
    # (labs.labmodel.Lab.stuck) where a key is absent.
    stuck = models.JSONField(default=dict, blank=True)
    # A course's class (labs/courses.py): the course version it opened with, its plan frozen then
    # ([{"lab": slug, "version": N}], each lab's version pinned), the pace, and how many of its
    # labs the teacher has opened (teacher pace). `lab` is then the plan's first lab.
    course = models.ForeignKey(
        Course, null=True, blank=True, on_delete=models.PROTECT, related_name="sessions"
    )
    course_version = models.PositiveIntegerField(default=0)
    plan = models.JSONField(default=list, blank=True)
    pace = models.CharField(max_length=10, blank=True)
    labs_open = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.code} ({self.lab.slug})"


class Student(models.Model):
    session = models.ForeignKey(ClassSession, on_delete=models.CASCADE, related_name="students")
    display_name = models.CharField(max_length=80)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="lab_student"
    )
    sandbox = models.OneToOneField(Cluster, null=True, on_delete=models.SET_NULL, related_name="lab_student")
    # The lab version this student works on (LabVersion.number): the one they started, until the
    # teacher moves the class to a newer one.
    lab_version = models.PositiveIntegerField(default=1)
    # In a course's class: the student's lab, an index into the class's plan.
    lab_position = models.PositiveIntegerField(default=0)
    current_step = models.PositiveIntegerField(default=0)  # index into the lab's steps; len(steps) = done
    # What the student last did, as seen in the sandbox (traces started, node labels/taints):
    # a failing check counts as a new attempt only when this changed.
    action_mark = models.CharField(max_length=64, blank=True)
    # A hint the teacher pushed to this student: {"en": .., "zh": .., "at": iso}.
    pushed_hint = models.JSONField(default=dict, blank=True)
    # The way back in from any browser (labs/resume.py): the resume link's secret, and a short code
    # typed with the class code. The teacher may issue new ones (the old ones stop working).
    resume_token = models.CharField(max_length=64, unique=True, null=True, blank=True)
    resume_code = models.CharField(max_length=16, blank=True)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["joined_at"]
        constraints = [
            models.UniqueConstraint(fields=["session", "display_name"], name="student_unique_name_in_session")
        ]

    def __str__(self) -> str:
        return self.display_name


class StepProgress(models.Model):
    student = models.ForeignKey(Student, on_delete=models.CASCADE, related_name="progress")
    step_id = models.CharField(max_length=63)
    index = models.PositiveIntegerField()
    # Student actions the step's checks judged, once the sandbox settled, that did not pass it.
    attempts = models.PositiveIntegerField(default=0)
    # The student acted and the step still fails, but the sandbox has not settled yet (pods may
    # still be starting): judged when it settles; an action that passes the step never counts.
    unsettled = models.BooleanField(default=False)
    started_at = models.DateTimeField(auto_now_add=True)
    passed_at = models.DateTimeField(null=True, blank=True)
    # The failing checks of the last evaluation: [{"message": {en, zh}, "found": {en, zh}}].
    last_failure = models.JSONField(default=list, blank=True)
    checked_revision = models.BigIntegerField(default=-1)
    hints_shown = models.PositiveIntegerField(default=0)
    solution_revealed = models.BooleanField(default=False)  # by the instructor
    answer = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["student", "index"]
        constraints = [models.UniqueConstraint(fields=["student", "step_id"], name="progress_unique_step")]


class LabRecord(models.Model):
    """A course's lab the student left (finished, or moved on by the teacher): what each step's
    checks said, the answers and the console commands of that lab, kept readable when the
    sandbox goes on to the next lab and its progress rows start again."""

    student = models.ForeignKey(Student, on_delete=models.CASCADE, related_name="lab_records")
    position = models.PositiveIntegerField()
    lab = models.CharField(max_length=63)
    lab_version = models.PositiveIntegerField()
    finished = models.BooleanField(default=False)  # every step passed
    # [{"id", "index", "attempts", "hints_shown", "solution_revealed", "answer", "started_at",
    #   "passed_at", "last_failure"}], the StepProgress rows as they were.
    steps = models.JSONField(default=list)
    commands = models.JSONField(default=list)  # the console's commands during the lab, newest first
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["student", "position"]
        constraints = [models.UniqueConstraint(fields=["student", "position"], name="lab_record_unique")]
