"""`kubectl describe`, through the kind's describe hook in the kind registry."""

from __future__ import annotations

import yaml

from cluster.apiserver import service as api
from cluster.apiserver.kinds import kind_info
from cluster.client import leader
from cluster.models import Cluster
from dashboard.console.printer import without_managed_fields


class ClusterReader:
    """The describe hooks' reads (cluster.kubeapi.describe.Reader), through the API server."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster

    def get(self, kind: str, namespace: str | None, name: str) -> dict:
        return api.get(self.cluster, kind, namespace, name)

    def find(self, kind: str, namespace: str | None, name: str) -> dict | None:
        try:
            return api.get(self.cluster, kind, namespace, name)
        except api.ApiError:
            return None

    def list(self, kind: str, namespace: str | None, field_selector: str = "") -> list[dict]:
        return api.list_objects(self.cluster, kind, namespace, field_selector=field_selector, served=True)[0]


def describe_object(cluster: Cluster, kind: str, namespace: str, name: str) -> str:
    """kubectl describe through the kind's describe hook; a YAML-only kind shows its stored YAML."""
    info = kind_info(kind)
    if kind == "Lease":
        leader.show_renewal(cluster, namespace)  # renewTime as the holder last renewed it
    if info is not None and callable(info.describe):
        return info.describe(ClusterReader(cluster), namespace, name)
    obj = without_managed_fields(api.get(cluster, kind, namespace, name))
    return yaml.safe_dump(obj, sort_keys=False, allow_unicode=True, default_flow_style=False)
