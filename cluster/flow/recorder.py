"""Store a step of a trace and publish it after commit.

Every step is a FlowStep row (so a trace can be replayed and stepped through); the broadcast hub
reads new rows after the commit nudge and sends them as `flow.step` messages.
"""

from __future__ import annotations

import secrets
import string
from dataclasses import dataclass

from django.db import transaction

from cluster.broadcast import nudge
from cluster.flow import endings, steprows, titles
from cluster.flow.steprows import STEP_COLUMNS, StepRow
from cluster.flow.steps import BY_NUMBER
from cluster.models import Cluster, FlowStep, FlowTrace

_ID_ALPHABET = string.ascii_lowercase + string.digits


def new_trace_id() -> str:
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(12))


def start_trace(
    cluster: Cluster, kind: str, namespace: str, name: str, verb: str, client: str, causes: str = ""
) -> FlowTrace:
    return FlowTrace.objects.create(
        id=new_trace_id(),
        cluster=cluster,
        kind=kind,
        namespace=namespace,
        name=name,
        verb=verb,
        client=client[:200],
        causes=causes[:200],
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
    outcome: str = ""  # step 13: "failed" when the kubelet reports a failure (the trace ends so)
    title: tuple[str, str] | None = None  # (en, zh) that names what happened; else the catalogue's


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
    locked: Cluster | None = None,
    outcome: str = "",
) -> StepRow:
    """Append step `step` to `trace` (see record_steps)."""
    spec = StepSpec(step, detail_en, detail_zh, obj, node, revision, skipped, outcome)
    return record_steps(trace, [spec], locked)[0]


def record_steps(
    trace: FlowTrace | str, specs: list[StepSpec], locked: Cluster | None = None
) -> list[StepRow]:
    """Append steps to `trace`, numbered in order, in one insert.

    Runs in its own transaction unless called inside one (the API server's write: no savepoint,
    the steps are part of that one transaction), and nudges the broadcast hub after the commit.
    Steps are inserted only under the cluster row lock (the lock every API write holds), so step
    ids are handed out in commit order: a reader that has seen step N has seen every step below N,
    even with several processes writing. The API server passes its `locked` cluster (it holds the
    lock already).
    """
    with transaction.atomic(savepoint=False):
        trace_id = trace if isinstance(trace, str) else trace.pk
        if locked is None:
            try:
                cluster_id, current, own = steprows.lock_cluster(trace_id)
            except FlowTrace.DoesNotExist:
                return []  # pruned long after it finished (cluster/retention.py): nothing to add to
        else:
            cluster_id, current = locked.pk, locked.revision
            own = None if all(spec.obj for spec in specs) else steprows.trace_object(trace_id)
        seq = steprows.last_seq(trace_id)
        rows = [
            _row(trace_id, own, seq + offset, spec, current if spec.revision is None else spec.revision)
            for offset, spec in enumerate(specs, start=1)
        ]
        if any(spec.step == 13 for spec in specs) and steprows.is_complete(
            trace_id, seq, [spec.step for spec in specs]
        ):
            last = max((i for i, spec in enumerate(specs) if spec.step == 13))
            own = own or steprows.trace_object(trace_id)
            ending = endings.after_status(
                trace_id, seq + len(rows) + 1, own, specs[last], rows[last].revision
            )
            if ending is not None:
                rows.append(ending)
        steprows.insert(rows)
        cluster_name = locked.name if locked is not None else _cluster_name(cluster_id)
        # "New steps" news (revision None), also inside an API write: readers of steps (the hub)
        # look for it rather than for a new revision.
        transaction.on_commit(lambda: nudge.notify(cluster_name, None))
    return rows


def _row(trace_id: str, own: tuple | None, seq: int, spec: StepSpec, revision: int) -> StepRow:
    text = BY_NUMBER[spec.step]
    kind, namespace, name = spec.obj or own
    title = spec.title or (titles.controller_acts(kind) if spec.step == 6 else None)
    title_en, title_zh = title or (text.title_en, text.title_zh)
    return StepRow(
        trace_id=trace_id,
        seq=seq,
        step=spec.step,
        actor=text.actor,
        source=text.source,
        target=text.target,
        title_en=title_en,
        title_zh=title_zh,
        detail_en=spec.detail_en,
        detail_zh=spec.detail_zh,
        skipped=spec.skipped,
        object_kind=kind,
        object_namespace=namespace,
        object_name=name,
        node=spec.node,
        revision=revision,
        # A step after which the trace waits for the cluster to change (no node fits): Next
        # cannot move it, so the page says what it waits for.
        ending="waiting" if spec.outcome == "waiting" else "",
    )


