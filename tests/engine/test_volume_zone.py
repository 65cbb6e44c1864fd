"""VolumeZone, ported from upstream's volumezone/volume_zone_test.go (TestSingleZone, TestMultiZone,
TestWithBinding), then a whole decision explained in English and Chinese."""

from __future__ import annotations

import pytest

from scheduler.engine.framework import Code
from scheduler.engine.plugins.volumezone.volume_zone import ERR_REASON_CONFLICT, VolumeZone
from tests.engine.builders import decide, make_node, make_pod, run_filter

BETA_ZONE, BETA_REGION = "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region"
ZONE, REGION = "topology.kubernetes.io/zone", "topology.kubernetes.io/region"


def pv(name: str, **labels: str) -> dict:
    return {"kind": "PersistentVolume", "metadata": {"name": name, "labels": labels}, "spec": {}}


def pvc(name: str, volume: str = "", class_name: str | None = None) -> dict:
    spec: dict = {"volumeName": volume} if volume else {}
    if class_name is not None:
        spec["storageClassName"] = class_name
    return {"kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def pod_with(claim: str | None) -> dict:
    if claim is None:
        return make_pod("pod_1")
    return make_pod("pod_1", volumes=[{"name": "v", "persistentVolumeClaim": {"claimName": claim}}])


SINGLE = [
    pv("Vol_1", **{BETA_ZONE: "us-west1-a"}),
    pv("Vol_2", **{BETA_REGION: "us-west1", "uselessLabel": "none"}),
    pv("Vol_3", **{BETA_REGION: "us-west1"}),
    pv("Vol_Stable_1", **{ZONE: "us-west1-a"}),
    pv("Vol_Stable_2", **{REGION: "us-west1", "uselessLabel": "none"}),
    pv("Vol_Stable_3", **{ZONE: "us-west1-a", REGION: "us-west1-a"}),
    pvc("PVC_1", "Vol_1"),
    pvc("PVC_2", "Vol_2"),
    pvc("PVC_3", "Vol_3"),
    pvc("PVC_4", "Vol_not_exist"),
    pvc("PVC_Stable_1", "Vol_Stable_1"),
    pvc("PVC_Stable_2", "Vol_Stable_2"),
    pvc("PVC_Stable_3", "Vol_Stable_3"),
]
MULTI = [
    pv("Vol_1", **{BETA_ZONE: "us-west1-a"}),
    pv("Vol_2", **{BETA_ZONE: "us-west1-b", "uselessLabel": "none"}),
    pv("Vol_3", **{BETA_ZONE: "us-west1-c__us-west1-a"}),
    pv("Vol_Stable_1", **{ZONE: "us-west1-a"}),
    pv("Vol_Stable_2", **{ZONE: "us-west1-c__us-west1-a"}),
    pvc("PVC_1", "Vol_1"),
    pvc("PVC_2", "Vol_2"),
    pvc("PVC_3", "Vol_3"),
    pvc("PVC_Stable_1", "Vol_Stable_1"),
    pvc("PVC_Stable_2", "Vol_Stable_2"),
]
BINDING = [
    {"kind": "StorageClass", "metadata": {"name": "Class_Immediate"}, "volumeBindingMode": "Immediate"},
    {"kind": "StorageClass", "metadata": {"name": "Class_Wait"}, "volumeBindingMode": "WaitForFirstConsumer"},
    pv("Vol_1", **{BETA_ZONE: "us-west1-a"}),
    pvc("PVC_1", "Vol_1"),
    pvc("PVC_NoSC", class_name="Class_0"),
    pvc("PVC_EmptySC"),
    pvc("PVC_WaitSC", class_name="Class_Wait"),
    pvc("PVC_ImmediateSC", class_name="Class_Immediate"),
]
BINDING_NODE = {BETA_ZONE: "us-west1-a", "uselessLabel": "none"}
UNRESOLVABLE = Code.UNRESOLVABLE
CASES = [
    # TestSingleZone
    ("pod without volume", SINGLE, None, {BETA_ZONE: "us-west1-a"}, (Code.SKIP, ""), None),
    ("node without labels", SINGLE, "PVC_1", {}, None, None),
    (
        "beta zone label matched",
        SINGLE,
        "PVC_1",
        {BETA_ZONE: "us-west1-a", "uselessLabel": "none"},
        None,
        None,
    ),
    (
        "beta region label matched",
        SINGLE,
        "PVC_2",
        {BETA_REGION: "us-west1", "uselessLabel": "none"},
        None,
        None,
    ),
    (
        "beta region label doesn't match",
        SINGLE,
        "PVC_2",
        {BETA_REGION: "no_us-west1"},
        None,
        ERR_REASON_CONFLICT,
    ),
    (
        "beta zone label doesn't match",
        SINGLE,
        "PVC_1",
        {BETA_ZONE: "no_us-west1-a"},
        None,
        ERR_REASON_CONFLICT,
    ),
    ("zone label matched", SINGLE, "PVC_Stable_1", {ZONE: "us-west1-a", "uselessLabel": "none"}, None, None),
    (
        "region label matched",
        SINGLE,
        "PVC_Stable_2",
        {REGION: "us-west1", "uselessLabel": "none"},
        None,
        None,
    ),
    (
        "region label doesn't match",
        SINGLE,
        "PVC_Stable_2",
        {REGION: "no_us-west1"},
        None,
        ERR_REASON_CONFLICT,
    ),
    ("zone label doesn't match", SINGLE, "PVC_Stable_1", {ZONE: "no_us-west1-a"}, None, ERR_REASON_CONFLICT),
    (
        "pv with zone and region, node with only zone",
        SINGLE,
        "PVC_Stable_3",
        {ZONE: "us-west1-a"},
        None,
        ERR_REASON_CONFLICT,
    ),
    (
        "pv with zone,node with beta zone",
        SINGLE,
        "PVC_Stable_1",
        {BETA_ZONE: "us-west1-a"},
        None,
        ERR_REASON_CONFLICT,
    ),
    ("pv with beta label,node with ga label, matched", SINGLE, "PVC_1", {ZONE: "us-west1-a"}, None, None),
    (
        "pv with beta label,node with ga label, don't match",
        SINGLE,
        "PVC_1",
        {ZONE: "us-west1-b"},
        None,
        ERR_REASON_CONFLICT,
    ),
    (
        "a bound volume that does not exist",
        SINGLE,
        "PVC_4",
        {ZONE: "us-west1-a"},
        (UNRESOLVABLE, 'persistentvolume "Vol_not_exist" not found'),
        None,
    ),
    # TestMultiZone
    ("multi: node without labels", MULTI, "PVC_3", {}, None, None),
    (
        "multi: beta zone label matched",
        MULTI,
        "PVC_3",
        {BETA_ZONE: "us-west1-a", "uselessLabel": "none"},
        None,
        None,
    ),
    (
        "multi: beta zone label doesn't match",
        MULTI,
        "PVC_1",
        {BETA_ZONE: "us-west1-b"},
        None,
        ERR_REASON_CONFLICT,
    ),
    (
        "multi: zone label matched",
        MULTI,
        "PVC_Stable_2",
        {ZONE: "us-west1-a", "uselessLabel": "none"},
        None,
        None,
    ),
    (
        "multi: zone label doesn't match",
        MULTI,
        "PVC_Stable_1",
        {ZONE: "us-west1-b"},
        None,
        ERR_REASON_CONFLICT,
    ),
    # TestWithBinding
    ("label zone failure domain matched", BINDING, "PVC_1", BINDING_NODE, None, None),
    (
        "unbound volume empty storage class",
        BINDING,
        "PVC_EmptySC",
        BINDING_NODE,
        (UNRESOLVABLE, "PersistentVolumeClaim had no pv name and storageClass name"),
        None,
    ),
    (
        "unbound volume no storage class",
        BINDING,
        "PVC_NoSC",
        BINDING_NODE,
        (UNRESOLVABLE, 'storageclasses.storage.k8s.io "Class_0" not found'),
        None,
    ),
    (
        "unbound volume immediate binding mode",
        BINDING,
        "PVC_ImmediateSC",
        BINDING_NODE,
        (UNRESOLVABLE, "PersistentVolume had no name"),
        None,
    ),
    ("unbound volume wait binding mode", BINDING, "PVC_WaitSC", BINDING_NODE, (Code.SKIP, ""), None),
]


@pytest.mark.parametrize(
    ("storage", "claim", "labels", "prefilter", "reason"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_upstreams_tables(storage, claim, labels, prefilter, reason):
    status = run_filter(VolumeZone(), pod_with(claim), [make_node("host1", labels=labels)], storage=storage)[
        "host1"
    ]
    if prefilter is not None:
        assert (status.code, status.message()) == prefilter
    elif reason is None:
        assert status is None
    else:
        assert status.code is Code.UNRESOLVABLE and status.reasons == (reason,)


def test_a_zonal_volume_keeps_the_pod_in_its_zone_and_says_why():
    storage = [pv("disk-a", **{ZONE: "zone-a"}), pvc("data", "disk-a")]
    storage[1]["metadata"]["annotations"] = {"pv.kubernetes.io/bind-completed": "yes"}
    nodes = [
        make_node("node1", labels={ZONE: "zone-a"}, allocatable={"cpu": "2", "memory": "4Gi", "pods": "110"}),
        make_node("node2", labels={ZONE: "zone-b"}, allocatable={"cpu": "2", "memory": "4Gi", "pods": "110"}),
    ]
    decision = decide(pod_with("data"), nodes, storage=storage)
    assert decision.selected == "node1"
    failure = decision.node_result("node2")["firstFailure"]
    assert (failure["plugin"], failure["reasons"]) == ("VolumeZone", ["node(s) had no available volume zone"])
    assert failure["why"] == {
        "en": "The pod's PersistentVolume disk-a is in topology.kubernetes.io/zone zone-a, but node2 has "
        "topology.kubernetes.io/zone=zone-b: a volume can only be attached in its own zone.",
        "zh": "Pod 的 PersistentVolume disk-a 位于 topology.kubernetes.io/zone zone-a，但节点 node2 的标签为 "
        "topology.kubernetes.io/zone=zone-b：卷只能挂载在它自己的可用区内。",
    }
