"""Claims, volumes and pods on the demo cluster, driven through the whole control plane: the
scheduler's VolumeBinding (its reasons byte for byte) and the PV controller's binding,
provisioning and reclaiming."""

from __future__ import annotations

import copy

import pytest

from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from cluster.shell.pods import context_for
from tests.shell.support import run
from tests.support.demo import KUBECTL, demo, drive, drive_until  # noqa: F401

HOSTNAME = "kubernetes.io/hostname"
MERGE = "application/merge-patch+json"
LOCAL_CLASS = {
    "apiVersion": "storage.k8s.io/v1",
    "kind": "StorageClass",
    "metadata": {"name": "local-storage"},
    "provisioner": "kubernetes.io/no-provisioner",
    "volumeBindingMode": "WaitForFirstConsumer",
}
SLOW_CLASS = {**LOCAL_CLASS, "metadata": {"name": "slow"}, "volumeBindingMode": "Immediate"}
LOCAL_PV = {
    "apiVersion": "v1",
    "kind": "PersistentVolume",
    "metadata": {"name": "local-pv"},
    "spec": {
        "capacity": {"storage": "5Gi"},
        "accessModes": ["ReadWriteOnce"],
        "persistentVolumeReclaimPolicy": "Retain",
        "storageClassName": "local-storage",
        "local": {"path": "/mnt/disks/ssd1"},
        "nodeAffinity": {
            "required": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": HOSTNAME, "operator": "In", "values": ["node2"]}]}
                ]
            }
        },
    },
}


def claim(name: str = "mypvc", class_name: str | None = "local-storage") -> dict:
    spec = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
    if class_name is not None:
        spec["storageClassName"] = class_name
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    }


def pod(name: str = "web", claim_name: str = "mypvc") -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "containers": [
                {
                    "name": "nginx",
                    "image": "nginx:1.27",
                    "volumeMounts": [{"name": "data", "mountPath": "/data"}],
                }
            ],
            "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim_name}}],
        },
    }


def get(cluster, kind: str, name: str, namespace: str | None = "default") -> dict:
    return api.get(cluster, kind, namespace, name)


def events_of(cluster, name: str) -> list[tuple[str, str, str]]:
    items, _ = api.list_objects(cluster, "Event", "default")
    return [(e["type"], e["reason"], e["message"]) for e in items if e["involvedObject"]["name"] == name]


def test_a_local_volume_on_node2_takes_the_pod_to_node2_and_binds_the_claim(demo):  # noqa: F811
    drive()
    for body in (LOCAL_CLASS, LOCAL_PV, claim()):
        api.create(demo, copy.deepcopy(body), KUBECTL)
    drive()
    assert get(demo, "PersistentVolume", "local-pv", None)["status"]["phase"] == "Available"
    assert get(demo, "PersistentVolumeClaim", "mypvc")["status"]["phase"] == "Pending"
    assert (
        "Normal",
        "WaitForFirstConsumer",
        "waiting for first consumer to be created before binding",
    ) in events_of(demo, "mypvc")
    api.create(demo, pod(), KUBECTL)
    drive_until(lambda: get(demo, "PersistentVolumeClaim", "mypvc")["status"]["phase"] == "Bound")
    placed = get(demo, "Pod", "web")
    assert placed["spec"]["nodeName"] == "node2"
    bound = get(demo, "PersistentVolumeClaim", "mypvc")
    assert bound["spec"]["volumeName"] == "local-pv"
    assert bound["status"]["capacity"] == {"storage": "5Gi"} and bound["status"]["accessModes"] == [
        "ReadWriteOnce"
    ]
    assert bound["metadata"]["annotations"]["pv.kubernetes.io/bind-completed"] == "yes"
    pv = get(demo, "PersistentVolume", "local-pv", None)
    assert pv["status"]["phase"] == "Bound" and pv["spec"]["claimRef"]["name"] == "mypvc"
    # The claim is deleted after its pod: a Retain volume is Released and kept.
    api.delete(demo, "Pod", "default", "web", KUBECTL)
    api.delete(demo, "PersistentVolumeClaim", "default", "mypvc", KUBECTL)
    drive_until(lambda: get(demo, "PersistentVolume", "local-pv", None)["status"]["phase"] == "Released")
    assert get(demo, "PersistentVolume", "local-pv", None)["status"]["phase"] == "Released"


