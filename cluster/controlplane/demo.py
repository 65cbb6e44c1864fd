"""The course's cluster: a `master` with the control-plane taint and two workers, node1 and node2."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction

from cluster.apiserver import service as api
from cluster.apiserver.actor import Actor
from cluster.apiserver.clear import clear
from cluster.auth.classwrite import set_class_may_write
from cluster.flow import gate, prediction
from cluster.kubelet import images as catalog
from cluster.kubelet import power
from cluster.models import Cluster

CONTROL_PLANE_ROLE = "node-role.kubernetes.io/control-plane"
MERGE_PATCH = "application/merge-patch+json"
SYSTEM_IMAGES = (
    "registry.k8s.io/pause:3.10",
    "registry.k8s.io/kube-proxy:v1.33.1",
    "flannel/flannel:v0.26.7",
)
MASTER_IMAGES = (
    "registry.k8s.io/kube-apiserver:v1.33.1",
    "registry.k8s.io/kube-controller-manager:v1.33.1",
    "registry.k8s.io/kube-scheduler:v1.33.1",
    "registry.k8s.io/etcd:3.5.21-0",
    "registry.k8s.io/coredns/coredns:v1.12.0",
)


def node_body(
    name: str, index: int, labels: dict, images: tuple[str, ...] = (), master: bool = False
) -> dict:
    """A Node as it registers: labels, taints, pod CIDR, capacity; the kubelet fills in the rest."""
    all_labels = {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        **labels,
    }
    spec: dict = {"podCIDR": f"10.244.{index}.0/24", "podCIDRs": [f"10.244.{index}.0/24"]}
    if master:
        all_labels[CONTROL_PLANE_ROLE] = ""
        spec["taints"] = [{"key": CONTROL_PLANE_ROLE, "effect": "NoSchedule"}]
    capacity = {"cpu": "4", "ephemeral-storage": "102626232Ki", "memory": "8148204Ki", "pods": "110"}
    allocatable = {"cpu": "4", "ephemeral-storage": "94580335255", "memory": "8045804Ki", "pods": "110"}
    entries = [
        catalog.node_image_entry(image) for ref in (*images, *SYSTEM_IMAGES) if (image := catalog.lookup(ref))
    ]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": all_labels},
        "spec": spec,
        "status": {"capacity": capacity, "allocatable": allocatable, "images": entries},
    }


def create_cluster(
    name: str, nodes: list[dict], pace_ms: int | None = None, quota: dict | None = None
) -> Cluster:
    """A cluster with these nodes, registered through the API server like any object; `quota`
    overrides the classroom quota (cluster/apiserver/admission/quota.py)."""
    with transaction.atomic():
        cluster = Cluster.objects.create(
            name=name, pace_ms=settings.KUBESIM_PACE_MS if pace_ms is None else pace_ms, quota=quota or {}
        )
    actor = Actor("api", "kubesim loaddemo")
    for node in nodes:
        api.create(cluster, node, actor)
    return cluster


def course_nodes() -> list[dict]:
    """The course's nodes as a class finds them: master, node1 (nginx cached), node2 (busybox)."""
    return [
        node_body("master", 0, {}, MASTER_IMAGES, master=True),
        node_body("node1", 1, {"disktype": "ssd"}, ("nginx:1.15",)),
        node_body("node2", 2, {"disktype": "hdd"}, ("busybox:1.36",)),
    ]


def create_demo(name: str = "demo", pace_ms: int | None = None) -> Cluster:
    return create_cluster(name, course_nodes(), pace_ms)


def reset_demo(cluster: Cluster, actor: Actor) -> None:
    """Put the demo back to the course's starting state, every change a write through the API
    server (the flow, the page and every watch see it): the class's objects go, nodes added in
    class go, master, node1 and node2 get back their labels, taints, schedulability and cached
    images (or are registered again); the pace, step mode and the class's write access go back
    to how a class begins, a kubelet the teacher stopped runs again, and no prediction round is
    left on the pages."""
    for node in list(power.stopped(cluster.name)) or list(cluster.stopped_kubelets or {}):
        power.set_running(cluster, node, True)
    clear(cluster, actor, keep=frozenset({"Node"}))
    course = {body["metadata"]["name"]: body for body in course_nodes()}
    for node in api.list_objects(cluster, "Node")[0]:
        if node["metadata"]["name"] not in course:
            api.delete(cluster, "Node", "", node["metadata"]["name"], actor, grace_period=0)
    for name, body in course.items():
        try:
            current = api.get(cluster, "Node", "", name)
        except api.ApiError as exc:
            if exc.code != 404:
                raise
            api.create(cluster, body, actor)
            continue
        labels: dict = {key: None for key in current["metadata"].get("labels") or {}}
        labels.update(body["metadata"]["labels"])
        spec = {"taints": body["spec"].get("taints"), "unschedulable": None}
        patch = {"metadata": {"labels": labels}, "spec": spec}
        current = api.patch(cluster, "Node", "", name, patch, MERGE_PATCH, actor)
        current["status"]["images"] = body["status"]["images"]
        current["metadata"].pop("resourceVersion", None)
        api.update(cluster, current, actor, subresource="status")
    gate.set_step_mode(cluster.name, False)
    gate.set_pace(cluster.name, settings.KUBESIM_PACE_MS)
    set_class_may_write(cluster, False)
    prediction.clear(cluster)


def create_many(name: str, count: int, pace_ms: int = 0) -> Cluster:
    """A bench cluster: `count` identical workers."""
    nodes = [node_body(f"node{i}", i % 250, {"disktype": "ssd"}) for i in range(1, count + 1)]
    # Sized for the benchmark: every node full of pods (110 each) still fits the quota.
    quota = {"nodes": count, "pods": 110 * count, "objects": 120 * count + 1000}
    return create_cluster(name, nodes, pace_ms, quota)
