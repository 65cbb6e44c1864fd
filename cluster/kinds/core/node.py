"""Nodes (core/v1, `nodes`, short name `no`, cluster-scoped): upstream `pkg/registry/core/node`,
ValidateNode's taints, the Node printer and `kubectl describe node`."""

from __future__ import annotations

from datetime import datetime

from cluster.apiserver.fielderrors import FieldErrors, label_value_errors
from cluster.apiserver.kinds import KindInfo, status_subresource
from cluster.apiserver.validation import resource_list
from cluster.kinds.core.podspec import TAINT_EFFECTS
from cluster.kubeapi.describe import events_of, go_time, rfc_time, with_events
from cluster.kubeapi.describe_parts import (
    annotations_multiline,
    labels_multiline,
    node_resources,
    taints_multiline,
)
from cluster.kubeapi.tables import AGE_COLUMN, NAME_COLUMN, TableSpec, age
from k8s import clock
from k8s.quantity import format_quantity


def defaults(obj: dict) -> None:
    obj.setdefault("spec", {})
    obj.setdefault("status", {})


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    spec = obj.get("spec") or {}
    taints = spec.get("taints") if isinstance(spec, dict) else None
    if isinstance(taints, list):
        seen = set()
        for i, taint in enumerate(taints):
            where = f"spec.taints[{i}]"
            if not isinstance(taint, dict):
                errors.type_error(where, taint, "an object")
                continue
            if not taint.get("key"):
                errors.required(f"{where}.key")
            else:
                errors.label_key(f"{where}.key", taint["key"])
            value = taint.get("value")
            if isinstance(value, str) and label_value_errors(value):
                errors.invalid(f"{where}.value", value, ";".join(label_value_errors(value)))
            if taint.get("effect") not in TAINT_EFFECTS:
                errors.not_supported(f"{where}.effect", taint.get("effect", ""), TAINT_EFFECTS)
            pair = (taint.get("key"), taint.get("effect"))
            if pair in seen:
                errors.duplicate(where, f"{pair[0]}:{pair[1]}")
            seen.add(pair)
    status = obj.get("status") or {}
    if isinstance(status, dict):
        resource_list(errors, "status.capacity", status.get("capacity"))
        resource_list(errors, "status.allocatable", status.get("allocatable"))


# -- kubectl get ----------------------------------------------------------------------------------
COLUMNS = (
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
)


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


def _row(obj: dict, now: datetime) -> list:
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


TABLE = TableSpec(COLUMNS, _row)


# -- kubectl describe -----------------------------------------------------------------------------
def describe_node(
    node: dict, pods: list[dict], events: list[dict], lease: dict | None, now: datetime | None = None
) -> str:
    now = now or clock.now()
    meta, spec, status = node.get("metadata") or {}, node.get("spec") or {}, node.get("status") or {}
    w = [f"Name:\t{meta.get('name', '')}", f"Roles:\t{','.join(node_roles(node)) or '<none>'}"]
    w += labels_multiline("Labels", meta.get("labels"))
    w += annotations_multiline("Annotations", meta.get("annotations"))
    w.append(f"CreationTimestamp:\t{rfc_time(meta.get('creationTimestamp'))}")
    w += taints_multiline(spec.get("taints"))
    w.append(f"Unschedulable:\t{'true' if spec.get('unschedulable') else 'false'}")
    if lease is None:
        name = meta.get("name", "")
        w.append(f'Lease:\tFailed to get lease: leases.coordination.k8s.io "{name}" not found')
    else:
        lease_spec = lease.get("spec") or {}
        w += [
            "Lease:",
            f"  HolderIdentity:\t{lease_spec.get('holderIdentity') or '<unset>'}",
            f"  AcquireTime:\t{rfc_time(lease_spec.get('acquireTime'))}",
            f"  RenewTime:\t{rfc_time(lease_spec.get('renewTime'))}",
        ]
    if status.get("conditions"):
        w.append("Conditions:\n  Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\tReason\tMessage")
        w.append("  ----\t------\t-----------------\t------------------\t------\t-------")
        for c in status["conditions"]:
            heartbeat, transition = (
                go_time(c.get("lastHeartbeatTime")),
                go_time(c.get("lastTransitionTime")),
            )
            w.append(
                f"  {c.get('type')} \t{c.get('status')} \t{heartbeat} \t{transition} \t"
                f"{c.get('reason', '')} \t{c.get('message', '')}"
            )
    w.append("Addresses:")
    w += [f"  {a.get('type')}:\t{a.get('address')}" for a in status.get("addresses") or []]
    for title in ("capacity", "allocatable"):
        if status.get(title):
            w.append(f"{title.capitalize()}:")
            w += [f"  {k}:\t{format_quantity(v)}" for k, v in sorted(status[title].items())]
    info = status.get("nodeInfo") or {}
    w.append("System Info:")
    for label, key in _SYSTEM_INFO:
        w.append(f"  {label}:\t{info.get(key, '')}")
    if spec.get("podCIDR"):
        w.append(f"PodCIDR:\t{spec['podCIDR']}")
    if spec.get("podCIDRs"):
        w.append(f"PodCIDRs:\t{','.join(spec['podCIDRs'])}")
    if spec.get("providerID"):
        w.append(f"ProviderID:\t{spec['providerID']}")
    w += node_resources(node, pods, now)
    return with_events(w, events, now)


_SYSTEM_INFO = (
    ("Machine ID", "machineID"),
    ("System UUID", "systemUUID"),
    ("Boot ID", "bootID"),
    ("Kernel Version", "kernelVersion"),
    ("OS Image", "osImage"),
    ("Operating System", "operatingSystem"),
    ("Architecture", "architecture"),
    ("Container Runtime Version", "containerRuntimeVersion"),
    ("Kubelet Version", "kubeletVersion"),
    ("Kube-Proxy Version", "kubeProxyVersion"),
)


def describe(read, namespace: str, name: str) -> str:
    node = read.get("Node", None, name)
    pods = read.list("Pod", None, field_selector=f"spec.nodeName={name}")
    running = [p for p in pods if (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")]
    lease = read.find("Lease", "kube-node-lease", name)
    return describe_node(node, running, events_of(read, node), lease)


KIND = KindInfo(
    kind="Node",
    plural="nodes",
    singular="node",
    group="",
    version="v1",
    namespaced=False,
    short_names=("no",),
    subresources=(status_subresource("Node"),),
    field_selectors=("spec.unschedulable",),
    reset_rank=60,
    defaults=defaults,
    validate=validate,
    table=TABLE,
    describe=describe,
)
