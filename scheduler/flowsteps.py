"""What the scheduler's writes record in the flow: a binding lands (step 11); a preemption's
deletion of a victim starts the victim's story (verb preempt, linked to the preemptor's trace).

The scheduler's actor carries `SCHEDULER`, the one that deletes victims `PREEMPTION`; the API
server's bookkeeping and the trace a write follows are every writer's (cluster/flow/writers.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cluster.flow import texts
from cluster.flow.recorder import record_step
from cluster.flow.writers import Writes
from cluster.models import Cluster, FlowTrace

if TYPE_CHECKING:
    from cluster.apiserver.actor import Actor


class Bindings(Writes):
    def own(self, cluster: Cluster, verb: str, row, event, actor: Actor) -> FlowTrace | None:
        trace = super().own(cluster, verb, row, event, actor)
        if actor.trace is None or row.kind != "Pod" or verb != "bind":
            return trace
        pod = event.object
        en, zh = texts.binding_landed(pod, event)
        record_step(
            trace,
            11,
            detail_en=en,
            detail_zh=zh,
            obj=("Pod", row.namespace, row.name),
            node=(pod.get("spec") or {}).get("nodeName", ""),
            revision=event.revision,
            locked=cluster,
        )
        return trace


class Preemptions(Bindings):
    def deletion_story(self, event, actor: Actor) -> str:
        return "preempt"


SCHEDULER = Bindings()
PREEMPTION = Preemptions()
