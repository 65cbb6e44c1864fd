"""The snapshot a browser loads before applying events (websocket on connect, GET …/snapshot)."""

from __future__ import annotations

from django.db.models import Max

from cluster.apiserver import service as api
from cluster.flow.recorder import trace_json
from cluster.models import Cluster, FlowStep, FlowTrace

RECENT_TRACES = 10
WORKLOAD_KINDS = ("ReplicationController", "ReplicaSet", "Deployment")


def build(cluster: Cluster) -> dict:
    """Everything the dashboard draws, at a revision R: events after R follow on the socket.

    R and the newest step id are read first, so the objects are at least as new as R; an event
    the objects already show may follow and is applied again (applying an object is idempotent),
    and a step already in `traces` may follow too (the browser keys steps by trace and seq).
    """
    fresh = Cluster.objects.get(pk=cluster.pk)
    step_id = FlowStep.objects.filter(trace__cluster=cluster).aggregate(top=Max("pk"))["top"] or 0
    nodes, revision = api.list_objects(fresh, "Node")
    revision = min(revision, fresh.revision) if revision else fresh.revision
    pods, _ = api.list_objects(fresh, "Pod")
    workloads = [obj for kind in WORKLOAD_KINDS for obj in api.list_objects(fresh, kind)[0]]
    traces = list(FlowTrace.objects.filter(cluster=cluster).order_by("-created_at")[:RECENT_TRACES])
    steps: dict[str, list[FlowStep]] = {trace.pk: [] for trace in traces}
    for step in FlowStep.objects.filter(trace__in=traces).order_by("trace_id", "seq"):
        steps[step.trace_id].append(step)
    return {
        "type": "snapshot",
        "cluster": cluster.name,
        "revision": revision,
        "step_id": step_id,
        "nodes": nodes,
        "pods": pods,
        "workloads": workloads,
        "traces": [trace_json(trace, cluster.name, steps[trace.pk]) for trace in reversed(traces)],
        "pace_ms": fresh.pace_ms,
        "step_mode": fresh.step_mode,
    }
