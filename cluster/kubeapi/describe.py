"""`kubectl describe pod` and `describe node`, in kubectl's layout (k8s.io/kubectl describe.go).

Real kubectl builds this text client-side from GETs; the web console prints this module's output,
and the kubectl tests compare the two. Lines are written with tabs exactly as kubectl writes them
and aligned by a copy of Go's tabwriter, so columns line up the same way.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Protocol

from cluster.kubeapi.describe_parts import (
    RFC1123Z,
    annotations_multiline,
    containers,
    events_section,
    labels_multiline,
    node_resources,
    qos_class,
    taints_multiline,
    tolerations_multiline,
    topology_spread,
    volumes,
)
from cluster.kubeapi.humanize import human_duration, parse_time
from cluster.kubeapi.tables import node_roles
from cluster.kubeapi.tabwriter import tabwrite
from k8s.quantities import format_quantity


def _time(value: str | None) -> str:
    parsed = parse_time(value)
    return parsed.strftime(RFC1123Z) if parsed else "<unset>"


def describe_pod(pod: dict, events: list[dict], now: datetime | None = None) -> str:
    now = now or datetime.now(UTC)
    meta, spec, status = pod.get("metadata") or {}, pod.get("spec") or {}, pod.get("status") or {}
    w = [f"Name:\t{meta.get('name', '')}", f"Namespace:\t{meta.get('namespace', '')}"]
    if spec.get("priority") is not None:
        w.append(f"Priority:\t{spec['priority']}")
    if spec.get("priorityClassName"):
        w.append(f"Priority Class Name:\t{spec['priorityClassName']}")
    if spec.get("runtimeClassName"):
        w.append(f"Runtime Class Name:\t{spec['runtimeClassName']}")
    if spec.get("serviceAccountName"):
        w.append(f"Service Account:\t{spec['serviceAccountName']}")
    node = spec.get("nodeName")
    w.append(f"Node:\t{node}/{status.get('hostIP', '')}" if node else "Node:\t<none>")
    if status.get("startTime"):
        w.append(f"Start Time:\t{_time(status['startTime'])}")
    w += labels_multiline("Labels", meta.get("labels"))
    w += annotations_multiline("Annotations", meta.get("annotations"))
    phase = status.get("phase", "")
    if meta.get("deletionTimestamp") and phase not in ("Failed", "Succeeded"):
        left = parse_time(meta["deletionTimestamp"])
        w.append(f"Status:\tTerminating (lasts {human_duration(left - now) if left else '<unknown>'})")
        w.append(f"Termination Grace Period:\t{meta.get('deletionGracePeriodSeconds', 30)}s")
    else:
        w.append(f"Status:\t{phase}")
    if status.get("reason"):
        w.append(f"Reason:\t{status['reason']}")
    if status.get("message"):
        w.append(f"Message:\t{status['message']}")
    w.append(f"IP:\t{status.get('podIP', '')}")
    ips = status.get("podIPs") or []
    w += ["IPs:", *(f"  IP:\t{ip.get('ip', '')}" for ip in ips)] if ips else ["IPs:\t<none>"]
    owner = next((o for o in meta.get("ownerReferences") or [] if o.get("controller")), None)
    if owner:
        w.append(f"Controlled By:\t{owner.get('kind')}/{owner.get('name')}")
    if status.get("nominatedNodeName"):
        w.append(f"NominatedNodeName:\t{status['nominatedNodeName']}")
    if spec.get("initContainers"):
        w += containers("Init Containers", spec["initContainers"], status.get("initContainerStatuses"))
    w += containers("Containers", spec.get("containers") or [], status.get("containerStatuses"))
    if status.get("conditions"):
        w += ["Conditions:", "  Type\tStatus"]
        w += [f"  {c.get('type')} \t{c.get('status')} " for c in status["conditions"]]
    w += volumes(spec.get("volumes"))
    w.append(f"QoS Class:\t{status.get('qosClass') or qos_class(pod)}")
    w += labels_multiline("Node-Selectors", spec.get("nodeSelector"))
    w += tolerations_multiline(spec.get("tolerations"))
    w += topology_spread(spec.get("topologySpreadConstraints"))
    return _with_events(w, events, now)


def describe_node(
    node: dict, pods: list[dict], events: list[dict], lease: dict | None, now: datetime | None = None
) -> str:
    now = now or datetime.now(UTC)
    meta, spec, status = node.get("metadata") or {}, node.get("spec") or {}, node.get("status") or {}
    w = [f"Name:\t{meta.get('name', '')}", f"Roles:\t{','.join(node_roles(node)) or '<none>'}"]
    w += labels_multiline("Labels", meta.get("labels"))
    w += annotations_multiline("Annotations", meta.get("annotations"))
    w.append(f"CreationTimestamp:\t{_time(meta.get('creationTimestamp'))}")
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
            f"  AcquireTime:\t{_time(lease_spec.get('acquireTime'))}",
            f"  RenewTime:\t{_time(lease_spec.get('renewTime'))}",
        ]
    if status.get("conditions"):
        w.append("Conditions:\n  Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\tReason\tMessage")
        w.append("  ----\t------\t-----------------\t------------------\t------\t-------")
        for c in status["conditions"]:
            heartbeat, transition = (
                _go_time(c.get("lastHeartbeatTime")),
                _go_time(c.get("lastTransitionTime")),
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
    return _with_events(w, events, now)


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


def _with_events(lines: list[str], events: list[dict], now: datetime) -> str:
    """kubectl flushes its tabwriter before an events table, not before "Events: <none>"."""
    if not events:
        return tabwrite("\n".join([*lines, *events_section(events, now)]) + "\n")
    return tabwrite("\n".join(lines) + "\n") + tabwrite("\n".join(events_section(events, now)) + "\n")


def _go_time(value: str | None) -> str:
    """A metav1.Time formatted by Go: the zero time when unset, as kubectl prints it."""
    parsed = parse_time(value)
    return parsed.strftime(RFC1123Z) if parsed else "Mon, 01 Jan 0001 00:00:00 +0000"


def _involves(event: dict, kind: str, name: str, namespace: str = "") -> bool:
    ref = event.get("involvedObject") or {}
    if ref.get("kind") != kind or ref.get("name") != name:
        return False
    return not namespace or ref.get("namespace", namespace) == namespace


class Reader(Protocol):
    """What describe reads, through the API server: the caller binds it to one cluster."""

    def get(self, kind: str, namespace: str | None, name: str) -> dict:
        """The object; raises the API server's NotFound error when there is none."""

    def find(self, kind: str, namespace: str | None, name: str) -> dict | None:
        """The object, or None when there is none."""

    def list(self, kind: str, namespace: str | None, field_selector: str = "") -> list[dict]: ...


def describe_pod_of(read: Reader, namespace: str, name: str) -> str:
    """The Pod describe hook: the pod and the events that involve it."""
    pod = read.get("Pod", namespace or "default", name)
    events = read.list("Event", pod["metadata"].get("namespace"))
    return describe_pod(
        pod, [e for e in events if _involves(e, "Pod", name, pod["metadata"].get("namespace", ""))]
    )


def describe_node_of(read: Reader, namespace: str, name: str) -> str:
    """The Node describe hook: the node, its non-terminated pods, its events and its lease."""
    node = read.get("Node", None, name)
    pods = read.list("Pod", None, field_selector=f"spec.nodeName={name}")
    running = [p for p in pods if (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")]
    events = [e for e in read.list("Event", None) if _involves(e, "Node", name)]
    return describe_node(node, running, events, read.find("Lease", "kube-node-lease", name))
