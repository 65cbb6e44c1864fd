"""Store a step of a trace and publish it after commit.

Every step is a FlowStep row (so a trace can be replayed and stepped through); the broadcast hub
reads new rows after the commit nudge and sends them as `flow.step` messages.
"""

from __future__ import annotations

import secrets
import string

from django.db import transaction
from django.db.models import Count, Max, Q
from django.utils import timezone

from cluster import broadcast
from cluster.flow.steps import BY_NUMBER
from cluster.models import Cluster, FlowStep, FlowTrace

_ID_ALPHABET = string.ascii_lowercase + string.digits


def new_trace_id() -> str:
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(12))


def start_trace(cluster: Cluster, kind: str, namespace: str, name: str, verb: str, client: str) -> FlowTrace:
    return FlowTrace.objects.create(
        id=new_trace_id(),
        cluster=cluster,
        kind=kind,
        namespace=namespace,
        name=name,
        verb=verb,
        client=client[:200],
    )


def record_step(
    trace: FlowTrace | str,
    step: int,
    *,
    detail_en: str,
    detail_zh: str,
    obj: tuple[str, str, str] | None = None,
    node: str = "",
    revision: int | None = None,
    skipped: bool = False,
    source: str = "",
    target: str = "",
) -> FlowStep:
    """Append step `step` to `trace`; `obj` is (kind, namespace, name), the trace's object by default.

    Runs in its own transaction unless called inside one (the API server's write), and nudges the
    broadcast hub once the step is committed.
    """
    # No savepoint inside the API server's write: the step is part of that one transaction.
    with transaction.atomic(savepoint=False):
        trace_id = trace if isinstance(trace, str) else trace.pk
        # Lock the trace so concurrent components number their steps without collisions.
        locked = (
            FlowTrace.objects.select_for_update()
            .only("pk", "kind", "namespace", "name", "cluster_id")
            .get(pk=trace_id)
        )
        seq = (locked.steps.aggregate(top=Max("seq"))["top"] or 0) + 1
        text = BY_NUMBER[step]
        kind, namespace, name = obj or (locked.kind, locked.namespace, locked.name)
        row = FlowStep.objects.create(
            trace=locked,
            seq=seq,
            step=step,
            actor=text.actor,
            source=source or text.source,
            target=target or text.target,
            title_en=text.title_en,
            title_zh=text.title_zh,
            detail_en=detail_en,
            detail_zh=detail_zh,
            skipped=skipped,
            object_kind=kind,
            object_namespace=namespace,
            object_name=name,
            node=node,
            revision=_revision(locked.cluster_id) if revision is None else revision,
        )
        if step == 13:
            _mark_finished_when_complete(locked)
        cluster_name = _cluster_name(locked.cluster_id)
        transaction.on_commit(lambda: broadcast.notify(cluster_name, None))
    return row


_names: dict[int, str] = {}


def _cluster_name(cluster_id: int) -> str:
    """Cluster names never change: remember them instead of joining on every step."""
    name = _names.get(cluster_id)
    if name is None:
        name = _names[cluster_id] = Cluster.objects.values_list("name", flat=True).get(pk=cluster_id)
    return name


def _revision(cluster_id: int) -> int:
    return Cluster.objects.values_list("revision", flat=True).get(pk=cluster_id)


def skip_steps(
    trace: FlowTrace, steps: range | tuple[int, ...], reason_en: str, reason_zh: str, **kwargs
) -> None:
    """Show steps that do not apply, marked skipped with the reason (the course's numbering stays)."""
    for number in steps:
        record_step(trace, number, detail_en=reason_en, detail_zh=reason_zh, skipped=True, **kwargs)


def _mark_finished_when_complete(trace: FlowTrace) -> None:
    """A trace is complete when every pod it created (step 8) reached step 13.

    A pod that finishes before its sibling is even created can mark the trace complete early; the
    sibling's own step 13 then moves `finished_at` to the true end.
    """
    counts = trace.steps.aggregate(
        created=Count("pk", filter=Q(step=8)),
        done=Count("pk", filter=Q(step=13)),
        decided=Count("pk", filter=Q(step=6)),
    )
    if counts["decided"] and counts["done"] >= counts["created"] > 0:
        FlowTrace.objects.filter(pk=trace.pk).update(finished_at=timezone.now())


def step_message(row: FlowStep, cluster_name: str) -> dict:
    """A step as the websocket's `flow.step` message (issue 3 §5), both languages included."""
    return {
        "type": "flow.step",
        "cluster": cluster_name,
        "trace": row.trace_id,
        "seq": row.seq,
        "step": row.step,
        "actor": row.actor,
        "from": row.source,
        "to": row.target,
        "title": row.title_en,
        "title_zh": row.title_zh,
        "detail": row.detail_en,
        "detail_zh": row.detail_zh,
        "skipped": row.skipped,
        "skip_reason": row.detail_en if row.skipped else "",
        "skip_reason_zh": row.detail_zh if row.skipped else "",
        "object": {"kind": row.object_kind, "namespace": row.object_namespace, "name": row.object_name},
        "node": row.node,
        "revision": row.revision,
        "ts": row.created_at.isoformat() if row.created_at else None,
        "id": row.pk,
    }


def trace_json(trace: FlowTrace, cluster_name: str, steps: list[FlowStep] | None = None) -> dict:
    steps = list(trace.steps.all()) if steps is None else steps
    return {
        "id": trace.pk,
        "kind": trace.kind,
        "namespace": trace.namespace,
        "name": trace.name,
        "verb": trace.verb,
        "client": trace.client,
        "created_at": trace.created_at.isoformat(),
        "finished_at": trace.finished_at.isoformat() if trace.finished_at else None,
        "permits": trace.permits,
        "steps": [step_message(step, cluster_name) for step in steps],
    }
