"""How a trace ends: an ending entry (step 0) that says who ended it and why.

A trace ends when its object reaches its goal (every pod it created reported by its kubelet,
step 13), is deleted (by a user, a controller or the garbage collector), or fails for good (an
image that cannot be pulled, pods a controller cannot create). A workload's pod deleted before it
started ends its own branch (an ending entry with `final` false); the trace ends when every
branch has. The ending is a FlowStep row (inserted as a steprows.StepRow), so it is stored,
replayed and broadcast in order with the steps (`flow.end`, docs/architecture.md); the trace's
`finished_at` is stamped with it.
"""

from __future__ import annotations

from django.db import transaction

from cluster.broadcast import nudge
from cluster.flow import steprows, texts
from cluster.models import Cluster, FlowStep, FlowTrace

# Who plays each part in an ending (the diagram's actors).
ACTORS = {"kubectl": "kubectl", "web": "kubectl", "upload": "kubectl", "api": "kubectl"}


def ending_row(
    trace_id: str,
    seq: int,
    outcome: str,
    *,
    actor: str,
    by: str,
    detail: tuple[str, str],
    obj: tuple[str, str, str],
    revision: int,
    final: bool = True,
    node: str = "",
) -> steprows.StepRow:
    title_en, title_zh = texts.ending_title(outcome, by)
    return steprows.StepRow(
        trace_id=trace_id,
        seq=seq,
        step=0,
        actor=actor,
        source=by,
        target=obj[0],
        title_en=title_en,
        title_zh=title_zh,
        detail_en=detail[0],
        detail_zh=detail[1],
        skipped=False,
        object_kind=obj[0],
        object_namespace=obj[1],
        object_name=obj[2],
        node=node,
        revision=revision,
        ending=outcome,
        final=final,
    )


def after_status(
    trace_id: str, seq: int, own: tuple[str, str, str], spec, revision: int
) -> steprows.StepRow | None:
    """Called with a step 13 just recorded (seq = its seq): the trace's ending when it is complete."""
    if not steprows.mark_finished(trace_id):
        return None
    kind, namespace, name = own
    failed = spec.outcome == "failed"
    if spec.skipped:
        detail = texts.nothing_to_do(kind, namespace, name, spec.detail_en, spec.detail_zh)
    elif kind == "Pod":
        detail = texts.pod_reported(kind, namespace, name, spec.node, failed)
    else:
        done, gone = _branch_counts(trace_id)
        replaced = _replaced(trace_id)
        if replaced is not None:
            detail = texts.pods_replaced(kind, namespace, name, replaced, spec.obj, spec.node, done + 1)
        else:
            detail = texts.pods_reported(kind, namespace, name, done + 1, gone)
    by = f"kubelet/{spec.node}" if spec.node and not spec.skipped else "controller-manager"
    actor = "kubelet" if spec.node and not spec.skipped else "controller-manager"
    return ending_row(
        trace_id,
        seq,
        "failed" if failed else "completed",
        actor=actor,
        by=by,
        detail=detail,
        obj=own,
        revision=revision,
        node=spec.node,
    )


def _replaced(trace_id: str) -> list[str] | None:
    """The pods a replacement story replaces (None: not a replacement)."""
    found = FlowTrace.objects.filter(pk=trace_id, verb="replace").values_list("causes", flat=True).first()
    if found is None:
        return None
    return list(
        FlowTrace.objects.filter(pk__in=found.split()).order_by("created_at").values_list("name", flat=True)
    )


def _branch_counts(trace_id: str) -> tuple[int, int]:
    """(pods reported at step 13, pods ended early), committed rows only."""
    done = FlowStep.objects.filter(trace_id=trace_id, step=13, skipped=False).count()
    gone = FlowStep.objects.filter(trace_id=trace_id, step=0, final=False).count()
    return done, gone


