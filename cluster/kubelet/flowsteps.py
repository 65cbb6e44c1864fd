"""What the kubelet's writes record in the flow: its report of a pod's status lands (step 13),
failed when the pod cannot run as it stands (the kubelet retries it off-trace).

The kubelet's actor carries `KUBELET`; the API server's bookkeeping and the trace a write follows
are every writer's (cluster/flow/writers.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cluster.flow import texts
from cluster.flow.recorder import record_step
from cluster.flow.writers import Writes
from cluster.models import Cluster, FlowTrace

if TYPE_CHECKING:
    from cluster.apiserver.actor import Actor

FAILED_REASONS = frozenset(
    {"ErrImagePull", "ImagePullBackOff", "InvalidImageName", "CrashLoopBackOff", "CreateContainerConfigError"}
)


class StatusReports(Writes):
    def own(self, cluster: Cluster, verb: str, row, event, actor: Actor) -> FlowTrace | None:
        trace = super().own(cluster, verb, row, event, actor)
        if actor.trace is None or row.kind != "Pod" or verb != "status":
            return trace
        pod = event.object
        en, zh = texts.status_stored(pod, event, actor.node)
        record_step(
            trace,
            13,
            detail_en=en,
            detail_zh=zh,
            obj=("Pod", row.namespace, row.name),
            node=actor.node,
            revision=event.revision,
            locked=cluster,
            outcome="failed" if _failed(pod) else "",
        )
        return trace


def _failed(pod: dict) -> bool:
    status = pod.get("status") or {}
    if status.get("phase") == "Failed":
        return True
    for container in status.get("containerStatuses") or []:
        if ((container.get("state") or {}).get("waiting") or {}).get("reason") in FAILED_REASONS:
            return True
    return False


KUBELET = StatusReports()
