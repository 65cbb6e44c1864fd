"""The ReplicaSet controller: the Replication Controller's logic for ReplicaSets (apps/v1)."""

from __future__ import annotations

from cluster.controllers.replication import ReplicationManager
from k8s.labels import SelectorError, label_selector


class ReplicaSetController(ReplicationManager):
    kind = "ReplicaSet"
    title = "ReplicaSet controller"
    event_component = "replicaset-controller"

    def selects(self, owner: dict, labels: dict) -> bool:
        try:
            return label_selector((owner.get("spec") or {}).get("selector"))(labels)
        except SelectorError:
            return False
