"""The snapshot a browser loads before applying events (websocket on connect, GET …/snapshot).

A 100-node, 1,000-pod cluster's snapshot is several megabytes; `build_text` serves the objects'
stored JSON as it is (no decoding and re-encoding) and reads the traces' steps as plain values,
so the dashboard's first paint is not held up by the server.
"""

from __future__ import annotations

import gzip
import json

from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import Count, Max, Q

from cluster import execsessions
from cluster.apiserver import history, rows
from cluster.apiserver.kinds import workload_kinds
from cluster.broadcast import podview
from cluster.flow import prediction
from cluster.flow.recorder import message_of
from cluster.flow.steprows import STEP_COLUMNS
from cluster.kinds.core import defaultservice
from cluster.models import Cluster, FlowStep, FlowTrace
from cluster.schedulerport import scheduler_app

RECENT_TRACES = 10
# A long trace's steps in the snapshot: its first and its newest (the page fetches the others).
HEAD_STEPS = 8
TAIL_STEPS = 8
# A snapshot longer than COMPRESS_OVER is sent gzipped (a websocket binary frame, HTTP
# Content-Encoding): pods of one template differ in a few fields, so the JSON shrinks ~10×, and
# level 5 costs a few ms per megabyte.
COMPRESS_OVER = 64 * 1024
GZIP_LEVEL = 5


def gzipped(body: bytes) -> bytes:
    return gzip.compress(body, GZIP_LEVEL)


STEP_FIELDS = ("id", *STEP_COLUMNS)
# `view`: "full" sends pods as stored; "page" sends each pod's page view (cluster/podview.summary),
# what the dashboard draws: a 1,000-pod snapshot's pods go from ~2.4 MB of JSON to ~0.4 MB.
VIEWS = ("full", "page")


def build(cluster: Cluster, view: str = "full") -> dict:
    """Everything the dashboard draws, at a revision R: events after R follow on the socket.

    R and the newest step id are read first, so the objects are at least as new as R; an event
    the objects already show may follow and is applied again (applying an object is idempotent),
    and a step already in `traces` may follow too (the browser keys steps by trace and seq).
    """
    state, objects = _read(cluster, view)
    return {**state, **{key: [json.loads(text) for text in texts] for key, texts in objects.items()}}


def build_text(cluster: Cluster, extra: dict | None = None, view: str = "full") -> str:
    """`build` (plus `extra` keys) as JSON text, with the objects' stored JSON spliced in as is."""
    return build_text_at_position(cluster, extra, view)[0]


def objects_bytes(cluster: Cluster) -> int:
    """About how many bytes the snapshot's objects take (their stored JSON), read in SQL."""
    return rows.bodies_length(cluster.pk, ("Node", "Pod", *workload_kinds()))


def position(cluster: Cluster) -> tuple[int, int]:
    """The revision and newest step id a snapshot read now would be at (or later)."""
    revision = Cluster.objects.values_list("revision", flat=True).get(pk=cluster.pk)
    step_id = FlowStep.objects.filter(trace__cluster=cluster).aggregate(top=Max("pk"))["top"] or 0
    return revision, step_id


def build_text_at_position(
    cluster: Cluster, extra: dict | None = None, view: str = "full"
) -> tuple[str, int, int]:
    """`build_text`, with the revision and the newest step id it is at (where events resume)."""
    fresh, step_id = head(cluster)
    facts, objects = read_objects(cluster, view)
    state = {**state_of(cluster, fresh, step_id, view), **(extra or {})}
    return to_json(state)[:-1] + "," + objects_fragment(facts, objects) + "}", fresh.revision, step_id


def build_at(cluster: Cluster, revision: int, view: str = "full") -> dict:
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
        "view": view,
        "nodes": found["Node"],
        "pods": [podview.summary(pod) for pod in pods] if view == "page" else pods,
        "workloads": [obj for kind in workload_kinds() for obj in found[kind]],
        **pod_facts(pods),
    }


def _read(cluster: Cluster, view: str = "full") -> tuple[dict, dict[str, list[str]]]:
    fresh, step_id = head(cluster)
    facts, objects = read_objects(cluster, view)
    return {**state_of(cluster, fresh, step_id, view), **facts}, objects


def head(cluster: Cluster) -> tuple[Cluster, int]:
    """The cluster row (its revision) and the newest step id, read before anything else: what a
    snapshot then reads is at least as new."""
    fresh = Cluster.objects.get(pk=cluster.pk)
    step_id = FlowStep.objects.filter(trace__cluster=cluster).aggregate(top=Max("pk"))["top"] or 0
    return fresh, step_id


def read_objects(cluster: Cluster, view: str) -> tuple[dict, dict[str, list[str]]]:
    """The stored objects (their JSON as stored) and the pods' facts: what the revision alone
    decides, and the bulk of a snapshot (cluster/flow/snapshotcache.py shares it)."""
    pod_texts = rows.bodies(cluster.pk, "Pod")
    pods = [json.loads(text) for text in pod_texts]
    if view == "page":
        pod_texts = [json.dumps(podview.summary(pod), separators=(",", ":")) for pod in pods]
    objects = {
        "nodes": rows.bodies(cluster.pk, "Node"),
        "pods": pod_texts,
        "workloads": [text for kind in workload_kinds() for text in rows.bodies(cluster.pk, kind)],
        # The dashboard's Services strip and the flow's endpoints lane.
        "services": _with_builtins(cluster, "Service"),
        "endpoints": _with_builtins(cluster, "Endpoints"),
    }
    return pod_facts(pods), objects


