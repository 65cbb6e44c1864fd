"""StorageClasses, PersistentVolumes and PersistentVolumeClaims through the real kubectl: the
default class, tables, describe, and the scheduler's VolumeBinding with upstream's reasons."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from cluster.kubeapi.describe import describe_generic, with_events
from tests.support.waiting import wait_for

pytestmark = pytest.mark.kubectl

LOCAL = """
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: st-local
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: st-local-pv
spec:
  capacity:
    storage: 5Gi
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: st-local
  local:
    path: /mnt/disks/ssd1
  nodeAffinity:
    required:
      nodeSelectorTerms:
        - matchExpressions:
            - key: kubernetes.io/hostname
              operator: In
              values: [node2]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: st-claim
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: st-local
  resources:
    requests:
      storage: 1Gi
"""

SLOW = """
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: st-slow
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: Immediate
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: st-slow-claim
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: st-slow
  resources:
    requests:
      storage: 1Gi
"""


def pod(name: str, claim: str) -> str:
    return f"""
apiVersion: v1
kind: Pod
metadata:
  name: {name}
spec:
  containers:
    - name: web
      image: nginx:1.15
      volumeMounts:
        - name: data
          mountPath: /usr/share/nginx/html
  volumes:
    - name: data
      persistentVolumeClaim:
        claimName: {claim}
"""


def scheduled_message(kubectl, name: str) -> str:
    return kubectl.ok(
        "get", "pod", name, "-o", 'jsonpath={.status.conditions[?(@.type=="PodScheduled")].message}'
    )


def test_every_cluster_has_the_default_storage_class(kubectl):
    lines = kubectl.ok("get", "storageclass").splitlines()
    assert lines[0].split() == [
        "NAME",
        "PROVISIONER",
        "RECLAIMPOLICY",
        "VOLUMEBINDINGMODE",
        "ALLOWVOLUMEEXPANSION",
        "AGE",
    ]
    assert lines[1].split()[:6] == [
        "standard",
        "(default)",
        "kubesim.io/simulated",
        "Delete",
        "WaitForFirstConsumer",
        "true",
    ]
    described = kubectl.ok("describe", "sc", "standard").splitlines()
    assert [" ".join(line.split()) for line in described[:4]] == [
        "Name: standard",
        "IsDefaultClass: Yes",
        "Annotations: storageclass.kubernetes.io/is-default-class=true",
        "Provisioner: kubesim.io/simulated",
    ]


def test_a_local_volume_on_node2_takes_the_pod_there_and_binds_the_claim(kubectl):
    try:
        kubectl.ok("apply", "-f", "-", stdin=LOCAL)
        kubectl.ok("apply", "-f", "-", stdin=pod("st-web", "st-claim"))
        wait_for(
            lambda: kubectl.ok("get", "pvc", "st-claim", "-o", "jsonpath={.status.phase}") == "Bound",
            seconds=30,
        )
        assert kubectl.ok("get", "pod", "st-web", "-o", "jsonpath={.spec.nodeName}") == "node2"
        claims = kubectl.ok("get", "pvc", "st-claim").splitlines()
        header = "NAME STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS VOLUMEATTRIBUTESCLASS AGE"
        assert " ".join(claims[0].split()) == header
        assert claims[1].split()[:7] == [
            "st-claim",
            "Bound",
            "st-local-pv",
            "5Gi",
            "RWO",
            "st-local",
            "<unset>",
        ]
        volumes = kubectl.ok("get", "pv", "st-local-pv").splitlines()
        assert volumes[1].split()[:7] == [
            "st-local-pv",
            "5Gi",
            "RWO",
            "Retain",
            "Bound",
            "default/st-claim",
            "st-local",
        ]
        described = kubectl.ok("describe", "pvc", "st-claim")
        assert "Used By:       st-web" in described
        assert "pv.kubernetes.io/bind-completed: yes" in described
        pv = kubectl.ok("describe", "pv", "st-local-pv")
        assert "    Term 0:        kubernetes.io/hostname in [node2]" in pv
        grow = kubectl.run(
            "patch", "pvc", "st-claim", "-p", '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}'
        )
        assert grow.returncode != 0
        assert (
            'persistentvolumeclaims "st-claim" is forbidden: only dynamically provisioned pvc can be resized '
            "and the storageclass that provisions the pvc must support resize" in grow.stderr
        )
    finally:
        kubectl.run("delete", "pod", "st-web", "--grace-period=0", "--force")
        kubectl.run("delete", "pvc", "st-claim")
        kubectl.run("delete", "pv", "st-local-pv")
        kubectl.run("delete", "sc", "st-local")


def test_an_unbound_immediate_claim_keeps_the_pod_pending(kubectl):
    try:
        kubectl.ok("apply", "-f", "-", stdin=SLOW)
        kubectl.ok("apply", "-f", "-", stdin=pod("st-slow-web", "st-slow-claim"))
        wait_for(lambda: scheduled_message(kubectl, "st-slow-web") != "", seconds=30)
        assert scheduled_message(kubectl, "st-slow-web") == (
            "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: "
            "0/3 nodes are available: 3 Preemption is not helpful for scheduling."
        )
        assert kubectl.ok("get", "pod", "st-slow-web", "-o", "jsonpath={.status.phase}") == "Pending"
        wait_for(lambda: "ProvisioningFailed" in kubectl.ok("describe", "pvc", "st-slow-claim"), seconds=30)
        assert "no volume plugin matched name: kubernetes.io/no-provisioner" in kubectl.ok(
            "describe", "pvc", "st-slow-claim"
        )
    finally:
        kubectl.run("delete", "pod", "st-slow-web", "--grace-period=0", "--force")
        kubectl.run("delete", "pvc", "st-slow-claim")
        kubectl.run("delete", "sc", "st-slow")


def test_a_pod_whose_claim_does_not_exist_stays_pending(kubectl):
    try:
        kubectl.ok("apply", "-f", "-", stdin=pod("st-orphan", "mypvc"))
        wait_for(lambda: scheduled_message(kubectl, "st-orphan") != "", seconds=30)
        assert scheduled_message(kubectl, "st-orphan") == (
            '0/3 nodes are available: persistentvolumeclaim "mypvc" not found. preemption: 0/3 nodes are '
            "available: 3 Preemption is not helpful for scheduling."
        )
        status = kubectl.ok("get", "pod", "st-orphan").splitlines()[1].split()
        assert status[1:3] == ["0/1", "Pending"]
    finally:
        kubectl.run("delete", "pod", "st-orphan", "--grace-period=0", "--force")


CSI_NODE = """
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata:
  name: st-node
