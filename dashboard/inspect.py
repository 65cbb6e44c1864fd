"""Describe and Events text for the inspector, exactly as kubectl prints them."""

from __future__ import annotations

from cluster.apiserver import service as api
from cluster.kubeapi import tables
from cluster.models import Cluster
from dashboard.console.describe import describe_object
from dashboard.console.parser import UsageError, resource_for
from dashboard.console.printer import table_rows, tabwrite
from dashboard.console.result import server_error


def describe_text(cluster: Cluster, kind: str, namespace: str, name: str) -> tuple[str, int]:
    try:
        res = resource_for(kind)
        return describe_object(cluster, res.kind, namespace, name), 200
    except UsageError as exc:
        return str(exc) + "\n", 400
    except api.ApiError as exc:
        return server_error(exc), exc.code


def events_text(cluster: Cluster, kind: str, namespace: str, name: str) -> tuple[str, int]:
    """`kubectl get events --field-selector involvedObject.kind=K,involvedObject.name=N,
    involvedObject.uid=U`: the events of this object, not of an earlier one with its name."""
    try:
        res = resource_for(kind)
        obj = api.get(cluster, res.kind, namespace, name)
        selector = f"involvedObject.kind={res.kind},involvedObject.name={name}"
        uid = obj["metadata"].get("uid")
        if uid and res.kind != "Node":  # the kubelet names a node's events by the node's name
            selector += f",involvedObject.uid={uid}"
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
