"""Small builders for Kubernetes objects in engine tests (like upstream's st.MakePod / st.MakeNode)."""

from __future__ import annotations

from scheduler.engine.cycle import schedule
from scheduler.engine.decision import Decision
from scheduler.engine.framework import CycleState
from scheduler.engine.podinfo import PodInfo
from scheduler.engine.profile import Profile
from scheduler.engine.snapshot import Snapshot


def make_node(
    name: str,
    *,
    labels: dict | None = None,
    allocatable: dict | None = None,
    taints: list | None = None,
    unschedulable: bool = False,
    images: list | None = None,
) -> dict:
    spec: dict = {}
    if taints:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    status: dict = {"allocatable": dict(allocatable or {}), "capacity": dict(allocatable or {})}
    if images:
        status["images"] = images
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": dict(labels or {})},
        "spec": spec,
        "status": status,
    }


def container(
    name: str = "c",
    *,
    image: str = "nginx",
    requests: dict | None = None,
    ports: list | None = None,
    restart_policy: str | None = None,
) -> dict:
    c: dict = {"name": name, "image": image}
    if requests is not None:
        c["resources"] = {"requests": dict(requests)}
    if ports:
        c["ports"] = ports
    if restart_policy:
        c["restartPolicy"] = restart_policy
    return c


def make_pod(
    name: str = "p",
    *,
    namespace: str = "default",
    labels: dict | None = None,
    node_name: str = "",
    containers: list | None = None,
    init_containers: list | None = None,
    **spec_fields,
) -> dict:
    spec: dict = {"containers": containers if containers is not None else [container()]}
    if init_containers:
        spec["initContainers"] = init_containers
    if node_name:
        spec["nodeName"] = node_name
    spec.update(spec_fields)
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "labels": dict(labels or {}), "uid": name},
        "spec": spec,
    }


def run_filter(plugin, pod: dict, nodes: list[dict], pods: list[dict] = (), storage: list[dict] = ()) -> dict:
    """Run one plugin's PreFilter + Filter like upstream's plugin tests: {node name: Status | None}.

    A PreFilter Skip or rejection is returned for every node, so tables can assert it directly.
    `storage`: the PersistentVolumeClaims, PersistentVolumes and StorageClasses the volume plugins read.
    """
    snapshot = Snapshot.from_objects(nodes, pods, storage)
    state = CycleState()
    pod_info = PodInfo.of(pod)
    outcome = plugin.pre_filter(state, pod_info, snapshot.nodes, snapshot)
    if outcome is not None and hasattr(outcome, "code") and not outcome.is_success:
        return {node.name: outcome for node in snapshot.nodes}
    failures = plugin.filter(state, pod_info, snapshot.nodes)
    return {node.name: failures.get(node.name) for node in snapshot.nodes}


def run_score(plugin, pod: dict, nodes: list[dict], pods: list[dict] = ()) -> dict:
    """PreScore + Score + NormalizeScore over every node, as upstream's plugin tests do.

    Returns {node name: normalized score}, or None when PreScore skipped the plugin.
    """
    snapshot = Snapshot.from_objects(nodes, pods)
    state = CycleState()
    pod_info = PodInfo.of(pod)
    status = plugin.pre_score(state, pod_info, snapshot.nodes, snapshot)
    if status is not None and status.is_skip:
        return None
    column = plugin.score(state, pod_info, snapshot.nodes)
    normalized = plugin.normalize_score(state, pod_info, list(column.raw))
    scores = column.raw if normalized is None else normalized
    return {node.name: score for node, score in zip(snapshot.nodes, scores, strict=True)}


def decide(
    pod: dict, nodes: list[dict], pods=(), profile: Profile | None = None, storage=(), **kw
) -> Decision:
    return schedule(pod, Snapshot.from_objects(nodes, pods, storage), profile, **kw)
