"""Student sandboxes: private clusters built from a lab's starting state, through the API server.

Joining creates a throwaway user (the student has no account to remember) that owns the
sandbox, so the API server's access rules isolate it. A reset deletes every object through the
API server and applies the starting state again: the revision keeps growing, so every open
dashboard sees the change as ordinary events, never as a cluster that went back in time.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy

from cluster.apiserver import service as api
from cluster.apiserver.clear import clear as delete_all
from cluster.auth.ratelimit import WRITES
from cluster.models import Cluster
from labs import resume
from labs.catalog import start_position
from labs.labmodel import Lab
from labs.models import ClassSession, StepProgress, Student

SETUP = api.Actor(client="api", detail="lab starting state")
MAX_NAME = 80


class JoinError(ValueError):
    pass


# If the name is the student's own (a lost browser), the way back is their resume link or code.
NAME_TAKEN = _lazy(
    "Someone in this class already uses that name. If it is you, open your resume link or type "
    "your resume code (Come back to a class); otherwise pick another name."
)


def sandbox_name(session: ClassSession) -> str:
    """Random: a sandbox's name reveals nothing (not the class's join code)."""
    return f"lab-{secrets.token_hex(5)}"


def build(cluster: Cluster, lab: Lab) -> None:
    """Apply the lab's starting manifests to an (empty) cluster."""
    if lab.manifests.strip():
        api.apply_manifests(cluster, lab.manifests, SETUP)


def new_sandbox(lab: Lab, owner, name: str) -> Cluster:
    cluster = Cluster.objects.create(name=name, public=False, owner=owner, pace_ms=lab.pace_ms)
    build(cluster, lab)
    return cluster


def join(session: ClassSession, display_name: str, lab: Lab) -> Student:
    """A new student in `session` with their own sandbox. Raises JoinError with a clear reason."""
    display_name = " ".join(display_name.split())
    if not display_name:
        raise JoinError(_("Please enter a display name."))
    if len(display_name) > MAX_NAME:  # refused, not cut: the board shows the name as typed
        raise JoinError(_("A display name has at most %(n)d characters.") % {"n": MAX_NAME})
    if not session.is_open:
        raise JoinError(_("This class session is closed."))
    if session.students.count() >= settings.KUBESIM_MAX_STUDENTS:
        raise JoinError(_("This class is full; ask your teacher."))
    if session.students.filter(display_name=display_name).exists():
        raise JoinError(NAME_TAKEN)
    user_model = get_user_model()
    username = f"student-{secrets.token_hex(6)}"
    try:
        with transaction.atomic():
            user = user_model.objects.create(username=username, first_name=display_name)
            user.set_unusable_password()
            user.save(update_fields=["password"])
            student = Student.objects.create(
                session=session,
                display_name=display_name,
                user=user,
                lab_version=session.lab_version,
                lab_position=start_position(session) if session.plan else 0,
            )
    except IntegrityError:
        raise JoinError(NAME_TAKEN) from None
    student.sandbox = new_sandbox(lab, user, sandbox_name(session))
    student.save(update_fields=["sandbox"])
    resume.issue(student)
    # A check running while the sandbox was cleared may have created it again already.
    StepProgress.objects.get_or_create(student=student, step_id=lab.steps[0].id, defaults={"index": 0})
    return student


def clear(cluster: Cluster) -> None:
    """Delete every object of the cluster through the API server, at once: the lab's objects are
    created again right after."""
    delete_all(cluster, api.Actor(client="api", detail="lab reset"))


def reset(student: Student, lab: Lab) -> None:
    """Back to the lab's starting state and its first step."""
    cluster = student.sandbox
    clear(cluster)
    build(cluster, lab)
    WRITES.reset(cluster.pk)
    student.progress.all().delete()
    student.current_step = 0
    student.action_mark = ""
    student.pushed_hint = {}
    if cluster.pace_ms != lab.pace_ms:  # a course's next lab may have its own pace
        Cluster.objects.filter(pk=cluster.pk).update(pace_ms=lab.pace_ms)
        cluster.pace_ms = lab.pace_ms
    student.save(update_fields=["current_step", "action_mark", "pushed_hint"])
    # A check running while the sandbox was cleared may have created it again already.
    StepProgress.objects.get_or_create(student=student, step_id=lab.steps[0].id, defaults={"index": 0})


def remove(student: Student) -> None:
    """The teacher removes a student: the sandbox (its objects, its control plane: the supervisor
    stops campaigning for a cluster that is gone), the throwaway user, and so the session."""
    cluster = student.sandbox
    user = student.user
    with transaction.atomic():
        student.delete()
        if cluster is not None:
            WRITES.reset(cluster.pk)
            cluster.delete()
        if user is not None and not user.is_staff:
            user.delete()
