"""meta.k8s.io/v1 Tables, computed as the real API server's printers compute them (v1.33).

The API server always prints the wide columns (priority 1) and kubectl hides them unless asked
for `-o wide`; `wide=False` here drops them for the web console's plain `get`. Each row carries
PartialObjectMetadata so that kubectl's `-A` (NAMESPACE column) and `--show-labels` work.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from cluster.apiserver.kinds import kind_info
from cluster.kubeapi.humanize import human_duration, since
from cluster.kubeapi.podstatus import pod_summary
from k8s.selectors import format_label_selector, format_labels

NAME_COLUMN = ("Name", "string", "name", 0)
AGE_COLUMN = ("Age", "string", "", 0)
CONTAINERS_IMAGES_SELECTOR = (
    ("Containers", "string", "", 1),
    ("Images", "string", "", 1),
    ("Selector", "string", "", 1),
)
_REPLICA_COLUMNS = (
    NAME_COLUMN,
    ("Desired", "integer", "", 0),
    ("Current", "integer", "", 0),
    ("Ready", "integer", "", 0),
    AGE_COLUMN,
    *CONTAINERS_IMAGES_SELECTOR,
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


COLUMNS: dict[str, tuple[Column, ...]] = {
    "Pod": (
        NAME_COLUMN,
        ("Ready", "string", "", 0),
        ("Status", "string", "", 0),
        ("Restarts", "string", "", 0),
        AGE_COLUMN,
        ("IP", "string", "", 1),
        ("Node", "string", "", 1),
        ("Nominated Node", "string", "", 1),
        ("Readiness Gates", "string", "", 1),
    ),
    "Node": (
        NAME_COLUMN,
        ("Status", "string", "", 0),
        ("Roles", "string", "", 0),
        AGE_COLUMN,
        ("Version", "string", "", 0),
        ("Internal-IP", "string", "", 1),
        ("External-IP", "string", "", 1),
        ("OS-Image", "string", "", 1),
        ("Kernel-Version", "string", "", 1),
        ("Container-Runtime", "string", "", 1),
    ),
    "ReplicationController": _REPLICA_COLUMNS,
    "ReplicaSet": _REPLICA_COLUMNS,
    "Deployment": (
        NAME_COLUMN,
        ("Ready", "string", "", 0),
        ("Up-to-date", "integer", "", 0),
        ("Available", "integer", "", 0),
        AGE_COLUMN,
        *CONTAINERS_IMAGES_SELECTOR,
    ),
    "Event": (
        ("Last Seen", "string", "", 0),
        ("Type", "string", "", 0),
        ("Reason", "string", "", 0),
        ("Object", "string", "", 0),
        ("Subobject", "string", "", 1),
        ("Source", "string", "", 1),
        ("Message", "string", "", 0),
        ("First Seen", "string", "", 1),
        ("Count", "string", "", 1),
        ("Name", "string", "name", 1),
    ),
    "Namespace": (NAME_COLUMN, ("Status", "string", "", 0), AGE_COLUMN),
    "Lease": (NAME_COLUMN, ("Holder", "string", "", 0), AGE_COLUMN),
}
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
    now = now or datetime.now(UTC)
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


def _rc_row(obj: dict, now: datetime) -> list:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    return [
        obj["metadata"]["name"],
        spec.get("replicas", 1),
        status.get("replicas", 0),
        status.get("readyReplicas", 0),
        age(obj, now),
        *containers_images(spec.get("template")),
        format_labels(spec.get("selector")),
    ]


def _rs_row(obj: dict, now: datetime) -> list:
    row = _rc_row(obj, now)
    row[-1] = format_label_selector((obj.get("spec") or {}).get("selector"))
    return row


def _deployment_row(obj: dict, now: datetime) -> list:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    selector = format_label_selector(spec.get("selector"), empty="")
    return [
        obj["metadata"]["name"],
        f"{status.get('readyReplicas', 0)}/{spec.get('replicas', 1)}",
        status.get("updatedReplicas", 0),
        status.get("availableReplicas", 0),
        age(obj, now),
        *containers_images(spec.get("template")),
        selector,
    ]


def node_roles(node: dict) -> list[str]:
    roles = set()
    for key, value in (node["metadata"].get("labels") or {}).items():
        if key.startswith("node-role.kubernetes.io/") and key != "node-role.kubernetes.io/":
            roles.add(key.removeprefix("node-role.kubernetes.io/"))
        elif key == "kubernetes.io/role" and value:
            roles.add(value)
    return sorted(roles)


def node_status(node: dict) -> str:
    status = []
    for cond in (node.get("status") or {}).get("conditions") or []:
        if cond.get("type") == "Ready":
            status = ["Ready" if cond.get("status") == "True" else "NotReady"]
    status = status or ["Unknown"]
    if (node.get("spec") or {}).get("unschedulable"):
        status.append("SchedulingDisabled")
    return ",".join(status)


def _address(node: dict, kind: str) -> str:
    for address in (node.get("status") or {}).get("addresses") or []:
        if address.get("type") == kind:
            return address.get("address", "")
    return "<none>"


def _node_row(obj: dict, now: datetime) -> list:
    info = (obj.get("status") or {}).get("nodeInfo") or {}
    return [
        obj["metadata"]["name"],
        node_status(obj),
        ",".join(node_roles(obj)) or "<none>",
        age(obj, now),
        info.get("kubeletVersion", ""),
        _address(obj, "InternalIP"),
        _address(obj, "ExternalIP"),
        info.get("osImage") or "<unknown>",
        info.get("kernelVersion") or "<unknown>",
        info.get("containerRuntimeVersion") or "<unknown>",
    ]


def _event_row(obj: dict, now: datetime) -> list:
    first = (
        since(obj.get("firstTimestamp"), now)
        if obj.get("firstTimestamp")
        else since(obj.get("eventTime"), now)
    )
    last = since(obj["lastTimestamp"], now) if obj.get("lastTimestamp") else first
    count = obj.get("count") or 1
    if obj.get("series"):
        last = since(obj["series"].get("lastObservedTime"), now)
        count = obj["series"].get("count", count)
    involved = obj.get("involvedObject") or {}
    kind = (involved.get("kind") or "").lower()
    target = f"{kind}/{involved['name']}" if involved.get("name") else kind
    source = obj.get("source") or {}
    component = source.get("component") or obj.get("reportingController", "")
    host = source.get("host") or obj.get("reportingInstance", "")
    source_text = f"{component}, {host}" if component and host else component
    return [
        last,
        obj.get("type", ""),
        obj.get("reason", ""),
        target,
        involved.get("fieldPath", ""),
        source_text,
        (obj.get("message") or "").strip(),
        first,
        count,
        obj["metadata"]["name"],
    ]


def _namespace_row(obj: dict, now: datetime) -> list:
    phase = (obj.get("status") or {}).get("phase", "")
    return [obj["metadata"]["name"], phase, age(obj, now)]


def _lease_row(obj: dict, now: datetime) -> list:
    holder = (obj.get("spec") or {}).get("holderIdentity") or ""
    return [obj["metadata"]["name"], holder, age(obj, now)]


def _pod_row(obj: dict, now: datetime) -> list:
    s = pod_summary(obj)
    restarts = str(s.restarts)
    if s.restarts and s.last_restart:
        restarts = f"{s.restarts} ({human_duration(now - s.last_restart)} ago)"
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    ips = status.get("podIPs") or ([{"ip": status["podIP"]}] if status.get("podIP") else [])
    gates = spec.get("readinessGates") or []
    gates_text = "<none>"
    if gates:
        true = {c.get("type") for c in status.get("conditions") or [] if c.get("status") == "True"}
        gates_text = f"{sum(1 for g in gates if g.get('conditionType') in true)}/{len(gates)}"
    return [
        obj["metadata"]["name"],
        f"{s.ready}/{s.total}",
        s.reason,
        restarts,
        age(obj, now),
        (ips[0].get("ip") if ips else "") or "<none>",
        spec.get("nodeName") or "<none>",
        status.get("nominatedNodeName") or "<none>",
        gates_text,
    ]


def _pod_conditions(obj: dict) -> list[dict] | None:
    phase = (obj.get("status") or {}).get("phase")
    if phase not in ("Succeeded", "Failed"):
        return None
    message = "The pod has completed successfully." if phase == "Succeeded" else "The pod failed."
    return [{"type": "Completed", "status": "True", "reason": phase, "message": message}]


# The built-in kinds' tables (registered with their kinds in cluster/apiserver/builtin_kinds.py).
POD = TableSpec(COLUMNS["Pod"], _pod_row, _pod_conditions)
NODE = TableSpec(COLUMNS["Node"], _node_row)
REPLICATION_CONTROLLER = TableSpec(COLUMNS["ReplicationController"], _rc_row)
REPLICA_SET = TableSpec(COLUMNS["ReplicaSet"], _rs_row)
DEPLOYMENT = TableSpec(COLUMNS["Deployment"], _deployment_row)
EVENT = TableSpec(COLUMNS["Event"], _event_row)
NAMESPACE = TableSpec(COLUMNS["Namespace"], _namespace_row)
LEASE = TableSpec(COLUMNS["Lease"], _lease_row)
