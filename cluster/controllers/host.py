"""What a workload controller needs from the controller manager that runs it.

The controllers depend on this small Protocol, not on `manager.ControllerManager`, so the
manager imports its controllers and nothing imports back.
"""

from __future__ import annotations

from typing import Protocol

from cluster.apiserver.actor import Actor
from cluster.client.informer import Informer
from cluster.models import Cluster


class ControllerHost(Protocol):
    cluster: Cluster | None
    cluster_name: str
    informer: Informer
    pods_by_owner: dict[str, dict[tuple[str, str], dict]]  # owner uid -> its pods by (namespace, name)
    orphans: dict[tuple[str, str], dict]  # active pods no controller owns
    stepped: set[str]  # traces whose steps 5 and 6 are recorded

    def actor(self, trace_id: str | None, detail: str) -> Actor: ...

    def owned_pods(self, owner: dict) -> list[dict]: ...

    def assume_pod(self, pod: dict) -> None: ...

    def forget_pod(self, pod: dict) -> None: ...

    def assume(self, obj: dict) -> None: ...

    def needs_steps(self, trace_id: str | None, kind: str, namespace: str, name: str) -> bool: ...

    def workloads_changed(self) -> bool: ...

    def requeue(self, kind: str, namespace: str, name: str, trace_id: str | None) -> None: ...
