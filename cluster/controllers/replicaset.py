"""The ReplicaSet controller: the Replication Controller's logic for ReplicaSets (apps/v1)."""

from __future__ import annotations

from cluster.controllers.replication import ReplicationManager


class ReplicaSetController(ReplicationManager):
    kind = "ReplicaSet"
    title = "ReplicaSet controller"
    event_component = "replicaset-controller"
