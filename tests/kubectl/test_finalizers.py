"""Finalizers and namespace deletion with the real kubectl, as a 1.33 cluster answers: `delete ns`
→ Terminating (new content refused in upstream's words) → gone; a pod with a finalizer stays
Terminating until `kubectl patch … finalizers: null`; a stuck finalizer keeps its namespace
Terminating with NamespaceFinalizersRemaining."""

from __future__ import annotations

import json

import pytest

from cluster.kinds.core.namespace import describe_namespace
from tests.support.waiting import wait_for

pytestmark = pytest.mark.kubectl
NULL_FINALIZERS = '{"metadata":{"finalizers":null}}'


def held(kind: str, name: str, namespace: str) -> str:
    body = {
        "apiVersion": "v1",
        "kind": kind,
        "metadata": {"name": name, "namespace": namespace, "finalizers": ["example.com/hold"]},
    }
    if kind == "Pod":
        body["spec"] = {"containers": [{"name": "web", "image": "nginx:1.27"}]}
    return json.dumps(body)


def gone(kubectl, *args: str) -> bool:
    result = kubectl.run("get", *args)
    return result.returncode == 1 and "NotFound" in result.stderr


def phase(kubectl, name: str) -> str:
    return kubectl.run("get", "ns", name, "-o", "jsonpath={.status.phase}").stdout


def test_a_deleted_namespace_is_terminating_refuses_new_content_then_is_gone(kubectl):
    kubectl.ok("create", "namespace", "fin-dev")
    kubectl.ok("run", "web", "--image=nginx:1.27", "-n", "fin-dev")
    assert wait_for(lambda: kubectl.run("get", "pod", "web", "-n", "fin-dev").stdout.count("Running"))
    assert kubectl.ok("delete", "namespace", "fin-dev", "--wait=false") == 'namespace "fin-dev" deleted\n'
    assert phase(kubectl, "fin-dev") == "Terminating"
    assert "Terminating" in kubectl.ok("get", "ns", "fin-dev")
    refused = kubectl.run("run", "late", "--image=nginx:1.27", "-n", "fin-dev")
    assert refused.returncode == 1
    assert refused.stderr == (
        'Error from server (Forbidden): pods "late" is forbidden: unable to create new content in namespace '
        "fin-dev because it is being terminated\n"
    )
    again = kubectl.run("delete", "namespace", "fin-dev", "--wait=false")
    assert again.stderr == (
        'Error from server (Conflict): Operation cannot be fulfilled on namespaces "fin-dev": The system is '
        "ensuring all content is removed from this namespace.  Upon completion, this namespace will "
        "automatically be purged by the system.\n"
    )
    assert wait_for(lambda: gone(kubectl, "ns", "fin-dev"), seconds=60)
    assert gone(kubectl, "pod", "web", "-n", "fin-dev")


def test_the_system_namespaces_cannot_be_deleted(kubectl):
    refused = kubectl.run("delete", "namespace", "kube-public")
    assert refused.stderr == (
        'Error from server (Forbidden): namespaces "kube-public" is forbidden: '
        "this namespace may not be deleted\n"
    )


def test_a_pod_with_a_finalizer_stays_terminating_until_the_finalizer_is_removed(kubectl):
    kubectl.ok("apply", "-f", "-", stdin=held("Pod", "held", "default"))
    assert wait_for(lambda: "Running" in kubectl.run("get", "pod", "held").stdout)
    assert kubectl.ok("delete", "pod", "held", "--wait=false") == 'pod "held" deleted\n'

    # nginx stops in a second; its kubelet's final delete leaves the pod to its finalizer
    def grace() -> str:
        return kubectl.run(
            "get", "pod", "held", "-o", "jsonpath={.metadata.deletionGracePeriodSeconds}"
        ).stdout

    assert wait_for(lambda: grace() == "0")
    assert "Terminating" in kubectl.ok("get", "pod", "held")
    refused = kubectl.run(
        "patch", "pod", "held", "--type=merge", "-p", '{"metadata":{"finalizers":["b.io/x"]}}'
    )
    assert refused.stderr == (
        'The Pod "held" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the '
        'object is being deleted, found new finalizers []string{"b.io/x"}\n'
    )
    assert kubectl.ok("patch", "pod", "held", "--type=merge", "-p", NULL_FINALIZERS) == "pod/held patched\n"
    assert wait_for(lambda: gone(kubectl, "pod", "held"))


def test_a_stuck_finalizer_keeps_the_namespace_terminating_with_upstreams_condition(kubectl):
    kubectl.ok("create", "namespace", "fin-stuck")
    kubectl.ok("apply", "-f", "-", stdin=held("ConfigMap", "held", "fin-stuck"))
    kubectl.ok("delete", "namespace", "fin-stuck", "--wait=false")

    def condition() -> dict:
        found = (
            json.loads(kubectl.ok("get", "ns", "fin-stuck", "-o", "json"))["status"].get("conditions") or []
        )
        return next(
            (c for c in found if c["type"] == "NamespaceFinalizersRemaining" and c["status"] == "True"), {}
        )

    stuck = wait_for(condition)
    assert (stuck["reason"], stuck["message"]) == (
        "SomeFinalizerRemain",
        "Some finalizers are remaining: example.com/hold in 1 resource instances",
    )
    assert phase(kubectl, "fin-stuck") == "Terminating"
    stored = json.loads(kubectl.ok("get", "ns", "fin-stuck", "-o", "json"))
    described = kubectl.ok("describe", "ns", "fin-stuck")
    assert "  NamespaceFinalizersRemaining" in described
    assert described == describe_namespace(stored, [], [])  # the console's describer prints the same
    kubectl.ok("patch", "configmap", "held", "-n", "fin-stuck", "--type=merge", "-p", NULL_FINALIZERS)
    assert wait_for(lambda: gone(kubectl, "ns", "fin-stuck"), seconds=60)


CLAIM_AND_POD = """
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: fin-data
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
---
apiVersion: v1
kind: Pod
metadata:
  name: fin-user
spec:
  containers:
  - name: web
    image: nginx:1.27
    volumeMounts:
    - {name: data, mountPath: /data}
  volumes:
  - name: data
    persistentVolumeClaim:
      claimName: fin-data
"""


def test_a_claim_in_use_stays_terminating_until_its_pod_is_gone(kubectl):
    kubectl.ok("apply", "-f", "-", stdin=CLAIM_AND_POD)
    assert wait_for(lambda: "Running" in kubectl.run("get", "pod", "fin-user").stdout)
    finalizers = kubectl.ok("get", "pvc", "fin-data", "-o", "jsonpath={.metadata.finalizers}")
    assert finalizers == '["kubernetes.io/pvc-protection"]'
    assert (
        kubectl.ok("delete", "pvc", "fin-data", "--wait=false")
        == 'persistentvolumeclaim "fin-data" deleted\n'
    )
    assert wait_for(lambda: "Terminating" in kubectl.run("get", "pvc", "fin-data").stdout)
    assert not wait_for(lambda: gone(kubectl, "pvc", "fin-data"), seconds=3)  # its pod still uses it
    kubectl.ok("delete", "pod", "fin-user", "--wait=false")
    assert wait_for(lambda: gone(kubectl, "pvc", "fin-data"), seconds=60)
