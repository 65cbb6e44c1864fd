"""meta.k8s.io/v1 Tables, computed as the real API server's printers compute them (v1.33).

The API server always prints the wide columns (priority 1) and kubectl hides them unless asked
for `-o wide`; `wide=False` here drops them for the web console's plain `get`. Each row carries
PartialObjectMetadata so that kubectl's `-A` (NAMESPACE column) and `--show-labels` work.
Each kind's columns and row are its own (`KindInfo.table`, in `cluster/kinds/<group>/<kind>.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from cluster.apiserver.kinds import kind_info
from cluster.kubeapi.humanize import since
from k8s import clock

NAME_COLUMN = ("Name", "string", "name", 0)
AGE_COLUMN = ("Age", "string", "", 0)
CONTAINERS_IMAGES_SELECTOR = (
    ("Containers", "string", "", 1),
    ("Images", "string", "", 1),
    ("Selector", "string", "", 1),
)
# (name, type, format, priority): priority 1 columns are shown by `-o wide` only.
Column = tuple[str, str, str, int]


@dataclass(frozen=True, slots=True)
class TableSpec:
    """A kind's `kubectl get` table: its columns and the cells of one object's row."""

    columns: tuple[Column, ...]
    row: Callable[[dict, datetime], list]
    # Row conditions the server adds (a finished Pod's Completed condition), or None.
    conditions: Callable[[dict], list[dict] | None] | None = None


_DESCRIPTIONS = {
    "Name": "Name must be unique within a namespace.",
    "Age": "CreationTimestamp is a timestamp representing the server time when this object was created.",
}


def table_spec(kind: str) -> TableSpec | None:
    info = kind_info(kind)
    return info.table if info is not None else None


def column_definitions(kind: str) -> list[dict]:
    return [
        {"name": n, "type": t, "format": f, "description": _DESCRIPTIONS.get(n, n), "priority": p}
        for n, t, f, p in table_spec(kind).columns
    ]


def partial_metadata(obj: dict) -> dict:
    return {
        "kind": "PartialObjectMetadata",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": obj.get("metadata", {}),
    }


def to_table(
    kind: str,
    objects: list[dict],
    wide: bool = True,
    resource_version: str = "",
    include_object: str = "Metadata",
    now: datetime | None = None,
) -> dict:
    """A meta.k8s.io/v1 Table of `objects` of one kind, with the real API server's columns.

    include_object is the `includeObject` query parameter: None, Metadata (default) or Object.
    """
    now = now or clock.now()
    spec = table_spec(kind)
    keep = [i for i, c in enumerate(spec.columns) if wide or c[3] == 0]
    rows = []
    for obj in objects:
        cells = spec.row(obj, now)
        row: dict = {"cells": [cells[i] for i in keep]}
        if include_object == "Object":
            row["object"] = obj
        elif include_object != "None":
            row["object"] = partial_metadata(obj)
        if spec.conditions is not None and (conditions := spec.conditions(obj)):
            row["conditions"] = conditions
        rows.append(row)
    return {
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": {"resourceVersion": resource_version} if resource_version else {},
        "columnDefinitions": [column_definitions(kind)[i] for i in keep],
        "rows": rows,
    }


def age(obj: dict, now: datetime) -> str:
    """kubectl's AGE cell."""
    return since(obj["metadata"].get("creationTimestamp"), now)


def containers_images(template: dict | None) -> list[str]:
    containers = ((template or {}).get("spec") or {}).get("containers") or []
    return [",".join(c.get("name", "") for c in containers), ",".join(c.get("image", "") for c in containers)]
