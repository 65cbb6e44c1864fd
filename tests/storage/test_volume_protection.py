"""The pvc/pv-protection finalizers: added by admission, removed by their controllers once the
claim or volume is unused — a claim in use by a pod stays Terminating until the pod is gone."""

from __future__ import annotations

import pytest

from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from cluster.kinds.core.persistentvolume import status_line
from tests.storage.test_binding_live import claim, pod
from tests.support.demo import KUBECTL, demo, drive, drive_until  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


def gone(cluster, kind: str, name: str, namespace: str | None = "default") -> bool:
    try:
        api.get(cluster, kind, namespace, name)
    except ApiError as err:
        return err.code == 404
    return False


def test_admission_adds_the_protection_finalizers(demo):  # noqa: F811
    created = api.create(demo, claim("c", class_name="standard"), KUBECTL)
    assert created["metadata"]["finalizers"] == ["kubernetes.io/pvc-protection"]
    volume = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": "v", "finalizers": ["example.com/mine"]},
        "spec": {
            "capacity": {"storage": "1Gi"},
            "accessModes": ["ReadWriteOnce"],
            "hostPath": {"path": "/d"},
        },
    }
    assert api.create(demo, volume, KUBECTL)["metadata"]["finalizers"] == [
        "example.com/mine",
        "kubernetes.io/pv-protection",
    ]


def test_a_claim_in_use_stays_terminating_until_its_pod_is_gone_then_its_volume_goes(demo, fake_clock):  # noqa: F811
    api.create(demo, claim("data", class_name="standard"), KUBECTL)
    api.create(demo, pod("web", "data"), KUBECTL)
    drive_until(lambda: api.get(demo, "Pod", "default", "web")["spec"].get("nodeName"))
    volume = api.get(demo, "PersistentVolumeClaim", "default", "data")["spec"]["volumeName"]
    assert api.get(demo, "PersistentVolume", None, volume)["metadata"]["finalizers"] == [
        "kubernetes.io/pv-protection"
    ]
    api.delete(demo, "PersistentVolumeClaim", "default", "data", KUBECTL)
    drive()
    kept = api.get(demo, "PersistentVolumeClaim", "default", "data")
    assert kept["metadata"]["deletionTimestamp"]
    assert kept["metadata"]["finalizers"] == ["kubernetes.io/pvc-protection"]
    fake_clock.advance(12)
    assert status_line(kept) == "Status:\tTerminating (lasts 12s)"  # describePersistentVolumeClaim's
    api.delete(demo, "Pod", "default", "web", KUBECTL)
    drive()
    assert not gone(demo, "PersistentVolumeClaim", "data")  # its pod still terminates
    fake_clock.advance(2)  # nginx stops in 1 s
    drive()
    assert gone(demo, "Pod", "web")
    assert gone(demo, "PersistentVolumeClaim", "data")
    assert gone(demo, "PersistentVolume", volume, None)  # the class's Delete policy, then pv-protection


def test_a_bound_volume_being_deleted_stays_until_its_claim_is_gone(demo):  # noqa: F811
    volume = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": "v"},
        "spec": {
            "capacity": {"storage": "1Gi"},
            "accessModes": ["ReadWriteOnce"],
            "storageClassName": "",
            "persistentVolumeReclaimPolicy": "Retain",
            "hostPath": {"path": "/d"},
        },
    }
    api.create(demo, volume, KUBECTL)
    api.create(demo, claim("data", class_name=""), KUBECTL)
    drive()
    assert api.get(demo, "PersistentVolume", None, "v")["status"]["phase"] == "Bound"
    api.delete(demo, "PersistentVolume", None, "v", KUBECTL)
    drive()
    assert api.get(demo, "PersistentVolume", None, "v")["metadata"]["deletionTimestamp"]
    api.delete(demo, "PersistentVolumeClaim", "default", "data", KUBECTL)  # unused: goes
    drive()
    assert gone(demo, "PersistentVolumeClaim", "data")
    assert gone(demo, "PersistentVolume", "v", None)  # Released, so no longer protected
