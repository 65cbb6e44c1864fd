"""NodeVolumeLimits, ported from upstream's nodevolumelimits/csi_test.go (TestCSILimits, v1.33: the
rows without in-tree migration or VolumeAttachments, which KubeSim does not simulate), then a
whole decision explained in English and Chinese."""

from __future__ import annotations

import pytest

from scheduler.engine.framework import Code
from scheduler.engine.plugins.nodevolumelimits.csi import (
    ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,
    NodeVolumeLimits,
)
from tests.engine.builders import decide, make_node, make_pod, run_filter

EBS, GCE = "ebs.csi.aws.com", "pd.csi.storage.gke.io"


def bound(driver: str, index: int) -> list[dict]:
    """getFakeCSIPVCLister / getFakeCSIPVLister: claim csi-<driver>-<i> bound to its CSI volume."""
    name = f"csi-{driver}-{index}"
    claim = {
        "kind": "PersistentVolumeClaim",
        # bind-completed: whole decisions (VolumeBinding) see the claim bound
        "metadata": {
            "name": name,
            "namespace": "default",
            "annotations": {"pv.kubernetes.io/bind-completed": "yes"},
        },
        "spec": {"volumeName": name},
    }
    pv = {
        "kind": "PersistentVolume",
        "metadata": {"name": name},
        "spec": {"csi": {"driver": driver, "volumeHandle": name}},
    }
    return [claim, pv]


def claim(name: str, **spec: str) -> dict:
    return {"kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


STORAGE = [
    *(obj for driver in (EBS, GCE) for index in range(4) for obj in bound(driver, index)),
    {"kind": "StorageClass", "metadata": {"name": "csi-sc"}, "provisioner": EBS},
    claim("csi-4", storageClassName="csi-sc"),
    claim("csi-5", storageClassName="nonexistent"),
    claim("csi-6", storageClassName="csi-sc", volumeName="missing-in-action"),
]


def pod(name: str, *claims: str, node: str = "") -> dict:
    volumes = [{"name": f"v{i}", "persistentVolumeClaim": {"claimName": c}} for i, c in enumerate(claims)]
    return make_pod(name, volumes=volumes, node_name=node)


def csinode(drivers: list[str], count: int | None) -> dict:
    entries = []
    for driver in drivers:
        entry = {"name": driver, "nodeID": "node-for-max-pd-test-1"}
        if count is not None:
            entry["allocatable"] = {"count": count}
        entries.append(entry)
    return {"kind": "CSINode", "metadata": {"name": "node-for-max-pd-test-1"}, "spec": {"drivers": entries}}


NEW_EBS = pod("new", f"csi-{EBS}-0")
RUNNING = [f"csi-{EBS}-3"]
EBS_TWO = [f"csi-{EBS}-1", f"csi-{EBS}-2"]
GCE_TWO = [f"csi-{GCE}-1", f"csi-{GCE}-2"]
CASES = [
    ("fits when node volume limit >= new pods CSI volume", NEW_EBS, [RUNNING, EBS_TWO], 4, [EBS], False),
    ("doesn't when node volume limit <= pods CSI volume", NEW_EBS, [RUNNING, EBS_TWO], 2, [EBS], True),
    ("should when driver does not support volume limits", NEW_EBS, [RUNNING, EBS_TWO], None, [EBS], False),
    (
        "count pending PVCs towards volume limit <= pods CSI volume",
        NEW_EBS,
        [["csi-4"], EBS_TWO],
        2,
        [EBS],
        True,
    ),
    (
        "count multiple pending pvcs towards volume limit >= pods CSI volume",
        NEW_EBS,
        [["csi-4"], ["csi-4"], EBS_TWO],
        4,
        [EBS],
        False,
    ),
    ("should count PVCs with invalid PV name but valid SC", NEW_EBS, [["csi-6"], EBS_TWO], 2, [EBS], True),
    ("don't count pvcs with missing SC towards volume limit", NEW_EBS, [RUNNING, ["csi-5"]], 2, [EBS], False),
    ("count pvcs with the same type towards volume limit", NEW_EBS, [GCE_TWO, EBS_TWO], 2, [EBS, GCE], True),
    (
        "don't count pvcs with different type towards volume limit",
        pod("new", *GCE_TWO),
        [EBS_TWO, RUNNING],
        2,
        [EBS, GCE],
        False,
    ),
]


@pytest.mark.parametrize(
    ("new", "existing", "limit", "drivers", "exceeds"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_csi_limits_as_upstream(new, existing, limit, drivers, exceeds):
    node = "node-for-max-pd-test-1"
    pods = [pod(f"existing-{i}", *claims, node=node) for i, claims in enumerate(existing)]
    storage = [*STORAGE, csinode(drivers, limit)]
    status = run_filter(NodeVolumeLimits(), new, [make_node(node)], pods, storage)[node]
    if exceeds:
        assert status.code is Code.UNSCHEDULABLE and status.reasons == (ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,)
    else:
        assert status is None


def test_a_node_without_a_csinode_has_no_limit_and_a_pod_without_claims_is_skipped():
    node = make_node("plain")
    assert (
        run_filter(NodeVolumeLimits(), NEW_EBS, [node], [pod("old", *EBS_TWO, node="plain")], STORAGE)[
            "plain"
        ]
        is None
    )
    assert (
        run_filter(NodeVolumeLimits(), make_pod("bare"), [node], storage=STORAGE)["plain"].code is Code.SKIP
    )


def test_a_full_node_is_skipped_and_the_explanation_counts_its_volumes():
    allocatable = {"cpu": "2", "memory": "4Gi", "pods": "110"}
    nodes = [make_node("node1", allocatable=allocatable), make_node("node2", allocatable=allocatable)]
    full = {**csinode([EBS], 2), "metadata": {"name": "node1"}}
    decision = decide(NEW_EBS, nodes, [pod("old", *EBS_TWO, node="node1")], storage=[*STORAGE, full])
    assert decision.selected == "node2"
    failure = decision.node_result("node1")["firstFailure"]
    assert (failure["plugin"], failure["reasons"]) == (
        "NodeVolumeLimits",
        ["node(s) exceed max volume count"],
    )
    assert failure["why"] == {
        "en": "CSI driver ebs.csi.aws.com may attach at most 2 volumes on node1 (its CSINode's "
        "allocatable.count): 2 are in use by the pods there and this pod adds 1.",
        "zh": "CSI 驱动 ebs.csi.aws.com 在节点 node1 上最多可挂接 2 个卷（CSINode 的 allocatable.count）："
        "该节点上的 Pod 已使用 2 个，此 Pod 还要增加 1 个。",
    }