_names: dict[int, str] = {}


def _cluster_name(cluster_id: int) -> str:
    """Cluster names never change: remember them instead of joining on every step."""
    name = _names.get(cluster_id)
    if name is None:
        name = _names[cluster_id] = Cluster.objects.values_list("name", flat=True).get(pk=cluster_id)
    return name


def skip_steps(
    trace: FlowTrace, steps: range | tuple[int, ...], reason_en: str, reason_zh: str, **kwargs
) -> None:
    """Show steps that do not apply, marked skipped with the reason (the course's numbering stays)."""
    record_steps(trace, [StepSpec(number, reason_en, reason_zh, skipped=True, **kwargs) for number in steps])


def step_message(row: FlowStep, cluster_name: str) -> dict:
    """A step as the websocket's `flow.step` message (docs/architecture.md, "Websocket")."""
    values = {column: getattr(row, column) for column in STEP_COLUMNS}
    return message_of({"id": row.pk, **values}, cluster_name)


def message_of(step: dict, cluster_name: str) -> dict:
    """A step's stored values (`id` and steprows.STEP_COLUMNS) as its `flow.step` message; an
    ending entry (step 0) as `flow.end`, with `outcome`, `by` and `final` added (and the trace's
    `finished_at` when it is the final one). Every translated text is one {"en", "zh"} pair."""
    created = step["created_at"]
    message = {
        "type": "flow.end" if step["step"] == 0 else "flow.step",
        "cluster": cluster_name,
        "trace": step["trace_id"],
        "seq": step["seq"],
        "step": step["step"],
        "actor": step["actor"],
        "from": step["source"],
        "to": step["target"],
        "title": {"en": step["title_en"], "zh": step["title_zh"]},
        # For a skipped step, the reason it does not apply.
        "detail": {"en": step["detail_en"], "zh": step["detail_zh"]},
        "skipped": step["skipped"],
        "object": {
            "kind": step["object_kind"],
            "namespace": step["object_namespace"],
            "name": step["object_name"],
        },
        "node": step["node"],
        "revision": step["revision"],
        "ts": created.isoformat() if created else None,
        "id": step["id"],
    }
    if step["seq"] == 1 and "trace_verb" in step:
        message["trace_info"] = {
            "verb": step["trace_verb"],
            "client": step["trace_client"],
            "causes": (step["trace_causes"] or "").split(),
        }
    if step["step"] == 0:
        message.update(outcome=step["ending"], by=step["source"], final=step["final"])
        if step["final"]:
            message["finished_at"] = message["ts"]
    else:
        message["waiting"] = step["ending"] == "waiting"
    return message


def steps_page(trace_id: str, cluster_name: str, after: int, before: int | None, limit: int) -> dict:
    """A trace's steps with after < seq < before, oldest first, at most `limit`: {steps, more}."""
    rows = FlowStep.objects.filter(trace_id=trace_id, seq__gt=after)
    if before is not None:
        rows = rows.filter(seq__lt=before)
    found = list(rows.order_by("seq").values("id", *STEP_COLUMNS)[: limit + 1])
    return {"steps": [message_of(step, cluster_name) for step in found[:limit]], "more": len(found) > limit}


def trace_json(trace: FlowTrace, cluster_name: str, steps: list[FlowStep] | None = None) -> dict:
    steps = list(trace.steps.all()) if steps is None else steps
    return {
        "id": trace.pk,
        "kind": trace.kind,
        "namespace": trace.namespace,
        "name": trace.name,
        "verb": trace.verb,
        "client": trace.client,
        "causes": trace.causes.split(),
        "created_at": trace.created_at.isoformat(),
        "finished_at": trace.finished_at.isoformat() if trace.finished_at else None,
        "permits": trace.permits,
        "gate_step": trace.gate_step,
        "steps": [step_message(step, cluster_name) for step in steps],
        "ending": next(
            (step_message(s, cluster_name) for s in reversed(steps) if s.step == 0 and s.final), None
        ),
    }
