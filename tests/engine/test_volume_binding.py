"""VolumeBinding, ported from upstream's volumebinding/volume_binding_test.go (TestVolumeBinding,
v1.33: the PreFilter and Filter columns; its Score rows need the alpha StorageCapacityScoring gate,
which is off), then the kubectl scenarios as whole decisions, explained in English and Chinese."""

from __future__ import annotations

import pytest

from scheduler.engine.framework import Code
from scheduler.engine.plugins.volumebinding.binder import (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_PV_NOT_EXIST,
)
from scheduler.engine.plugins.volumebinding.plugin import VolumeBinding
from tests.engine.builders import decide, make_node, make_pod, run_filter

HOSTNAME = "kubernetes.io/hostname"
REGION, ZONE = "topology.kubernetes.io/region", "topology.kubernetes.io/zone"


def sc(name: str, mode: str, provisioner: str = "") -> dict:
    return {
        "kind": "StorageClass",
        "metadata": {"name": name},
        "provisioner": provisioner,
        "volumeBindingMode": mode,
    }


CLASSES = [
    sc("immediate-sc", "Immediate"),
    sc("wait-sc", "WaitForFirstConsumer"),
    sc("wait-hdd-sc", "WaitForFirstConsumer"),
]


def pvc(name: str, class_name: str, bound: str = "", phase: str = "", storage: str = "") -> dict:
    claim = {
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": "default", "annotations": {}},
        "spec": {"storageClassName": class_name},
        "status": {},
    }
    if bound:  # withBoundPV
        claim["spec"]["volumeName"] = bound
        claim["metadata"]["annotations"]["pv.kubernetes.io/bind-completed"] = "yes"
    if phase:
        claim["status"]["phase"] = phase
    if storage:
        claim["spec"]["resources"] = {"requests": {"storage": storage}}
    return claim


def pv(name: str, class_name: str, phase: str = "", capacity: str = "", affinity: dict | None = None) -> dict:
    volume = {
        "kind": "PersistentVolume",
        "metadata": {"name": name},
        "spec": {"storageClassName": class_name},
    }
    if phase:
        volume["status"] = {"phase": phase}
    if capacity:
        volume["spec"]["capacity"] = {"storage": capacity}
    if affinity:  # withNodeAffinity: one term, each key In its values
        expressions = [{"key": k, "operator": "In", "values": v} for k, v in sorted(affinity.items())]
        volume["spec"]["nodeAffinity"] = {
            "required": {"nodeSelectorTerms": [{"matchExpressions": expressions}]}
        }
    return volume


def pod(*claims: str) -> dict:
    return make_pod("pod-a", volumes=[{"name": c, "persistentVolumeClaim": {"claimName": c}} for c in claims])


def node(name: str, **labels: str) -> dict:
    """upstream's makeNode: the hostname label is the node's name."""
    return make_node(name, labels={HOSTNAME: name, **labels})


def zonal(name: str, region: str, zone: str) -> dict:
    return make_node(name, labels={HOSTNAME: name, REGION: region, ZONE: zone})


def pvs_per_node(prefix: str, class_name: str, capacity: str, node: str, count: int = 2) -> list[dict]:
    return [pv(f"{prefix}-{i}", class_name, "Available", capacity, {HOSTNAME: [node]}) for i in range(count)]