spec:
  drivers:
    - name: ebs.csi.aws.com
      nodeID: i-0123
      allocatable:
        count: 2
"""


def test_a_csinode_as_kubectl_prints_it(kubectl):
    try:
        kubectl.ok("apply", "-f", "-", stdin=CSI_NODE)
        lines = kubectl.ok("get", "csinodes", "st-node").splitlines()
        assert lines[0].split() == ["NAME", "DRIVERS", "AGE"]
        assert lines[1].split()[:2] == ["st-node", "1"]
        described = kubectl.ok("describe", "csinode", "st-node")
        assert "      Allocatables:\n        Count:  2" in described
    finally:
        kubectl.run("delete", "csinode", "st-node")


CSI_DRIVER = """
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata:
  name: st.csi.example.com
spec:
  podInfoOnMount: true
"""


def test_a_csidriver_as_kubectl_prints_it(kubectl):
    try:
        kubectl.ok("apply", "-f", "-", stdin=CSI_DRIVER)
        lines = kubectl.ok("get", "csidrivers", "st.csi.example.com").splitlines()
        assert lines[0].split() == [
            "NAME",
            "ATTACHREQUIRED",
            "PODINFOONMOUNT",
            "STORAGECAPACITY",
            "TOKENREQUESTS",
            "REQUIRESREPUBLISH",
            "MODES",
            "AGE",
        ]
        cells = ["st.csi.example.com", "true", "true", "false", "<unset>", "false", "Persistent"]
        assert lines[1].split()[:7] == cells
        obj = json.loads(kubectl.ok("get", "csidriver", "st.csi.example.com", "-o", "json"))
        described = kubectl.ok("describe", "csidriver", "st.csi.example.com")
        assert described == with_events(describe_generic(obj), [], datetime.now(UTC))
        assert "  Fs Group Policy:" in described
    finally:
        kubectl.run("delete", "csidriver", "st.csi.example.com")


def test_a_claim_of_the_default_class_is_provisioned_and_grows(kubectl):
    claim = """
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: st-grow
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
"""
    try:
        kubectl.ok("apply", "-f", "-", stdin=claim)
        kubectl.ok("apply", "-f", "-", stdin=pod("st-grow-web", "st-grow"))
        wait_for(
            lambda: kubectl.ok("get", "pvc", "st-grow", "-o", "jsonpath={.status.phase}") == "Bound",
            seconds=30,
        )
        assert kubectl.ok("get", "pvc", "st-grow", "-o", "jsonpath={.spec.storageClassName}") == "standard"
        kubectl.ok("patch", "pvc", "st-grow", "-p", '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}')
        wait_for(
            lambda: kubectl.ok("get", "pvc", "st-grow", "-o", "jsonpath={.status.capacity.storage}") == "2Gi",
            seconds=30,
        )
        assert "Resize volume succeeded" in kubectl.ok("describe", "pvc", "st-grow")
    finally:
        kubectl.run("delete", "pod", "st-grow-web", "--grace-period=0", "--force")
        kubectl.run("delete", "pvc", "st-grow")
