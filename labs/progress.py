"""A student's progress: evaluate the current step when their sandbox changed, and tell listeners.

`evaluate` is called on every revision nudge of the sandbox (labs.grader), when the student
answers a question, and when a page asks for the state. It is idempotent per revision: a step is
checked once per sandbox revision, so many callers cost one evaluation.
"""

from __future__ import annotations

import hashlib
import json

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.utils import timezone

from cluster.apiserver import service as api
from cluster.models import Cluster, FlowTrace
from labs.catalog import lab_of
from labs.checks import Probe, run_step
from labs.labmodel import Lab
from labs.models import StepProgress, Student


def student_group(student_id: int) -> str:
    return f"labs.student.{student_id}"


def session_group(session_id: int) -> str:
    return f"labs.session.{session_id}"


def action_mark(cluster: Cluster) -> str:
    """A fingerprint of what the student did: traces started (their creates, scales, image
    changes), node labels/taints/cordons, and which objects they own. Components' status writes do
    not move it, so a pod going from ContainerCreating to Running is not a new attempt."""
    traces = FlowTrace.objects.filter(cluster=cluster).count()
    nodes = [
        (n["metadata"]["name"], n["metadata"].get("labels"), n.get("spec"))
        for n in api.list_objects(cluster, "Node")[0]
    ]
    pods = sorted(
        p["metadata"]["name"]
        for p in api.list_objects(cluster, "Pod")[0]
        if not p["metadata"].get("ownerReferences")
    )
    text = json.dumps([traces, nodes, pods], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _revision(cluster: Cluster) -> int:
    return Cluster.objects.filter(pk=cluster.pk).values_list("revision", flat=True).first() or 0


def evaluate(student: Student, explicit: bool = False) -> bool:
    """Check the student's current step (and the next ones, as they pass) against the sandbox.

    `explicit` (an answer submitted, "check now") counts a failing result as an attempt even when
    the sandbox did not change. Returns True when anything changed (listeners were notified).
    The checks only read; the write lock is taken briefly, and only when the result is news."""
    return evaluate_watching(student, explicit)[0]


def evaluate_watching(student: Student, explicit: bool = False) -> tuple[bool, frozenset[str] | None]:
    """`evaluate`, and the kinds whose writes can change the current step's result: those its
    checks read (frozenset() once the lab is done; None when unknown, or when they read more than
    objects, such as flow steps)."""
    lab = lab_of(student.session.lab)
    cluster = student.sandbox
    if cluster is None:
        return False, None
    revision = _revision(cluster)
    changed = False
    watched: frozenset[str] | None = None
    while True:
        current = Student.objects.values_list("current_step", flat=True).get(pk=student.pk)
        if current >= len(lab.steps):
            watched = frozenset()
            break
        progress = _progress(student, lab, current)
        if progress.checked_revision >= revision and not explicit:
            break
        step = lab.steps[current]
        probe = Probe(cluster)
        failures = [r.as_dict() for r in run_step(cluster, step, progress.answer, probe) if not r.passed]
        watched = None if probe.kinds is None else frozenset(probe.kinds)
        mark = action_mark(cluster) if failures else ""
        news, passed = _record(student.pk, progress.pk, revision, failures, mark, explicit)
        changed |= news
        explicit = False
        if not passed:
            break
    if changed:
        student.refresh_from_db(fields=["current_step", "action_mark"])
        notify(student)
    return changed, watched


def _progress(student: Student, lab: Lab, index: int) -> StepProgress:
    progress, _ = StepProgress.objects.get_or_create(
        student=student, step_id=lab.steps[index].id, defaults={"index": index}
    )
    return progress


def _record(
    student_id: int, progress_id: int, revision: int, failures: list, mark: str, explicit: bool
) -> tuple[bool, bool]:
    """Store one evaluation unless a concurrent one got there first; (news, passed)."""
    if failures and not explicit and _same_failure(student_id, progress_id, failures, mark):
        return False, False  # nothing to store: no write (SQLite's one writer serves the class)
    with transaction.atomic():
        student = Student.objects.select_for_update().get(pk=student_id)
        progress = StepProgress.objects.filter(pk=progress_id).first()
        if progress is None:
            return False, False  # a reset removed this step's progress while it was being checked
        if progress.checked_revision >= revision and not explicit:
            return False, progress.passed_at is not None
        before = (progress.passed_at, progress.attempts, progress.last_failure)
        progress.checked_revision = revision
        if not failures:
            progress.passed_at = timezone.now()
            progress.last_failure = []
            student.current_step = progress.index + 1
            student.save(update_fields=["current_step"])
        else:
            if explicit or (student.action_mark and mark != student.action_mark):
                progress.attempts += 1
            if mark != student.action_mark:
                student.action_mark = mark
                student.save(update_fields=["action_mark"])
            progress.last_failure = failures
        progress.save()
    return before != (progress.passed_at, progress.attempts, progress.last_failure), not failures


def _same_failure(student_id: int, progress_id: int, failures: list, mark: str) -> bool:
    """The step still fails as last stored, and the student did nothing new since."""
    stored = StepProgress.objects.filter(pk=progress_id).values_list("last_failure", "passed_at").first()
    if stored is None or stored[1] is not None or stored[0] != failures:
        return False
    return Student.objects.filter(pk=student_id, action_mark=mark).exists()


def notify(student: Student) -> None:
    """Tell the student's lab panel and the class's progress board to refresh."""
    layer = get_channel_layer()
    if layer is None:
        return
    async_to_sync(layer.group_send)(student_group(student.pk), {"type": "lab.changed"})
    async_to_sync(layer.group_send)(session_group(student.session_id), {"type": "lab.changed"})


def announce_students(session) -> None:
    """Tell the session's teacher board that its list of students changed."""
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(session_group(session.pk), {"type": "students.changed"})
