"""Step 8 as a step of its own: etcd's Create event for a controller's pod reaches the watchers.

At pace 0 outside step mode nobody could see steps 7 and 8 apart, so the API server records both
with the pod's write. With a pace or in step mode, one "next" must be exactly one step: the API
server records step 7 only, and the scheduler, which receives the event, records step 8 after
its own wait at the gate, before it starts on step 9.
"""

from __future__ import annotations

from types import SimpleNamespace

from cluster.flow import texts
from cluster.flow.recorder import record_step
from cluster.models import FlowStep


def pending(trace_id: str, namespace: str, name: str) -> int | None:
    """The revision of the pod's step 7 when its step 8 is still to come, else None."""
    found = dict(
        FlowStep.objects.filter(
            trace_id=trace_id,
            object_kind="Pod",
            object_namespace=namespace,
            object_name=name,
            step__in=(7, 8),
        ).values_list("step", "revision")
    )
    return found[7] if 7 in found and 8 not in found else None


def record(trace_id: str, pod: dict, revision: int) -> None:
    meta = pod["metadata"]
    _, (en, zh) = texts.pod_stored(pod, SimpleNamespace(revision=revision))
    obj = ("Pod", meta.get("namespace") or "", meta["name"])
    record_step(trace_id, 8, detail_en=en, detail_zh=zh, obj=obj, revision=revision)


def pending_any(trace_id: str, pods: list[dict]) -> bool:
    """Whether any of the trace's `pods` has its step 8 still to come."""
    keys = [(pod["metadata"].get("namespace") or "", pod["metadata"]["name"]) for pod in pods]
    return any(pending(trace_id, namespace, name) is not None for namespace, name in keys)


def record_all(trace_id: str, pods: list[dict]) -> None:
    """Step 8 of each of `pods` that has it still to come: the Create events reach the scheduler
    together (one step of the story for a workload's replicas)."""
    for pod in pods:
        meta = pod["metadata"]
        revision = pending(trace_id, meta.get("namespace") or "", meta["name"])
        if revision is not None:
            record(trace_id, pod, revision)