UNRESOLVABLE = "UnschedulableAndUnresolvable"
# (name, pod, nodes, claims, volumes, PreFilter status (code, message) or None, filter reasons per node)
CASES = [
    ("pod has not pvcs", make_pod("pod-a"), [node("node-a")], [], [], ("Skip", ""), [None]),
    (
        "all bound",
        pod("pvc-a"),
        [node("node-a")],
        [pvc("pvc-a", "wait-sc", bound="pv-a")],
        [pv("pv-a", "wait-sc", "Available")],
        None,
        [None],
    ),
    (
        "PVC does not exist",
        pod("pvc-a"),
        [node("node-a")],
        [],
        [],
        (UNRESOLVABLE, 'persistentvolumeclaim "pvc-a" not found'),
        [None],
    ),
    (
        "Part of PVCs do not exist",
        pod("pvc-a", "pvc-b"),
        [node("node-a")],
        [pvc("pvc-a", "wait-sc", bound="pv-a")],
        [],
        (UNRESOLVABLE, 'persistentvolumeclaim "pvc-b" not found'),
        [None],
    ),
    (
        "immediate claims not bound",
        pod("pvc-a"),
        [node("node-a")],
        [pvc("pvc-a", "immediate-sc")],
        [],
        (UNRESOLVABLE, "pod has unbound immediate PersistentVolumeClaims"),
        [None],
    ),
    (
        "unbound claims no matches",
        pod("pvc-a"),
        [node("node-a")],
        [pvc("pvc-a", "wait-sc")],
        [],
        None,
        [(ERR_REASON_BIND_CONFLICT,)],
    ),
    (
        "bound and unbound unsatisfied",
        pod("pvc-a", "pvc-b"),
        [node("node-a", foo="barbar")],
        [pvc("pvc-a", "wait-sc", bound="pv-a"), pvc("pvc-b", "wait-sc")],
        [pv("pv-a", "wait-sc", "Available", affinity={"foo": ["bar"]})],
        None,
        [(ERR_REASON_NODE_CONFLICT, ERR_REASON_BIND_CONFLICT)],
    ),
    (
        "pvc not found",
        pod("pvc-a"),
        [node("node-a")],
        [],
        [],
        (UNRESOLVABLE, 'persistentvolumeclaim "pvc-a" not found'),
        [None],
    ),
    (
        "pv not found",
        pod("pvc-a"),
        [node("node-a")],
        [pvc("pvc-a", "wait-sc", bound="pv-a")],
        [],
        None,
        [(ERR_REASON_PV_NOT_EXIST,)],
    ),
    (
        "pv not found claim lost",
        pod("pvc-a"),
        [node("node-a")],
        [pvc("pvc-a", "wait-sc", bound="pv-a", phase="Lost")],
        [],
        (UNRESOLVABLE, 'persistentvolumeclaim "pvc-a" bound to non-existent persistentvolume "pv-a"'),
        [None],
    ),
    (
        "local volumes with close capacity are preferred",
        pod("pvc-a"),
        [node("node-a"), node("node-b"), node("node-c")],
        [pvc("pvc-a", "wait-sc", storage="50Gi")],
        pvs_per_node("pv-a", "wait-sc", "200Gi", "node-a")
        + pvs_per_node("pv-b", "wait-sc", "100Gi", "node-b"),
        None,
        [None, None, (ERR_REASON_BIND_CONFLICT,)],
    ),
    (
        "local volumes with close capacity are preferred (multiple pvcs)",
        pod("pvc-0", "pvc-1"),
        [node("node-a"), node("node-b"), node("node-c")],
        [pvc("pvc-0", "wait-sc", storage="50Gi"), pvc("pvc-1", "wait-hdd-sc", storage="100Gi")],
        pvs_per_node("pv-a", "wait-sc", "200Gi", "node-a")
        + [pv(f"pv-a-{i}", "wait-hdd-sc", "Available", "200Gi", {HOSTNAME: ["node-a"]}) for i in (2, 3)]
        + pvs_per_node("pv-b", "wait-sc", "100Gi", "node-b")
        + [pv(f"pv-b-{i}", "wait-hdd-sc", "Available", "100Gi", {HOSTNAME: ["node-b"]}) for i in (2, 3)],
        None,
        [None, None, (ERR_REASON_BIND_CONFLICT,)],
    ),
    (
        "zonal volumes with close capacity are preferred",
        pod("pvc-a"),
        [
            zonal("zone-a-node-a", "region-a", "zone-a"),
            zonal("zone-a-node-b", "region-a", "zone-a"),
            zonal("zone-b-node-a", "region-b", "zone-b"),
            zonal("zone-b-node-b", "region-b", "zone-b"),
            zonal("zone-c-node-a", "region-c", "zone-c"),
            zonal("zone-c-node-b", "region-c", "zone-c"),
        ],
        [pvc("pvc-a", "wait-sc", storage="50Gi")],
        [
            pv(f"pv-{z}-{i}", "wait-sc", "Available", size, {REGION: [f"region-{z}"], ZONE: [f"zone-{z}"]})
            for z, size in (("a", "200Gi"), ("b", "100Gi"))
            for i in (0, 1)
        ],
        None,
        [None, None, None, None, (ERR_REASON_BIND_CONFLICT,), (ERR_REASON_BIND_CONFLICT,)],
    ),
]


