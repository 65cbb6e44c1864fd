"""What the controller manager's writes record in the flow: a pod it creates lands (step 7, and
step 8 at once when neither a pace nor step mode holds it: cluster/flow/podevent.py).

Its workload controllers' actor carries `CONTROLLER_MANAGER` (ControllerManager.actor); the
API server's bookkeeping and the trace the write follows are every writer's (cluster/flow/writers.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cluster.flow import gate, texts
from cluster.flow.recorder import StepSpec, record_steps
from cluster.flow.writers import Writes
from cluster.models import Cluster, FlowTrace

if TYPE_CHECKING:
    from cluster.apiserver.actor import Actor


class PodCreations(Writes):
    def own(self, cluster: Cluster, verb: str, row, event, actor: Actor) -> FlowTrace | None:
        trace = super().own(cluster, verb, row, event, actor)
        if actor.trace is None or row.kind != "Pod" or event.type != "ADDED":
            return trace
        stored, sent = texts.pod_stored(event.object, event)
        obj, revision = ("Pod", row.namespace, row.name), event.revision
        specs = [StepSpec(7, *stored, obj, revision=revision)]
        if gate.is_open_now(cluster.name):
            specs.append(StepSpec(8, *sent, obj, revision=revision))
        record_steps(trace, specs, cluster)
        return trace


CONTROLLER_MANAGER = PodCreations()
