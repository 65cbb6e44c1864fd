"""A student's progress: evaluate the current step when their sandbox changed, and tell listeners.

`check` runs the checks and works out what changed (labs/outcome.py); `save` stores it. The lab
grader (labs.grader) calls them on the sandbox's nudges; `evaluate` (both, then the listeners are
told) is called when the student answers a question and when a page asks for the state. A step is
checked once per sandbox revision, so many callers cost one evaluation.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from dataclasses import dataclass

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from cluster.apiserver.rows import revisions, shared_bodies
from cluster.flow import steprows
from cluster.models import Cluster
from database.joined import JoinedLookup
from database.sqlite import writers
from labs.catalog import lab_for
from labs.checks import Probe, run_step
from labs.models import StepProgress, Student
from labs.outcome import Outcome, StepResult, store, work_out

# A student's progress rows from a step on (one plain statement; see database/joined.py).
_PROGRESS_FROM = JoinedLookup(StepProgress, where=("student", "index__gte"))


def student_group(student_id: int) -> str:
    return f"labs.student.{student_id}"


def session_group(session_id: int) -> str:
    return f"labs.session.{session_id}"


def action_mark(cluster: Cluster) -> str:
    """A fingerprint of what the student did: traces started (their creates, scales, image
    changes), node labels/taints/cordons, and which objects they own. Components' status writes do
    not move it, so a pod going from ContainerCreating to Running is not a new attempt."""
    traces = steprows.trace_count(cluster.pk)
    # Read only: the objects decoded once per stored text (a sandbox's nodes rarely change).
    nodes = [
        (n["metadata"]["name"], n["metadata"].get("labels"), n.get("spec"))
        for n in shared_bodies(cluster.pk, "Node")
    ]
    pods = sorted(
        p["metadata"]["name"]
        for p in shared_bodies(cluster.pk, "Pod")
        if not p["metadata"].get("ownerReferences")
    )
    text = json.dumps([traces, nodes, pods], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _revision(cluster: Cluster) -> int:
    return revisions(cluster.pk)[0]


def evaluate(student: Student, explicit: bool = False, settled: bool = False) -> bool:
    """Check the student's current step (and the next ones, as they pass) against the sandbox.

    `explicit` (an answer submitted, "check now") counts a failing result as an attempt even when
    the sandbox did not change. Returns True when anything changed (listeners were notified).
    The checks only read; the write lock is taken briefly, and only when the result is news.
    `settled`: the sandbox settled since the student's last action (see `check`)."""
    return evaluate_watching(student, explicit, settled)[0]


def evaluate_watching(
    student: Student, explicit: bool = False, settled: bool = False
) -> tuple[bool, frozenset[str] | None]:
    """`evaluate`, and the kinds whose writes can change the current step's result (see
    `Evaluation.watched`)."""
    evaluation = check(student, explicit, settled=settled)
    changed = save(student, evaluation) and evaluation.outcome.changed
    if changed:
        notify(student)
    return changed, evaluation.watched


@dataclass
class Evaluation:
    # What to store (labs.outcome), None when nothing is news: see `save`.
    outcome: Outcome | None
    # The kinds whose writes can change the current step's result: those its checks read
    # (frozenset() once the lab is done; None when unknown, or when they read more than objects,
    # such as flow steps).
    watched: frozenset[str] | None
    # The current step holds a student action not judged yet (see labs.outcome.work_out).
    unsettled: bool = False


def check(
    student: Student,
    explicit: bool = False,
    acted: bool = True,
    fresh: bool = False,
    pending: Outcome | None = None,
    settled: bool = False,
) -> Evaluation:
    """Run the current step's checks (and the next steps' while they pass) and work out what they
    change; nothing is stored yet (`save`), and listeners are not told (callers notify).

    `acted` False says nobody acted on the sandbox since the last check (only its own components
    wrote): what the student did is then as last stored, so it is not fingerprinted again.
    `fresh` says `student` was read just now (its step and mark need no second read).
    `pending` is an earlier outcome of this student's whose store has not ended: the check works
    from what it will store, and its own outcome must be stored after it (labs.grader chains them).
    `settled`: the sandbox has settled since the student's last action, whose failing result is
    now an attempt (labs.outcome.work_out).
    """
    lab = lab_for(student)
    cluster = student.sandbox
    if cluster is None:
        return Evaluation(None, None)
    revision = _revision(cluster)
    if pending is not None:
        read = (pending.current_step, pending.action_mark)
    elif fresh:
        read = (student.current_step, student.action_mark)
    else:
        read = Student.objects.values_list("current_step", "action_mark").get(pk=student.pk)
    rows = {p.index: p for p in _PROGRESS_FROM.all(student.pk, read[0])}
    if pending is not None:
        rows.update(pending.rows_after())
    results: list[StepResult] = []
    watched: frozenset[str] | None = None
    for index in range(read[0], len(lab.steps)):
        step = lab.steps[index]
        progress = _row(rows, index, step.id)
        judge_now = settled and progress is not None and progress.unsettled
        if progress is not None and progress.checked_revision >= revision and not explicit and not judge_now:
            break
        probe = Probe(cluster)
        answer = progress.answer if progress else ""
        failures = [r.as_dict() for r in run_step(cluster, step, answer, probe) if not r.passed]
        watched = None if probe.kinds is None else frozenset(probe.kinds)
        results.append(StepResult(index, step.id, failures, explicit))
        explicit = False
        if failures:
            break
    else:
        watched = frozenset()
    if not results:
        current = _row(rows, read[0], lab.steps[read[0]].id) if read[0] < len(lab.steps) else None
        return Evaluation(None, watched, bool(current and current.unsettled))
    last = results[-1]
    mark = ""
    if last.failures:
        mark = action_mark(cluster) if acted or last.explicit or not read[1] else read[1]
        first = _row(rows, last.index, last.step_id)
        judge_now = settled and first is not None and first.unsettled
        if (
            len(results) == 1
            and not last.explicit
            and not judge_now
            and _same_failure(first, read[1], last.failures, mark)
        ):
            # No write: SQLite's one writer serves the class.
            return Evaluation(None, watched, bool(first and first.unsettled))
    outcome = work_out(student, read, rows, results, revision, mark, settled)
    row = outcome.row(outcome.current_step)
    return Evaluation(outcome, watched, bool(row and row.unsettled))


def _row(rows: dict[int, StepProgress], index: int, step_id: str) -> StepProgress | None:
    """The step's progress row as read (None: not created yet, or left from an edited lab)."""
    row = rows.get(index)
    return row if row is not None and row.step_id == step_id else None


def save(student: Student, evaluation: Evaluation, urgent: bool = True) -> bool:
    """Store the evaluation's outcome (before the control planes' writes when `urgent`: a person
    waits for it); True when it was stored (False: nothing to store, or a concurrent evaluation
    or reset got there first). `student`'s step and mark are brought up to date."""
    outcome = evaluation.outcome
    if outcome is None:
        return False
    with writers.urgent() if urgent else contextlib.nullcontext():
        if not store(outcome):
            return False
    student.current_step, student.action_mark = outcome.current_step, outcome.action_mark
    return True


def _same_failure(progress: StepProgress | None, stored_mark: str, failures: list, mark: str) -> bool:
    """The step still fails as last stored, and the student did nothing new since."""
    return (
        progress is not None
        and progress.passed_at is None
        and progress.last_failure == failures
        and stored_mark == mark
    )


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
