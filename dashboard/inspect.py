"""Describe and Events text for the inspector, exactly as kubectl prints them (F's code)."""

from __future__ import annotations

import yaml

from cluster.apiserver import service as api
from cluster.apiserver.kinds import kind_info
from cluster.kubeapi import tables
from cluster.models import Cluster
from dashboard.console import server_error
from dashboard.console.parser import UsageError, resource_for
from dashboard.console.printer import table_rows, tabwrite


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
        return api.list_objects(self.cluster, kind, namespace, field_selector=field_selector)[0]


def describe_object(cluster: Cluster, kind: str, namespace: str, name: str) -> str:
    """kubectl describe through the kind's describe hook; a YAML-only kind shows its stored YAML."""
    info = kind_info(kind)
    if info is not None and callable(info.describe):
        return info.describe(ClusterReader(cluster), namespace, name)
    obj = api.get(cluster, kind, namespace, name)
    return yaml.safe_dump(obj, sort_keys=False, allow_unicode=True, default_flow_style=False)


def describe_text(cluster: Cluster, kind: str, namespace: str, name: str) -> tuple[str, int]:
    try:
        res = resource_for(kind)
        return describe_object(cluster, res.kind, namespace, name), 200
    except UsageError as exc:
        return str(exc) + "\n", 400
    except api.ApiError as exc:
        return server_error(exc), exc.code


def events_text(cluster: Cluster, kind: str, namespace: str, name: str) -> tuple[str, int]:
    """`kubectl get events --field-selector involvedObject.kind=K,involvedObject.name=N`."""
    try:
        res = resource_for(kind)
        selector = f"involvedObject.kind={res.kind},involvedObject.name={name}"
        items, _revision = api.list_objects(
            cluster, "Event", namespace=namespace or None, field_selector=selector
        )
    except UsageError as exc:
        return str(exc) + "\n", 400
    except api.ApiError as exc:
        return server_error(exc), exc.code
    if not items:
        where = f" in {namespace} namespace" if namespace else ""
        return f"No resources found{where}.\n", 200
    return tabwrite(table_rows(tables.to_table("Event", items))), 200