@pytest.mark.parametrize(
    ("pod_", "nodes", "claims", "volumes", "prefilter", "reasons"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_prefilter_and_filter_match_upstreams_table(pod_, nodes, claims, volumes, prefilter, reasons):
    got = run_filter(VolumeBinding(), pod_, nodes, storage=[*CLASSES, *claims, *volumes])
    if prefilter is not None:
        code, message = prefilter
        for status in got.values():
            assert status.code.value == code
            assert status.message() == message
        return
    for node, wanted in zip(nodes, reasons, strict=True):
        status = got[node["metadata"]["name"]]
        if wanted is None:
            assert status is None
        else:
            assert status.code is Code.UNRESOLVABLE and status.reasons == wanted


# -- whole decisions: the classroom's three nodes -------------------------------------------------
MASTER_TAINT = {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}
ALLOCATABLE = {"cpu": "2", "memory": "4Gi", "pods": "110"}
NODES = [
    make_node("master", labels={HOSTNAME: "master"}, allocatable=ALLOCATABLE, taints=[MASTER_TAINT]),
    make_node("node1", labels={HOSTNAME: "node1"}, allocatable=ALLOCATABLE),
    make_node("node2", labels={HOSTNAME: "node2"}, allocatable=ALLOCATABLE),
]
LOCAL = sc("local-storage", "WaitForFirstConsumer", "kubernetes.io/no-provisioner")
SLOW = sc("slow", "Immediate", "kubernetes.io/no-provisioner")
DISK_ON_NODE2 = pv("local-pv", "local-storage", "Available", "5Gi", {HOSTNAME: ["node2"]})


def test_a_wait_for_first_consumer_claim_lands_the_pod_where_its_local_volume_is():
    storage = [LOCAL, DISK_ON_NODE2, pvc("mypvc", "local-storage", storage="1Gi")]
    decision = decide(pod("mypvc"), NODES, storage=storage)
    assert decision.selected == "node2"
    node1 = decision.node_result("node1")
    assert node1["firstFailure"]["plugin"] == "VolumeBinding"
    assert node1["firstFailure"]["reasons"] == ["node(s) didn't find available persistent volumes to bind"]
    assert node1["firstFailure"]["why"] == {
        "en": "No Available PersistentVolume of class local-storage fits claim default/mypvc (1Gi, no access "
        "mode) on node1 (capacity, access modes, selector and the volume's node affinity must all fit), and "
        "class local-storage cannot provision one (provisioner kubernetes.io/no-provisioner).",
        "zh": "节点 node1 上没有 StorageClass 为 local-storage 的 Available PersistentVolume 满足声明 "
        "default/mypvc（1Gi, no access mode；容量、访问模式、选择器和卷的节点亲和性都须满足），"
        "且StorageClass local-storage 无法自动供应（provisioner 为 kubernetes.io/no-provisioner）。",
    }
    assert decision.node_result("node2")["filters"]["VolumeBinding"]["status"] == "Success"


def test_the_same_claim_without_a_volume_is_pending_with_upstreams_message():
    storage = [LOCAL, pvc("mypvc", "local-storage", storage="1Gi")]
    decision = decide(pod("mypvc"), NODES, storage=storage)
    assert decision.selected is None
    assert decision.message == (
        "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, "
        "2 node(s) didn't find available persistent volumes to bind. preemption: 0/3 nodes are available: "
        "3 Preemption is not helpful for scheduling."
    )


def test_an_unbound_immediate_claim_keeps_the_pod_pending_on_every_node():
    decision = decide(pod("mypvc"), NODES, storage=[SLOW, pvc("mypvc", "slow", storage="1Gi")])
    assert decision.selected is None
    assert decision.message == (
        "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes "
        "are available: 3 Preemption is not helpful for scheduling."
    )
    why = decision.node_result("node1")["firstFailure"]["why"]
    assert why["en"].startswith(
        "Claim default/mypvc (class slow) is not bound yet, and its binding mode is Immediate"
    )
    assert why["zh"].startswith("声明 default/mypvc (class slow) 尚未绑定，且其绑定模式为 Immediate")


def test_a_missing_claim_is_volume_restrictions_prefilter_rejection_in_upstreams_words():
    decision = decide(pod("mypvc"), NODES, storage=[LOCAL])
    assert decision.selected is None
    assert decision.rejecting_plugins() == frozenset({"VolumeRestrictions"})
    assert decision.message == (
        '0/3 nodes are available: persistentvolumeclaim "mypvc" not found. preemption: 0/3 nodes are '
        "available: 3 Preemption is not helpful for scheduling."
    )
    why = decision.node_result("node2")["firstFailure"]["why"]
    assert why["en"].startswith(
        'persistentvolumeclaim "mypvc" not found: the pod mounts a PersistentVolumeClaim'
    )
    assert why["zh"].startswith(
        'persistentvolumeclaim "mypvc" not found：Pod 挂载的 PersistentVolumeClaim 不存在'
    )


def test_a_bound_local_volume_narrows_the_nodes_at_prefilter():
    bound = pv("local-pv", "local-storage", "Bound", "5Gi", {HOSTNAME: ["node2"]})
    storage = [LOCAL, bound, pvc("mypvc", "local-storage", bound="local-pv")]
    decision = decide(pod("mypvc"), NODES, storage=storage)
    assert decision.selected == "node2"
    node1 = decision.node_result("node1")["firstFailure"]
    assert node1["reasons"] == ["node(s) didn't satisfy plugin(s) [VolumeBinding]"]
    assert node1["why"]["en"] == (
        "PreFilter: the pod's bound local volumes can only be used on ['node2']; this node was never "
        "considered."
    )


def test_a_bound_volume_on_another_node_is_a_node_affinity_conflict():
    elsewhere = pv("zonal-pv", "local-storage", "Bound", "5Gi", {ZONE: ["zone-b"]})
    nodes = [make_node("node1", labels={HOSTNAME: "node1", ZONE: "zone-a"}, allocatable=ALLOCATABLE)]
    storage = [LOCAL, elsewhere, pvc("mypvc", "local-storage", bound="zonal-pv")]
    decision = decide(pod("mypvc"), nodes, storage=storage)
    assert decision.message.startswith(
        "0/1 nodes are available: 1 node(s) had volume node affinity conflict."
    )
    assert decision.node_result("node1")["firstFailure"]["why"]["en"] == (
        "Claim default/mypvc is bound to PersistentVolume zonal-pv, whose spec.nodeAffinity does not admit "
        "node1: the data lives elsewhere, so the pod cannot run here."
    )


def test_a_provisioning_class_admits_every_node_and_a_selected_node_only_that_one():
    standard = sc("standard", "WaitForFirstConsumer", "kubesim.io/simulated")
    claim = pvc("data", "standard", storage="1Gi")
    decision = decide(pod("data"), NODES, storage=[standard, claim])
    assert decision.feasible == ["node1", "node2"]
    claim["metadata"]["annotations"]["volume.kubernetes.io/selected-node"] = "node1"
    decision = decide(pod("data"), NODES, storage=[standard, claim])
    assert decision.feasible == ["node1"]
