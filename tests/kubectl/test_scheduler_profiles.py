"""The scheduler's profiles through the real kubectl: ConfigMap kube-system/kube-scheduler with a
second profile using MostAllocated packs its pods onto the fuller node while the default profile
spreads; a pod for a scheduler no profile runs stays Pending with no events."""

from __future__ import annotations

import time

import pytest

from tests.kubectl.conftest import Kubectl, own_demo
from tests.support.waiting import wait_for

pytestmark = pytest.mark.kubectl
CLUSTER = "profiled"  # a cluster of its own: which node is fuller must not depend on other tests

CONFIG = """
apiVersion: v1
kind: ConfigMap
metadata:
  name: kube-scheduler
  namespace: kube-system
data:
  config.yaml: |
    apiVersion: kubescheduler.config.k8s.io/v1
    kind: KubeSchedulerConfiguration
    profiles:
      - schedulerName: default-scheduler
      - schedulerName: bin-packing
        pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: MostAllocated
"""


def pod(name: str, cpu: str, scheduler: str = "", node: str = "") -> str:
    lines = [
        "apiVersion: v1",
        "kind: Pod",
        f"metadata: {{name: {name}}}",
        "spec:",
        "  affinity:",
        "    nodeAffinity:",
        "      requiredDuringSchedulingIgnoredDuringExecution:",
        "        nodeSelectorTerms:",
        "          - matchExpressions:",
        "              - {key: kubernetes.io/hostname, operator: In, values: [node1, node2]}",
        "  containers:",
        f"    - {{name: c, image: 'nginx:1.15', resources: {{requests: {{cpu: '{cpu}'}}}}}}",
    ]
    if scheduler:
        lines.append(f"  schedulerName: {scheduler}")
    if node:
        lines.append(f"  nodeName: {node}")
    return "\n".join(lines) + "\n"


def node_of(kubectl, name: str) -> str:
    return kubectl.ok("get", "pod", name, "-o", "jsonpath={.spec.nodeName}")


@pytest.fixture(scope="module")
def profiled(kubesim, kubectl) -> Kubectl:
    return own_demo(kubesim, kubectl, CLUSTER)


def test_a_most_allocated_profile_packs_while_the_default_spreads(profiled):
    kubectl = profiled
    names = ("sp-fill", "sp-packed", "sp-spread")
    try:
        kubectl.ok("apply", "-f", "-", stdin=CONFIG)
        kubectl.ok("apply", "-f", "-", stdin=pod("sp-fill", "3", node="node1"))
        kubectl.ok("apply", "-f", "-", stdin=pod("sp-packed", "200m", "bin-packing"))
        wait_for(lambda: node_of(kubectl, "sp-packed") != "", seconds=30)
        kubectl.ok("apply", "-f", "-", stdin=pod("sp-spread", "200m"))
        wait_for(lambda: node_of(kubectl, "sp-spread") != "", seconds=30)
        assert node_of(kubectl, "sp-packed") == "node1"
        assert node_of(kubectl, "sp-spread") == "node2"
        events = kubectl.ok("get", "events", "--field-selector", "involvedObject.name=sp-packed")
        assert "Scheduled" in events and "bin-packing" in kubectl.ok("describe", "pod", "sp-packed")
    finally:
        kubectl.run("delete", "pod", *names, "--wait=false")
        kubectl.run("delete", "configmap", "kube-scheduler", "-n", "kube-system")


def test_a_pod_for_a_scheduler_nobody_runs_stays_pending_with_no_events(profiled):
    kubectl = profiled
    try:
        kubectl.ok("apply", "-f", "-", stdin=pod("sp-orphan", "100m", "my-scheduler"))
        time.sleep(3)  # what a scheduler would have done by now, none does
        table = kubectl.ok("get", "pod", "sp-orphan").splitlines()
        assert table[1].split()[:3] == ["sp-orphan", "0/1", "Pending"]
        events = kubectl.run("get", "events", "--field-selector", "involvedObject.name=sp-orphan")
        assert events.stdout == ""
        assert "No resources found in default namespace." in events.stderr
        described = kubectl.ok("describe", "pod", "sp-orphan")
        assert described.splitlines()[-1].split() == ["Events:", "<none>"]
    finally:
        kubectl.run("delete", "pod", "sp-orphan", "--wait=false")