def test_an_unbound_immediate_claim_keeps_the_pod_pending_in_upstreams_words(demo):  # noqa: F811
    drive()
    api.create(demo, copy.deepcopy(SLOW_CLASS), KUBECTL)
    api.create(demo, claim(class_name="slow"), KUBECTL)
    api.create(demo, pod(), KUBECTL)
    drive()
    assert get(demo, "Pod", "web")["spec"].get("nodeName") is None
    assert events_of(demo, "web")[-1] == (
        "Warning",
        "FailedScheduling",
        "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes "
        "are available: 3 Preemption is not helpful for scheduling.",
    )
    assert (
        "Warning",
        "ProvisioningFailed",
        "no volume plugin matched name: kubernetes.io/no-provisioner",
    ) in events_of(demo, "mypvc")


def test_a_missing_claim_keeps_the_pod_pending_until_the_default_class_provisions_it(demo):  # noqa: F811
    drive()
    api.create(demo, pod(), KUBECTL)
    drive()
    assert events_of(demo, "web")[-1] == (
        "Warning",
        "FailedScheduling",
        '0/3 nodes are available: persistentvolumeclaim "mypvc" not found. preemption: 0/3 nodes are '
        "available: 3 Preemption is not helpful for scheduling.",
    )
    made = api.create(demo, claim(class_name=None), KUBECTL)
    assert made["spec"]["storageClassName"] == "standard"
    drive_until(lambda: get(demo, "PersistentVolumeClaim", "mypvc")["status"]["phase"] == "Bound")
    node = get(demo, "Pod", "web")["spec"]["nodeName"]
    volume = get(demo, "PersistentVolumeClaim", "mypvc")["spec"]["volumeName"]
    assert volume == f"pvc-{made['metadata']['uid']}"
    pv = get(demo, "PersistentVolume", volume, None)
    terms = pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"]
    assert terms == [{"matchExpressions": [{"key": HOSTNAME, "operator": "In", "values": [node]}]}]
    assert pv["metadata"]["annotations"]["pv.kubernetes.io/provisioned-by"] == "kubesim.io/simulated"
    reasons = [reason for _, reason, _ in events_of(demo, "mypvc")]
    assert reasons[-3:] == ["ExternalProvisioning", "Provisioning", "ProvisioningSucceeded"]
    # The class's Delete policy: the claim gone, its volume goes too.
    api.delete(demo, "Pod", "default", "web", KUBECTL)
    api.delete(demo, "PersistentVolumeClaim", "default", "mypvc", KUBECTL)

    def gone() -> bool:
        return not [
            v for v in api.list_objects(demo, "PersistentVolume")[0] if v["metadata"]["name"] == volume
        ]

    drive_until(gone)
    assert gone()


@pytest.mark.parametrize("replicas", [2])
def test_a_stateful_sets_claims_are_provisioned_where_its_pods_land(demo, replicas):  # noqa: F811
    drive()
    body = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "serviceName": "db",
            "selector": {"matchLabels": {"app": "db"}},
            "template": {
                "metadata": {"labels": {"app": "db"}},
                "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]},
            },
            "volumeClaimTemplates": [
                {
                    "metadata": {"name": "data"},
                    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
                }
            ],
        },
    }
    api.create(demo, body, KUBECTL)

    def all_bound() -> bool:
        claims = api.list_objects(demo, "PersistentVolumeClaim", "default")[0]
        return len(claims) == replicas and all(c["status"].get("phase") == "Bound" for c in claims)

    drive_until(all_bound, seconds=30)
    assert all_bound()
    for index in range(replicas):
        node = get(demo, "Pod", f"db-{index}")["spec"]["nodeName"]
        volume = get(
            demo,
            "PersistentVolume",
            get(demo, "PersistentVolumeClaim", f"data-db-{index}")["spec"]["volumeName"],
            None,
        )
        assert volume["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"][0][
            "values"
        ] == [node]


