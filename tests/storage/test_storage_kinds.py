"""StorageClasses, PersistentVolumes and PersistentVolumeClaims as the API server serves them:
the default class, DefaultStorageClass admission, upstream's validation words, tables, describe."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace

import pytest

from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from cluster.kinds.core import persistentvolume, persistentvolumeclaim
from cluster.kinds.storage import csinode, storageclass
from cluster.kubeapi.tables import to_table
from tests.support.demo import KUBECTL, demo  # noqa: F401

LOCAL_PV = {
    "apiVersion": "v1",
    "kind": "PersistentVolume",
    "metadata": {"name": "local-node2", "labels": {"disk": "ssd"}},
    "spec": {
        "capacity": {"storage": "5Gi"},
        "accessModes": ["ReadWriteOnce"],
        "storageClassName": "local",
        "local": {"path": "/mnt/disks/d1"},
        "nodeAffinity": {
            "required": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": "kubernetes.io/hostname", "operator": "In", "values": ["node2"]}
                        ]
                    }
                ]
            }
        },
    },
}


def claim(name: str = "data", **spec) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}, **spec},
    }


def cells(kind: str, obj: dict) -> dict:
    table = to_table(kind, [obj])
    names = [c["name"] for c in table["columnDefinitions"]]
    return dict(zip(names, table["rows"][0]["cells"], strict=True))


def test_every_cluster_has_the_default_class_of_the_simulated_provisioner(demo):  # noqa: F811
    items, _ = api.list_objects(demo, "StorageClass")
    assert [sc["metadata"]["name"] for sc in items] == ["standard"]
    row = cells("StorageClass", items[0])
    assert row["Name"] == "standard (default)"
    assert (row["Provisioner"], row["ReclaimPolicy"], row["VolumeBindingMode"]) == (
        "kubesim.io/simulated",
        "Delete",
        "WaitForFirstConsumer",
    )
    with pytest.raises(ApiError) as refused:
        api.delete(demo, "StorageClass", None, "standard", KUBECTL)
    assert refused.value.code == 403


def test_a_claim_without_a_class_gets_the_default_and_an_empty_class_is_kept(demo):  # noqa: F811
    made = api.create(demo, claim(), KUBECTL)
    assert made["spec"]["storageClassName"] == "standard"
    assert made["status"] == {"phase": "Pending"} and made["spec"]["volumeMode"] == "Filesystem"
    empty = api.create(demo, claim("none", storageClassName=""), KUBECTL)
    assert empty["spec"]["storageClassName"] == ""
    row = cells("PersistentVolumeClaim", made)
    assert (row["Status"], row["Volume"], row["Capacity"], row["Access Modes"], row["StorageClass"]) == (
        "Pending",
        "",
        "",
        "",
        "standard",
    )


def test_a_storage_class_defaults_and_its_immutable_fields(demo):  # noqa: F811
    sc = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": "fast"},
        "provisioner": "x.io/d",
    }
    made = api.create(demo, sc, KUBECTL)
    assert (made["reclaimPolicy"], made["volumeBindingMode"]) == ("Delete", "Immediate")
    made["provisioner"] = "y.io/d"
    with pytest.raises(ApiError) as refused:
        api.update(demo, made, KUBECTL)
    assert "provisioner: Forbidden: updates to provisioner are forbidden." in refused.value.message


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (claim(accessModes=[]), "spec.accessModes: Required value: at least 1 access mode is required"),
        (claim(resources={}), "spec.resources[storage]: Required value"),
        (
            {
                **LOCAL_PV,
                "spec": {k: v for k, v in LOCAL_PV["spec"].items() if k not in ("local", "nodeAffinity")},
            },
            "spec: Required value: must specify a volume type",
        ),
    ],
)
def test_upstreams_validation_words(demo, body, message):  # noqa: F811
    with pytest.raises(ApiError) as refused:
        api.create(demo, body, KUBECTL)
    assert refused.value.code == 422 and message in refused.value.message


def test_the_volume_table_and_describe(demo):  # noqa: F811
    pv = api.create(demo, LOCAL_PV, KUBECTL)
    row = cells("PersistentVolume", pv)
    assert row["Capacity"] == "5Gi" and row["Access Modes"] == "RWO" and row["Reclaim Policy"] == "Retain"
    assert (row["Status"], row["Claim"], row["StorageClass"], row["VolumeAttributesClass"]) == (
        "Pending",
        "",
        "local",
        "<unset>",
    )
    lines = persistentvolume.describe_lines(pv)
    assert lines[lines.index("Node Affinity:\t") + 1 :][:3] == [
        "  Required Terms:\t",
        "    Term 0:\tkubernetes.io/hostname in [node2]",
        "Message:\t",
    ]
    assert lines[-2:] == [
        "    Type:\tLocalVolume (a persistent volume backed by local storage on a node)",
        "    Path:\t/mnt/disks/d1",
    ]


def test_a_claims_describe_lists_the_pods_that_mount_it():
    pvc = {**claim(), "metadata": {"name": "data", "namespace": "default"}}
    pods = [{"metadata": {"name": n}} for n in ("web-1", "web-0")]
    lines = persistentvolumeclaim.describe_lines(pvc, pods)
    assert lines[-2:] == ["Used By:\tweb-0", "\tweb-1"]
    cluster = SimpleNamespace(pk=1, created_at=datetime(2026, 1, 1, tzinfo=UTC))
    assert storageclass.describe_lines(storageclass.default_class(cluster))[:2] == [
        "Name:\tstandard",
        "IsDefaultClass:\tYes",
    ]


CSI_NODE = {
    "apiVersion": "storage.k8s.io/v1",
    "kind": "CSINode",
    "metadata": {"name": "node1"},
    "spec": {
        "drivers": [
            {
                "name": "ebs.csi.aws.com",
                "nodeID": "i-0123",
                "allocatable": {"count": 2},
                "topologyKeys": ["zone"],
            }
        ]
    },
}


def test_a_csinode_table_describe_and_validation(demo):  # noqa: F811
    made = api.create(demo, CSI_NODE, KUBECTL)
    assert cells("CSINode", made)["Drivers"] == 1
    lines = csinode.describe_lines(made)
    assert lines[-6:] == [
        "  Drivers:",
        "    ebs.csi.aws.com:",
        "      Node ID:\ti-0123",
        "      Allocatables:",
        "        Count:\t2",
        "      Topology Keys:\t[zone]",
    ]
    bad = {**CSI_NODE, "metadata": {"name": "node2"}}
    bad["spec"] = {"drivers": [{"name": "d.example.com", "nodeID": "", "allocatable": {"count": -1}}]}
    with pytest.raises(ApiError) as refused:
        api.create(demo, bad, KUBECTL)
    assert "spec.drivers[0].nodeID: Required value" in refused.value.message
    assert "spec.drivers[0].allocatable.count: Invalid value: -1: must be greater than or equal to 0" in (
        refused.value.message
    )
