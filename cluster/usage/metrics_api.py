"""NodeMetrics and PodMetrics (`metrics.k8s.io/v1beta1`) as metrics-server serves them, from a
Sample of the usage model: their shapes, lists, Tables and not-found errors (metrics-server's
pkg/api/{node,pod,table}.go)."""

from __future__ import annotations

from datetime import datetime

from cluster.usage.model import WINDOW, NodeUsage, PodUsage, Sample
from k8s.quantity import Total

GROUP = "metrics.k8s.io"
VERSION = "v1beta1"
API_VERSION = f"{GROUP}/{VERSION}"

# metrics-server's groupResources for "served, but no metrics": nodemetrics / podmetrics.
NODE_METRICS_RESOURCE = f"nodemetrics.{GROUP}"
POD_METRICS_RESOURCE = f"podmetrics.{GROUP}"


def _time(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def cpu(millicores: float) -> str:
    """Nanocores, as metrics-server reports CPU."""
    return f"{round(millicores * 1_000_000)}n"


def memory(bytes_: int) -> str:
    """Kibibytes, as metrics-server reports memory (the kubelet's working set)."""
    return f"{bytes_ // 1024}Ki"


def node_metrics(node: NodeUsage, sample: Sample, now: datetime) -> dict:
    return {
        "kind": "NodeMetrics",
        "apiVersion": API_VERSION,
        "metadata": {"name": node.name, "creationTimestamp": _time(now), "labels": node.labels},
        "timestamp": _time(sample.timestamp),
        "window": f"{WINDOW}s",
        "usage": {"cpu": cpu(node.millicores), "memory": memory(node.memory)},
    }


def pod_metrics(pod: PodUsage, sample: Sample, now: datetime) -> dict:
    metadata: dict = {"name": pod.name, "namespace": pod.namespace, "creationTimestamp": _time(now)}
    if pod.labels:
        metadata["labels"] = pod.labels
    return {
        "kind": "PodMetrics",
        "apiVersion": API_VERSION,
        "metadata": metadata,
        "timestamp": _time(sample.timestamp),
        "window": f"{WINDOW}s",
        "containers": [
            {"name": c.name, "usage": {"cpu": cpu(c.millicores), "memory": memory(c.memory)}}
            for c in pod.containers
        ],
    }


def metrics_list(kind: str, items: list[dict]) -> dict:
    return {"kind": f"{kind}List", "apiVersion": API_VERSION, "metadata": {}, "items": items}


def _usage_of(obj: dict) -> tuple[str, str]:
    """A node's usage, or the sum of a pod's containers' (Quantity.Add, printed canonically)."""
    usages = [obj["usage"]] if "usage" in obj else [c["usage"] for c in obj["containers"]]
    cpu_total, memory_total = Total(), Total()
    for usage in usages:
        cpu_total.add(usage["cpu"])
        memory_total.add(usage["memory"])
    return str(cpu_total), str(memory_total)


def table(items: list[dict], table_version: str) -> dict:
    """metrics-server's Table: Name, then each resource's sum (sorted: cpu, memory), then Window."""
    rows = []
    for obj in items:
        cpu_cell, memory_cell = _usage_of(obj)
        rows.append(
            {
                "cells": [obj["metadata"]["name"], cpu_cell, memory_cell, obj["window"]],
                "object": {
                    "kind": "PartialObjectMetadata",
                    "apiVersion": "meta.k8s.io/v1",
                    "metadata": obj["metadata"],
                },
            }
        )
    columns = []
    if items:
        columns = [
            {
                "name": "Name",
                "type": "string",
                "format": "name",
                "description": "Name of the resource",
                "priority": 0,
            },
            {"name": "cpu", "type": "string", "format": "quantity", "description": "", "priority": 0},
            {"name": "memory", "type": "string", "format": "quantity", "description": "", "priority": 0},
            {"name": "Window", "type": "string", "format": "duration", "description": "", "priority": 0},
        ]
    return {
        "kind": "Table",
        "apiVersion": f"meta.k8s.io/{table_version}",
        "metadata": {},
        "columnDefinitions": columns,
        "rows": rows,
    }
