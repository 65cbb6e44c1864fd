"""Who is calling the API server: for the flow's steps and for Events' source."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from cluster.flow.writers import REQUEST, Writes
from cluster.models import FlowTrace


@dataclass(slots=True)
class Actor:
    client: str  # kubectl | web | upload | api | controller-manager | scheduler | kubelet
    detail: str = ""  # e.g. the User-Agent "kubectl/v1.33.1 (linux/amd64)", or "web form"
    trace: FlowTrace | None = None  # the trace this write belongs to (components pass their object's)
    node: str = ""  # the kubelet's node
    # Who, in kubectl's words, and why: a controller that deletes a pod says so, and the pod's
    # trace ends with it ("replicationcontroller/nginx", (english, chinese)).
    by: str = ""
    reason: tuple[str, str] | None = None
    # The subresource the write came through ("eviction": a delete the Eviction API made), so
    # the flow tells what was really sent.
    subresource: str = ""
    # The trace a write follows from without belonging to it (a preemption's deletion of a victim:
    # the preemptor's), so the story it starts links back.
    cause: str = ""
    # What the eviction's budget check found, for the flow's step 3: ("none",), ("ignored",
    # phase-or-"Terminating"), ("spent", budget, disruptions left), ("spare", budget).
    budget: tuple[str, ...] | None = None
    # What this writer's writes record in the flow (cluster/flow/writers.py), called by the store
    # inside each write: a user's request (steps 1–4) unless the writer is a component that
    # carries its own (the controller manager's, the scheduler's, the kubelet's, or COMPONENT).
    flow: Writes = REQUEST
    # The request's field manager (its fieldManager, else its User-Agent's product): whose
    # fields a write sets, in metadata.managedFields. Empty: the component's own name.
    field_manager: str = ""
    # The writer's RBAC escalation check (cluster/auth/escalation.py), called on every admitted
    # write as fn(cluster, verb, kind, body); None for the components, which grant nothing.
    grants: Callable[..., None] | None = None

    @property
    def manager(self) -> str:
        if self.field_manager:
            return self.field_manager
        return _COMPONENT_MANAGERS.get(self.client, self.client)


# The User-Agent products of the components, as their managedFields entries name them.
_COMPONENT_MANAGERS = {
    "controller-manager": "kube-controller-manager",
    "scheduler": "kube-scheduler",
    "kubelet": "kubelet",
    "kube-apiserver": "kube-apiserver",
    "web": "kubesim",
    "upload": "kubesim",
    "api": "kubesim",
    "kubectl": "kubectl",
}
