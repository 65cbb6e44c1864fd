"""Store a step of a trace and publish it after commit.

Every step is a FlowStep row (so a trace can be replayed and stepped through); the broadcast hub
reads new rows after the commit nudge and sends them as `flow.step` messages.
"""

from __future__ import annotations

import secrets
import string
from dataclasses import dataclass

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


@dataclass(slots=True)
class StepSpec:
    """One step to record; `obj` is (kind, namespace, name), the trace's own object by default."""

    step: int
    detail_en: str
    detail_zh: str
    obj: tuple[str, str, str] | None = None
    node: str = ""
    revision: int | None = None
    skipped: bool = False


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
) -> FlowStep:
    """Append step `step` to `trace` (see record_steps)."""
    spec = StepSpec(step, detail_en, detail_zh, obj, node, revision, skipped)
    return record_steps(trace, [spec])[0]


def record_steps(trace: FlowTrace | str, specs: list[StepSpec]) -> list[FlowStep]:
    """Append steps to `trace`, numbered in order, in one insert.

    Runs in its own transaction unless called inside one (the API server's write: no savepoint,
    the steps are part of that one transaction), and nudges the broadcast hub after the commit.
    """
    with transaction.atomic(savepoint=False):
        trace_id = trace if isinstance(trace, str) else trace.pk
        # Steps are inserted only under the cluster row lock (the lock every API write holds), so
        # step ids are handed out in commit order: a reader that has seen step N has seen every
        # step below N, even with several processes writing (PostgreSQL assigns ids at insert,
        # not at commit). The lock also numbers a trace's steps without collisions.
        current = _lock_cluster(trace_id)
        locked = FlowTrace.objects.only("pk", "kind", "namespace", "name", "cluster_id").get(pk=trace_id)
        seq = locked.steps.aggregate(top=Max("seq"))["top"] or 0
        rows = []
        for offset, spec in enumerate(specs, start=1):
            rows.append(_row(locked, seq + offset, spec, current if spec.revision is None else spec.revision))
        rows = FlowStep.objects.bulk_create(rows)
        if any(spec.step == 13 for spec in specs):
            _mark_finished_when_complete(locked)
        cluster_name = _cluster_name(locked.cluster_id)
        transaction.on_commit(lambda: broadcast.notify(cluster_name, None))
    return rows


def _row(trace: FlowTrace, seq: int, spec: StepSpec, revision: int) -> FlowStep:
    text = BY_NUMBER[spec.step]
    kind, namespace, name = spec.obj or (trace.kind, trace.namespace, trace.name)
    return FlowStep(
        trace=trace,
        seq=seq,
        step=spec.step,
        actor=text.actor,
        source=text.source,
        target=text.target,
        title_en=text.title_en,
        title_zh=text.title_zh,
        detail_en=spec.detail_en,
        detail_zh=spec.detail_zh,
        skipped=spec.skipped,
        object_kind=kind,
        object_namespace=namespace,
        object_name=name,
        node=spec.node,
        revision=revision,
    )


_names: dict[int, str] = {}


def _cluster_name(cluster_id: int) -> str:
    """Cluster names never change: remember them instead of joining on every step."""
    name = _names.get(cluster_id)
    if name is None:
        name = _names[cluster_id] = Cluster.objects.values_list("name", flat=True).get(pk=cluster_id)
    return name


def _lock_cluster(trace_id: str) -> int:
    """Lock the trace's cluster row for this transaction; returns the cluster's revision."""
    clusters = Cluster.objects.select_for_update(of=("self",)).filter(traces__pk=trace_id)
    return clusters.values_list("revision", flat=True).get()


def skip_steps(
    trace: FlowTrace, steps: range | tuple[int, ...], reason_en: str, reason_zh: str, **kwargs
) -> None:
    """Show steps that do not apply, marked skipped with the reason (the course's numbering stays)."""
    record_steps(trace, [StepSpec(number, reason_en, reason_zh, skipped=True, **kwargs) for number in steps])


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
