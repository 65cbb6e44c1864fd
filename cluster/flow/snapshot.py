"""The snapshot a browser loads before applying events (websocket on connect, GET …/snapshot).

A 100-node, 1,000-pod cluster's snapshot is several megabytes; `build_text` serves the objects'
stored JSON as it is (no decoding and re-encoding) and reads the traces' steps as plain values,
so the dashboard's first paint is not held up by the server.
"""

from __future__ import annotations

import json

from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import Max

from cluster.apiserver import rows
from cluster.apiserver.kinds import workload_kinds
from cluster.flow.steprows import STEP_COLUMNS
from cluster.models import Cluster, FlowStep, FlowTrace
from scheduler import queue_view

RECENT_TRACES = 10
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
    state, objects = _read(cluster)
    state.update(extra or {})
    head = json.dumps(state, cls=DjangoJSONEncoder, ensure_ascii=False, separators=(",", ":"))
    parts = [f'"{key}":[{",".join(texts)}]' for key, texts in objects.items()]
    return head[:-1] + "," + ",".join(parts) + "}"


def _read(cluster: Cluster) -> tuple[dict, dict[str, list[str]]]:
    fresh = Cluster.objects.get(pk=cluster.pk)
    step_id = FlowStep.objects.filter(trace__cluster=cluster).aggregate(top=Max("pk"))["top"] or 0
    objects = {
        "nodes": rows.bodies(cluster.pk, "Node"),
        "pods": rows.bodies(cluster.pk, "Pod"),
        "workloads": [text for kind in workload_kinds() for text in rows.bodies(cluster.pk, kind)],
    }
    state = {
        "type": "snapshot",
        "cluster": cluster.name,
        "revision": fresh.revision,
        "step_id": step_id,
        "traces": _traces(cluster),
        "pace_ms": fresh.pace_ms,
        "step_mode": fresh.step_mode,
        # Pending pods' places in the scheduling queue, from their latest attempts.
        "scheduling": queue_view.pending(cluster),
    }
    return state, objects


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
    values = (
        FlowStep.objects.filter(trace__in=list(steps)).order_by("trace_id", "seq").values_list(*STEP_FIELDS)
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
        }
        for trace in reversed(traces)
    ]


def _message(step: dict, cluster_name: str) -> dict:
    """recorder.step_message, from plain values."""
    skipped = step["skipped"]
    return {
        "type": "flow.step",
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
