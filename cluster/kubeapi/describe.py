"""`kubectl describe pod` and `describe node`, in kubectl's layout (k8s.io/kubectl describe.go).

Real kubectl builds this text client-side from GETs; the web console prints this module's output,
and the kubectl tests compare the two. Lines are written with tabs exactly as kubectl writes them
and aligned by a copy of Go's tabwriter, so columns line up the same way.
"""

from __future__ import annotations

from datetime import UTC, datetime

from cluster.kubeapi import describe_workloads as workloads
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


def _involves(event: dict, obj: dict) -> bool:
    """searchEvents: the events whose involvedObject is this object, by kind, name, namespace and
    uid, so an earlier object of the same name is not mixed in. The kubelet names a node's events
    by the node's name as uid, and kubectl searches both."""
    ref = event.get("involvedObject") or {}
    meta = obj.get("metadata") or {}
    if ref.get("kind") != obj.get("kind") or ref.get("name") != meta.get("name"):
        return False
    if (ref.get("namespace") or "") != (meta.get("namespace") or ""):
        return False
    uids = {meta.get("uid")} | ({meta.get("name")} if obj.get("kind") == "Node" else set())
    return ref.get("uid") in uids


def events_of(cluster, obj: dict) -> list[dict]:
    from cluster.apiserver import service as api

    namespace = (obj.get("metadata") or {}).get("namespace") or None
    events, _ = api.list_objects(cluster, "Event", namespace)
    return [e for e in events if _involves(e, obj)]


def describe(cluster, kind: str, namespace: str | None, name: str) -> str:
    """Describe an object of `cluster` the way kubectl would, reading through the API server."""
    from cluster.apiserver import service as api
    from cluster.apiserver.errors import ApiError

    if kind == "Pod":
        pod = api.get(cluster, "Pod", namespace or "default", name)
        return describe_pod(pod, events_of(cluster, pod))
    if kind == "Node":
        node = api.get(cluster, "Node", None, name)
        pods, _ = api.list_objects(cluster, "Pod", None, field_selector=f"spec.nodeName={name}")
        running = [p for p in pods if (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")]
        try:
            lease = api.get(cluster, "Lease", "kube-node-lease", name)
        except ApiError:
            lease = None
        return describe_node(node, running, events_of(cluster, node), lease)
    if kind in ("ReplicationController", "ReplicaSet"):
        owner = api.get(cluster, kind, namespace or "default", name)
        pods = _owned(cluster, "Pod", owner)
        lines = (
            workloads.describe_replication_controller(owner, pods)
            if kind == "ReplicationController"
            else workloads.describe_replica_set(owner, pods)
        )
        return _with_events(lines, events_of(cluster, owner), datetime.now(UTC))
    if kind == "Deployment":
        deployment = api.get(cluster, kind, namespace or "default", name)
        sets = _owned(cluster, "ReplicaSet", deployment)
        revision = _revision(deployment)
        new = next((rs for rs in sets if revision and _revision(rs) == revision), None)
        old = [rs for rs in sets if rs is not new and (rs.get("spec") or {}).get("replicas")]
        lines = workloads.describe_deployment(deployment, old, new)
        return _with_events(lines, events_of(cluster, deployment), datetime.now(UTC))
    if kind == "Namespace":
        return workloads.describe_namespace(api.get(cluster, "Namespace", None, name))
    obj = api.get(cluster, kind, namespace, name)
    return _with_events(workloads.describe_generic(obj), events_of(cluster, obj), datetime.now(UTC))


def _revision(obj: dict) -> str:
    return ((obj.get("metadata") or {}).get("annotations") or {}).get("deployment.kubernetes.io/revision", "")


def _owned(cluster, kind: str, owner: dict) -> list[dict]:
    """The objects of `kind` the owner controls (getPodStatusForController filters by owner uid)."""
    from cluster.apiserver import service as api

    meta = owner["metadata"]
    items, _ = api.list_objects(cluster, kind, meta.get("namespace"))
    return [
        item
        for item in items
        if any(
            ref.get("uid") == meta.get("uid") and ref.get("controller")
            for ref in (item.get("metadata") or {}).get("ownerReferences") or []
        )
    ]


def describer(kind: str):
    """The registry's describe hook for a built-in kind: kubectl's layout, read through `read`'s
    cluster (dashboard.console.describe.ClusterReader)."""

    def describe_hook(read, namespace: str, name: str) -> str:
        return describe(read.cluster, kind, namespace, name)

    describe_hook.__name__ = f"describe_{kind.lower()}"
    return describe_hook
