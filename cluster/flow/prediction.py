"""The prediction round: the teacher arms it, the class guesses which node the scheduler will pick
(and, when asked, which plugin decides), and the round closes by itself at step 9 of the first
trace started after arming that reaches it (the Scheduler picks a node, or finds none), at the
pace or in step mode alike. Closing is lazy: whoever reads the round next (a hub's read of new
steps, a snapshot, a guess, GET …/prediction) settles it, once (a conditional UPDATE), so no
extra loop runs and no process's close is lost.

Every change bumps the round's version and nudges the cluster: each hub sends the round to its
pages (`prediction`), and every snapshot carries it, so a page opened late sees the same round.
The tally stays hidden until the round closes: the class answers before it sees the class.
"""

from __future__ import annotations

import json
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import Count, F
from django.utils import timezone

from cluster.apiserver import rows
from cluster.apiserver.errors import ApiError, Cause
from cluster.broadcast import nudge
from cluster.flow.predictionanswer import deciding
from cluster.models import Cluster, FlowStep, FlowTrace, PredictionGuess, PredictionRound
from cluster.schedulerport import scheduler_app
from scheduler.engine.profile import DEFAULT_PLUGINS

PLUGINS = [name for name, _ in DEFAULT_PLUGINS]  # the choices of "which plugin decides?"
MAX_VOTERS = 500  # guesses one round keeps (a class of 60 and its viewers, with room to spare)
# A round whose pod's explanation is built by another process waits this long for it, then
# reveals the node without the deciding plugin.
EXPLAIN_WAIT_SECONDS = 30.0
TRACES_LOOKED_AT = 50  # the first traces after arming that may hold the deciding step 9


def schedulable_nodes(cluster: Cluster) -> list[str]:
    """The nodes a pod may be scheduled to now (not cordoned), in kubectl's order (by name)."""
    names = []
    for text in rows.bodies(cluster.pk, "Node"):
        node = json.loads(text)
        if not (node.get("spec") or {}).get("unschedulable"):
            names.append(node["metadata"]["name"])
    return sorted(names)


def _changed(cluster: Cluster) -> None:
    nudge.notify(cluster.name, None)  # news without a revision: the hubs read the round again


def arm(cluster: Cluster, by: str, ask_plugin: bool) -> PredictionRound:
    nodes = schedulable_nodes(cluster)
    if not nodes:
        raise ApiError(409, "Conflict", "no node is schedulable: uncordon one before asking the class")
    with transaction.atomic():
        row = PredictionRound.objects.create(
            cluster=cluster,
            armed_at=timezone.now(),
            armed_by=by,
            ask_plugin=ask_plugin,
            nodes=nodes,
            plugins=PLUGINS if ask_plugin else [],
        )
        PredictionRound.objects.filter(cluster=cluster).exclude(pk=row.pk).delete()  # it replaces the old
    _changed(cluster)
    return row


def cancel(cluster: Cluster) -> PredictionRound:
    row = settle(cluster)
    if row is None:
        raise ApiError(404, "NotFound", "no prediction round is armed")
    if row.closed_at is not None:
        raise ApiError(409, "Conflict", "the prediction round is already closed")
    PredictionRound.objects.filter(pk=row.pk, closed_at__isnull=True).update(
        closed_at=timezone.now(), cancelled=True, version=F("version") + 1
    )
    _changed(cluster)
    row.refresh_from_db()
    return row


def clear(cluster: Cluster) -> None:
    """No round at all (a reset of the demo): every page's question or answer goes."""
    if PredictionRound.objects.filter(cluster=cluster).delete()[0]:
        _changed(cluster)


def _invalid(field: str, message: str, kind: str = "FieldValueNotSupported") -> ApiError:
    cause = Cause(kind, field, message)
    details = {"name": "guess", "kind": "PredictionGuess", "causes": [cause.to_json()]}
    return ApiError(422, "Invalid", f'PredictionGuess "guess" is invalid: {cause.text()}', details)


def _supported(value: str, allowed: list[str]) -> str:
    return f"Unsupported value: {json.dumps(value)}: supported values: " + ", ".join(
        json.dumps(choice) for choice in allowed
    )


def guess(
    cluster: Cluster, voter: str, node: object, plugin: object, round_id: object = None
) -> PredictionRound:
    """Store (or change) `voter`'s guess; refused when no round is open, for a node or plugin that
    is not a choice, and past MAX_VOTERS."""
    row = settle(cluster)
    if row is None or (round_id is not None and round_id != row.pk):
        raise ApiError(404, "NotFound", "no such prediction round: the teacher has armed a new one or none")
    if row.closed_at is not None:
        why = "cancelled" if row.cancelled else "closed: the scheduler has decided"
        raise ApiError(409, "Conflict", f"the prediction round is {why}")
    if not isinstance(node, str) or node not in row.nodes:
        raise _invalid("node", _supported(node if isinstance(node, str) else str(node), row.nodes))
    plugin = "" if plugin is None else plugin
    if not isinstance(plugin, str) or (plugin and plugin not in row.plugins):
        if not row.ask_plugin:
            raise _invalid(
                "plugin", "Forbidden: this round does not ask which plugin decides", "FieldValueForbidden"
            )
        raise _invalid("plugin", _supported(str(plugin), row.plugins))
    try:
        with transaction.atomic():
            updated = PredictionGuess.objects.filter(round=row, voter=voter).update(node=node, plugin=plugin)
            if not updated:
                if PredictionGuess.objects.filter(round=row).count() >= MAX_VOTERS:
                    raise ApiError(429, "TooManyRequests", f"this round already has {MAX_VOTERS} voters")
                PredictionGuess.objects.create(round=row, voter=voter, node=node, plugin=plugin)
            # Only while the round is open: a close between the check and here keeps its answer.
            if not PredictionRound.objects.filter(pk=row.pk, closed_at__isnull=True).update(
                version=F("version") + 1
            ):
                raise ApiError(409, "Conflict", "the prediction round is closed: the scheduler has decided")
    except IntegrityError:  # the same voter's two guesses at once: the other one stands
        raise ApiError(409, "Conflict", "another guess of yours was stored at the same moment") from None
    _changed(cluster)
    row.refresh_from_db()
    return row


