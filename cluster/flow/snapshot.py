"""The snapshot a browser loads before applying events (websocket on connect, GET …/snapshot).

A 100-node, 1,000-pod cluster's snapshot is several megabytes; `build_text` serves the objects'
stored JSON as it is (no decoding and re-encoding) and reads the traces' steps as plain values,
so the dashboard's first paint is not held up by the server.
"""

from __future__ import annotations

import json

from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import Count, Max, Q

from cluster import execsessions
from cluster.apiserver import defaultservice, history, rows
from cluster.apiserver.kinds import workload_kinds
from cluster.flow.steprows import STEP_COLUMNS
from cluster.kubeapi.podstatus import status_text
from cluster.models import Cluster, FlowStep, FlowTrace
from scheduler import queue_view

RECENT_TRACES = 10
HEAD_STEPS = 16
TAIL_STEPS = 400
STEP_FIELDS = ("id", *STEP_COLUMNS)


def build(cluster: Cluster) -> dict:
    """Everything the dashboard draws, at a revision R: events after R follow on the socket.

    R and the newest step id are read first, so the objects are at least as new as R; an event
    the objects already show may follow and is applied again (applying an object is idempotent),
    and a step already in `traces` may follow too (the browser keys steps by trace and seq).
    """
    state, objects = _read(cluster)
    return {**state, **{key: [json.loads(text) for text in texts] for key, texts in objects.items()}}


def build_text(cluster: Cluster, extra: dict | None = None) -> str:
    """`build` (plus `extra` keys) as JSON text, with the objects' stored JSON spliced in as is."""
    return build_text_at_position(cluster, extra)[0]


def objects_bytes(cluster: Cluster) -> int:
    """About how many bytes the snapshot's objects take (their stored JSON), read in SQL."""
    return rows.bodies_length(cluster.pk, ("Node", "Pod", *workload_kinds()))


def position(cluster: Cluster) -> tuple[int, int]:
    """The revision and newest step id a snapshot read now would be at (or later)."""
    revision = Cluster.objects.values_list("revision", flat=True).get(pk=cluster.pk)
    step_id = FlowStep.objects.filter(trace__cluster=cluster).aggregate(top=Max("pk"))["top"] or 0
    return revision, step_id


def build_text_at_position(cluster: Cluster, extra: dict | None = None) -> tuple[str, int, int]:
    """`build_text`, with the revision and the newest step id it is at (where events resume)."""
    state, objects = _read(cluster)
    state.update(extra or {})
    head = json.dumps(state, cls=DjangoJSONEncoder, ensure_ascii=False, separators=(",", ":"))
    parts = [f'"{key}":[{",".join(texts)}]' for key, texts in objects.items()]
    return head[:-1] + "," + ",".join(parts) + "}", state["revision"], state["step_id"]


def build_at(cluster: Cluster, revision: int) -> dict:
    """The cluster's objects as they stood at `revision`, read back from the event log, for a
    replay: the same shape as the live snapshot (no traces, no settings), `historical` set.
    Raises Gone (410) for a compacted revision and a 400 for one in the future."""
    found = history.objects_at(cluster.pk, revision, ("Node", "Pod", *workload_kinds()))
    pods = found["Pod"]
    return {
        "type": "snapshot",
        "cluster": cluster.name,
        "revision": revision,
        "historical": True,
        "nodes": found["Node"],
        "pods": pods,
        "workloads": [obj for kind in workload_kinds() for obj in found[kind]],
        "pod_status": {
            f"{p['metadata'].get('namespace') or 'default'}/{p['metadata']['name']}": status_text(p)
            for p in pods
        },
    }


def _read(cluster: Cluster) -> tuple[dict, dict[str, list[str]]]:
    fresh = Cluster.objects.get(pk=cluster.pk)
    step_id = FlowStep.objects.filter(trace__cluster=cluster).aggregate(top=Max("pk"))["top"] or 0
    objects = {
        "nodes": rows.bodies(cluster.pk, "Node"),
        "pods": rows.bodies(cluster.pk, "Pod"),
        "workloads": [text for kind in workload_kinds() for text in rows.bodies(cluster.pk, kind)],
        # The dashboard's Services strip and the flow's endpoints lane.
        "services": _with_builtins(cluster, "Service"),
        "endpoints": _with_builtins(cluster, "Endpoints"),
    }
    state = {
        "type": "snapshot",
        "cluster": cluster.name,
        "revision": fresh.revision,
        "step_id": step_id,
        "traces": _traces(cluster),
        "pace_ms": fresh.pace_ms,
        "step_mode": fresh.step_mode,
        "pod_status": pod_statuses(objects["pods"]),
        "exec_sessions": execsessions.listing(cluster.name),
        # Pending pods' places in the scheduling queue, from their latest attempts.
        "scheduling": queue_view.pending(cluster),
    }
    return state, objects


