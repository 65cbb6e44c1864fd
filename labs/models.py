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


class ClassSession(models.Model):
    """One lesson: a lab, a teacher and the students who joined with the code."""

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
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.code} ({self.lab.slug})"


class Student(models.Model):
    session = models.ForeignKey(ClassSession, on_delete=models.CASCADE, related_name="students")
    display_name = models.CharField(max_length=40)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="lab_student"
    )
    sandbox = models.OneToOneField(Cluster, null=True, on_delete=models.SET_NULL, related_name="lab_student")
    # The lab version this student works on (LabVersion.number): the one they started, until the
    # teacher moves the class to a newer one.
    lab_version = models.PositiveIntegerField(default=1)
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