def _exec(cluster, name: str, script: str) -> tuple[int, str]:
    target = api.get(cluster, "Pod", "default", name)
    status, out, _ = run(["sh", "-c", script], ctx=context_for(cluster, target, "nginx", tty=False))
    return status, out


def test_what_a_pod_writes_under_its_volume_is_there_for_the_next_pod(demo):  # noqa: F811
    drive()
    api.create(demo, claim(class_name=None), KUBECTL)
    api.create(demo, pod("writer"), KUBECTL)
    drive_until(lambda: get(demo, "Pod", "writer")["status"].get("phase") == "Running")
    status, _ = _exec(
        demo, "writer", "mkdir /data/notes; echo kept > /data/notes/a.txt; echo gone > /tmp/b.txt"
    )
    assert status == 0
    api.delete(demo, "Pod", "default", "writer", KUBECTL, grace_period=0)
    api.create(demo, pod("reader"), KUBECTL)
    drive_until(lambda: get(demo, "Pod", "reader")["status"].get("phase") == "Running")
    status, out = _exec(demo, "reader", "cat /data/notes/a.txt; ls /data; cat /tmp/b.txt")
    assert out.startswith("kept\nnotes\n")  # the volume's files, not the old container's /tmp
    assert status != 0


def test_a_bound_claim_grows_when_its_class_allows_it(demo):  # noqa: F811
    drive()
    api.create(demo, claim(class_name=None), KUBECTL)
    api.create(demo, pod(), KUBECTL)
    drive_until(lambda: get(demo, "PersistentVolumeClaim", "mypvc")["status"].get("phase") == "Bound")
    grow = {"spec": {"resources": {"requests": {"storage": "3Gi"}}}}
    api.patch(demo, "PersistentVolumeClaim", "default", "mypvc", grow, MERGE, KUBECTL)
    drive_until(
        lambda: get(demo, "PersistentVolumeClaim", "mypvc")["status"]["capacity"] == {"storage": "3Gi"}
    )
    volume = get(demo, "PersistentVolumeClaim", "mypvc")["spec"]["volumeName"]
    assert get(demo, "PersistentVolume", volume, None)["spec"]["capacity"] == {"storage": "3Gi"}
    assert events_of(demo, "mypvc")[-2:] == [
        ("Normal", "Resizing", f"External resizer is resizing volume {volume}"),
        ("Normal", "VolumeResizeSuccessful", "Resize volume succeeded"),
    ]
    shrink = {"spec": {"resources": {"requests": {"storage": "1Gi"}}}}
    with pytest.raises(ApiError) as refused:
        api.patch(demo, "PersistentVolumeClaim", "default", "mypvc", shrink, MERGE, KUBECTL)
    assert "spec.resources.requests.storage: Forbidden: field can not be less than status.capacity" in (
        refused.value.message
    )


def test_a_claim_of_a_class_without_expansion_cannot_grow(demo):  # noqa: F811
    drive()
    for body in (LOCAL_CLASS, LOCAL_PV, claim()):
        api.create(demo, copy.deepcopy(body), KUBECTL)
    api.create(demo, pod(), KUBECTL)
    drive_until(lambda: get(demo, "PersistentVolumeClaim", "mypvc")["status"].get("phase") == "Bound")
    grow = {"spec": {"resources": {"requests": {"storage": "3Gi"}}}}
    with pytest.raises(ApiError) as refused:
        api.patch(demo, "PersistentVolumeClaim", "default", "mypvc", grow, MERGE, KUBECTL)
    assert refused.value.code == 403
    assert refused.value.message == (
        'persistentvolumeclaims "mypvc" is forbidden: only dynamically provisioned pvc can be resized and '
        "the storageclass that provisions the pvc must support resize"
    )
    unbound = api.create(demo, claim("other", class_name="local-storage"), KUBECTL)
    unbound["spec"]["resources"]["requests"]["storage"] = "2Gi"
    with pytest.raises(ApiError) as immutable:
        api.update(demo, unbound, KUBECTL)
    assert (
        "spec: Forbidden: spec is immutable after creation except resources.requests"
        in immutable.value.message
    )