def _with_builtins(cluster: Cluster, kind: str) -> list[str]:
    """Stored objects of `kind`, and the built-in `kubernetes` one while it is not stored."""
    texts = rows.bodies(cluster.pk, kind)
    stored = {
        (meta.get("namespace"), meta.get("name"))
        for meta in (json.loads(text).get("metadata") or {} for text in texts)
    }
    for obj in defaultservice.builtins(cluster, kind):
        if (obj["metadata"]["namespace"], obj["metadata"]["name"]) not in stored:
            texts.append(json.dumps(obj, separators=(",", ":")))
    return texts


def pod_statuses(pods: list[str]) -> dict[str, str]:
    """kubectl's STATUS of every pod, by "namespace/name": the page shows it as it is, never
    re-deriving it (a pod stays Pending until its kubelet reports ContainerCreating)."""
    out = {}
    for text in pods:
        pod = json.loads(text)
        meta = pod["metadata"]
        out[f"{meta.get('namespace') or 'default'}/{meta['name']}"] = status_text(pod)
    return out


def _traces(cluster: Cluster) -> list[dict]:
    """The recent traces, oldest first, each with its steps as `flow.step` messages."""
    traces = list(
        FlowTrace.objects.filter(cluster=cluster)
        .order_by("-created_at")
        .values("id", "kind", "namespace", "name", "verb", "client", "created_at", "finished_at", "permits")[
            :RECENT_TRACES
        ]
    )
    steps: dict[str, list[dict]] = {trace["id"]: [] for trace in traces}
    # A trace of a thousand replicas holds thousands of steps: the page gets its first steps (the
    # workload's own) and its newest ones, and fetches the rest (GET …/traces/<id>) to replay it.
    # With its counts of steps 6, 7 and 13 (how the page tells a trace complete).
    tallies = {
        trace_id: (top, {"6": six, "7": seven, "13": thirteen})
        for trace_id, top, six, seven, thirteen in FlowStep.objects.filter(trace__in=list(steps))
        .values("trace_id")
        .annotate(
            top=Max("seq"),
            six=Count("pk", filter=Q(step=6)),
            seven=Count("pk", filter=Q(step=7)),
            thirteen=Count("pk", filter=Q(step=13)),
        )
        .values_list("trace_id", "top", "six", "seven", "thirteen")
    }
    window = Q()
    for trace_id, (top, _) in tallies.items():
        window |= Q(trace_id=trace_id) & (Q(seq__lte=HEAD_STEPS) | Q(seq__gt=top - TAIL_STEPS))
    for trace in traces:
        trace["steps_total"], trace["step_counts"] = tallies.get(trace["id"], (0, {}))
    last = tallies
    values = (
        FlowStep.objects.filter(window).order_by("trace_id", "seq").values_list(*STEP_FIELDS) if last else []
    )
    for row in values:
        step = dict(zip(STEP_FIELDS, row, strict=True))
        steps[step["trace_id"]].append(_message(step, cluster.name))
    return [
        {
            **trace,
            "created_at": trace["created_at"].isoformat(),
            "finished_at": trace["finished_at"].isoformat() if trace["finished_at"] else None,
            "steps": steps[trace["id"]],
            "ending": next((s for s in reversed(steps[trace["id"]]) if s["step"] == 0 and s["final"]), None),
        }
        for trace in reversed(traces)
    ]


def _message(step: dict, cluster_name: str) -> dict:
    """recorder.step_message, from plain values."""
    skipped = step["skipped"]
    message = {
        "type": "flow.end" if step["step"] == 0 else "flow.step",
        "cluster": cluster_name,
        "trace": step["trace_id"],
        "seq": step["seq"],
        "step": step["step"],
        "actor": step["actor"],
        "from": step["source"],
        "to": step["target"],
        "title": step["title_en"],
        "title_zh": step["title_zh"],
        "detail": step["detail_en"],
        "detail_zh": step["detail_zh"],
        "skipped": skipped,
        "skip_reason": step["detail_en"] if skipped else "",
        "skip_reason_zh": step["detail_zh"] if skipped else "",
        "object": {
            "kind": step["object_kind"],
            "namespace": step["object_namespace"],
            "name": step["object_name"],
        },
        "node": step["node"],
        "revision": step["revision"],
        "ts": step["created_at"].isoformat() if step["created_at"] else None,
        "id": step["id"],
    }
    if step["step"] == 0:
        message.update(outcome=step["ending"], by=step["source"], final=step["final"])
    else:
        message["waiting"] = step["ending"] == "waiting"
    return message