def state_of(cluster: Cluster, fresh: Cluster, step_id: int, view: str) -> dict:
    """What a snapshot holds besides the objects: traces, settings, exec sessions, the queue."""
    return {
        "type": "snapshot",
        "cluster": cluster.name,
        "revision": fresh.revision,
        "step_id": step_id,
        "traces": _traces(cluster, step_id),
        "pace_ms": fresh.pace_ms,
        "step_mode": fresh.step_mode,
        "class_may_write": fresh.class_may_write,
        "stopped_kubelets": fresh.stopped_kubelets or {},  # the teacher's node failures
        "view": view,
        "exec_sessions": execsessions.listing(cluster.name),
        # Pending pods' places in the scheduling queue, from their latest attempts.
        "scheduling": scheduler_app().pending(cluster),
        # The teacher's prediction round, so that a page opened late asks the same question.
        "prediction": prediction.current(cluster)[1],
    }


def to_json(value: object) -> str:
    return json.dumps(value, cls=DjangoJSONEncoder, ensure_ascii=False, separators=(",", ":"))


def objects_fragment(facts: dict, objects: dict[str, list[str]]) -> str:
    """`"pod_status":{…},…,"nodes":[…],…`: the facts and the objects' stored JSON spliced in, to
    follow a state object's other keys."""
    parts = [f"{json.dumps(key)}:{to_json(value)}" for key, value in facts.items()]
    parts += [f'"{key}":[{",".join(texts)}]' for key, texts in objects.items()]
    return ",".join(parts)


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


def pod_facts(pods: list[dict]) -> dict[str, dict]:
    """Every pod's kubectl STATUS, READY and RESTARTS, and summed requests, by "namespace/name"
    (cluster/broadcast/podview.py): the page shows them as they are, never re-deriving them (a
    pod stays Pending until its kubelet reports ContainerCreating; a sidecar's requests count)."""
    status, requests, columns = {}, {}, {}
    for pod in pods:
        key = podview.key(pod)
        status[key], requests[key], columns[key] = podview.facts(pod)
    return {"pod_status": status, "pod_requests": requests, "pod_columns": columns}


TRACE_FIELDS = ("id", "kind", "namespace", "name", "verb", "client", "created_at", "finished_at")
TRACE_FIELDS += ("permits", "gate_step", "causes")


def _traces(cluster: Cluster, step_id: int) -> list[dict]:
    """The recent traces, oldest first, each with a few of its steps as `flow.step` messages.

    A trace of a thousand replicas holds thousands of steps: the page gets its first HEAD_STEPS
    (the workload's own) and its newest TAIL_STEPS, with `steps_total` and `step_counts` (how many
    steps of each number it has), and fetches the others when it shows them (GET …/flow/steps).
    Steps up to `step_id` only: those after it follow on the socket, and are counted there.
    """
    traces = list(
        FlowTrace.objects.filter(cluster=cluster)
        .order_by("-created_at")
        .values(*TRACE_FIELDS)[:RECENT_TRACES]
    )
    steps: dict[str, list[dict]] = {trace["id"]: [] for trace in traces}
    counts: dict[str, dict[str, int]] = {trace_id: {} for trace_id in steps}
    top: dict[str, int] = {}
    grouped = (
        FlowStep.objects.filter(trace__in=list(steps), pk__lte=step_id)
        .order_by()
        .values("trace_id", "step")
        .annotate(n=Count("pk"), last=Max("seq"))
        .values_list("trace_id", "step", "n", "last")
    )
    for trace_id, number, n, last in grouped:
        counts[trace_id][str(number)] = n
        top[trace_id] = max(top.get(trace_id, 0), last)
    window = Q()
    for trace_id, last in top.items():
        # The final ending too (the picker says how the trace ended), wherever it lies.
        edges = Q(seq__lte=HEAD_STEPS) | Q(seq__gt=last - TAIL_STEPS) | Q(step=0, final=True)
        window |= Q(trace_id=trace_id) & edges
    if top:
        rows = FlowStep.objects.filter(window, pk__lte=step_id).order_by("trace_id", "seq")
        for row in rows.values_list(*STEP_FIELDS):
            step = dict(zip(STEP_FIELDS, row, strict=True))
            steps[step["trace_id"]].append(message_of(step, cluster.name))
    out = []
    for trace in reversed(traces):
        found = steps[trace["id"]]
        final = [s for s in found if s["step"] == 0 and s["final"]]
        out.append(
            {
                **trace,
                "created_at": trace["created_at"].isoformat(),
                "finished_at": trace["finished_at"].isoformat() if trace["finished_at"] else None,
                "causes": trace["causes"].split(),
                "steps_total": sum(counts[trace["id"]].values()),
                "step_counts": counts[trace["id"]],
                "steps": found,
                "ending": final[-1] if final else None,
            }
        )
    return out