def mine(row: PredictionRound | None, voter: str) -> dict | None:
    if row is None:
        return None
    found = PredictionGuess.objects.filter(round=row, voter=voter).values("node", "plugin").first()
    return found


# -- closing ------------------------------------------------------------------------------------
def settle(cluster: Cluster) -> PredictionRound | None:
    """The cluster's round, closed first if its step 9 is recorded, its answer explained when the
    decision's explanation is there."""
    row = PredictionRound.objects.filter(cluster_id=cluster.pk).order_by("-pk").first()
    if row is None or row.cancelled:
        return row
    changed = False
    if row.closed_at is None:
        step = _deciding_step(row)
        if step is None:
            return row
        answer = {
            "trace": step["trace_id"],
            "namespace": step["object_namespace"],
            "pod": step["object_name"],
            "node": None if step["ending"] == "waiting" else step["node"] or None,
            "explanation": {"en": step["detail_en"], "zh": step["detail_zh"]},
            "deciding": None,  # filled in below once the decision's explanation is built
        }
        closing = PredictionRound.objects.filter(pk=row.pk, closed_at__isnull=True)
        changed = bool(
            closing.update(
                closed_at=timezone.now(), trace_id=step["trace_id"], answer=answer, version=F("version") + 1
            )
        )
        row.refresh_from_db()
    if row.answer and row.answer.get("deciding") is None:
        found = _deciding(cluster, row)
        if found is not None:
            answer = {**row.answer, "deciding": found}
            explaining = PredictionRound.objects.filter(pk=row.pk, version=row.version)
            changed = bool(explaining.update(answer=answer, version=F("version") + 1)) or changed
            row.refresh_from_db()
    if changed:
        _changed(cluster)
    return row


def _deciding_step(row: PredictionRound) -> dict | None:
    """The first step 9 of the traces started after arming."""
    traces = list(
        FlowTrace.objects.filter(cluster_id=row.cluster_id, created_at__gte=row.armed_at)
        .order_by("created_at")
        .values_list("pk", flat=True)[:TRACES_LOOKED_AT]
    )
    if not traces:
        return None
    fields = ("trace_id", "object_namespace", "object_name", "node", "ending", "detail_en", "detail_zh")
    return (
        FlowStep.objects.filter(trace_id__in=traces, step=9, skipped=False)
        .order_by("pk")
        .values(*fields)
        .first()
    )


def _deciding(cluster: Cluster, row: PredictionRound) -> dict | None:
    """What decided, from the attempt behind step 9; None while its explanation is being built."""
    decision = scheduler_app().decision(
        cluster, row.answer["namespace"], row.answer["pod"], row.answer["trace"]
    )
    if decision is not None:
        return deciding(decision)
    if timezone.now() - row.closed_at > timedelta(seconds=EXPLAIN_WAIT_SECONDS):
        return {"kind": "unknown", "plugins": []}  # the attempt is gone or was never explained
    return None


# -- what pages see -----------------------------------------------------------------------------
def key_of(row: PredictionRound | None) -> tuple[int, int] | None:
    return None if row is None else (row.pk, row.version)


def round_json(row: PredictionRound | None) -> dict | None:
    """The round as every page gets it: the tally and the answer only once it is closed."""
    if row is None:
        return None
    state = "cancelled" if row.cancelled else ("closed" if row.closed_at else "open")
    guesses = PredictionGuess.objects.filter(round=row)
    out = {
        "id": row.pk,
        "version": row.version,
        "state": state,
        "armed_at": row.armed_at.isoformat(),
        "closed_at": row.closed_at.isoformat() if row.closed_at else None,
        "ask_plugin": row.ask_plugin,
        "nodes": row.nodes,
        "plugins": row.plugins,
        "votes": guesses.count(),
        "answer": None,
        "tally": None,
    }
    if state == "closed":
        out["answer"] = row.answer
        out["tally"] = tally(row, row.answer or {})
    return out


def tally(row: PredictionRound, answer: dict) -> dict:
    """The class's guesses against the decision: how many chose each node and plugin, how many
    were right."""
    guesses = PredictionGuess.objects.filter(round=row)
    nodes = dict.fromkeys(row.nodes, 0)
    for node, n in guesses.values_list("node").annotate(n=Count("pk")).order_by():
        nodes[node] = n
    plugins = {}
    for plugin, n in guesses.exclude(plugin="").values_list("plugin").annotate(n=Count("pk")).order_by():
        plugins[plugin] = n
    decided = (answer.get("deciding") or {}).get("plugins") or []
    return {
        "nodes": nodes,
        "plugins": plugins,
        "right": guesses.filter(node=answer.get("node") or "").count() if answer.get("node") else 0,
        "right_plugin": guesses.filter(plugin__in=decided).count() if decided else 0,
    }


def current(cluster: Cluster) -> tuple[tuple[int, int] | None, dict | None]:
    """The settled round's key and JSON (a hub's read, a snapshot)."""
    row = settle(cluster)
    return key_of(row), round_json(row)