def object_deleted(
    cluster, trace_id: str, kind: str, namespace: str, name: str, actor, revision: int, reopen: bool = True
) -> None:
    """Inside the delete's transaction (the cluster row is locked): end what the deletion ends.

    The trace's own object ends the trace; a pod the trace created ends its branch, and the trace
    when it was the last one still going. `reopen` False: a finished trace stays as it ended (the
    deletion has a story of its own that tells it).
    """
    state = steprows.trace_state(trace_id)
    if state is None:
        return
    own = state[:3]
    obj = (kind, namespace, name)
    if state[3] is not None and not (obj == own and actor.by and reopen):
        return
    # A controller that deletes a pod after its trace completed (at pace 0 the kubelet can start a
    # pod before the controller that adopts it acts) ends the trace instead: the class sees why the
    # pod it just watched start is gone, and the trace still ends once (the earlier ending stays
    # as an entry, no longer final).
    seq = steprows.last_seq(trace_id)
    by, why = _who_and_why(actor, obj, trace_id)
    who = ACTORS.get(actor.client, actor.client)
    # "New steps" news: the hub reads steps on it, not on the write's new revision.
    transaction.on_commit(lambda: nudge.notify(cluster.name, None))
    if obj == own:
        if not steprows.mark_finished(trace_id):
            FlowStep.objects.filter(trace_id=trace_id, step=0, final=True).update(final=False)
        row = ending_row(
            trace_id, seq + 1, "deleted", actor=who, by=by, detail=why, obj=obj, revision=revision
        )
        steprows.insert([row])
        return
    if kind != "Pod" or not _open_branch(trace_id, namespace, name):
        return
    rows = [
        ending_row(
            trace_id,
            seq + 1,
            "deleted",
            actor=who,
            by=by,
            detail=why,
            obj=obj,
            revision=revision,
            final=False,
        )
    ]
    if steprows.is_complete(trace_id, seq, [0]) and steprows.mark_finished(trace_id):
        done, gone = _branch_counts(trace_id)
        detail = texts.pods_reported(*own, done, gone + 1)
        rows.append(
            ending_row(
                trace_id, seq + 2, "completed", actor=who, by=by, detail=detail, obj=own, revision=revision
            )
        )
    steprows.insert(rows)


def notify_after_commit(cluster_name: str) -> None:
    """ "New steps" news for the hub once the transaction commits."""
    transaction.on_commit(lambda: nudge.notify(cluster_name, None))


def _open_branch(trace_id: str, namespace: str, name: str) -> bool:
    """The trace created this pod (step 7, written with the pod) and the pod has neither started
    (13) nor ended (0)."""
    steps = set(
        FlowStep.objects.filter(
            trace_id=trace_id,
            object_kind="Pod",
            object_namespace=namespace,
            object_name=name,
            step__in=(0, 7, 13),
        ).values_list("step", flat=True)
    )
    return steps == {7}


def _last_step(trace_id: str) -> int:
    steps = FlowStep.objects.filter(trace_id=trace_id, step__gt=0, skipped=False).order_by("-seq")
    return steps.values_list("step", flat=True).first() or 4


def _who_and_why(actor, obj: tuple[str, str, str], trace_id: str) -> tuple[str, tuple[str, str]]:
    if actor.by:
        return actor.by, actor.reason or texts.deleted_by_other(actor.by, *obj)
    if actor.client in texts.CLIENT_NAMES:
        client = texts.CLIENT_NAMES[actor.client]
        client_zh = texts.CLIENT_NAMES_ZH[actor.client]
        return client, texts.deleted_by_user(client, client_zh, *obj, at=_last_step(trace_id))
    by = actor.detail or actor.client
    return by, texts.deleted_by_other(by, *obj)


def fail(trace_id: str, by: str, detail: tuple[str, str], obj: tuple[str, str, str]) -> None:
    """End the trace as failed for good (a controller that cannot create its pods)."""
    with transaction.atomic(savepoint=False):
        cluster_id, revision, own = steprows.lock_cluster(trace_id)
        if not steprows.mark_finished(trace_id):
            return
        seq = steprows.last_seq(trace_id)
        row = ending_row(
            trace_id,
            seq + 1,
            "failed",
            actor="controller-manager",
            by=by,
            detail=detail,
            obj=own,
            revision=revision,
        )
        steprows.insert([row])
        name = Cluster.objects.values_list("name", flat=True).get(pk=cluster_id)
        transaction.on_commit(lambda: nudge.notify(name, None))
