"""Preemption seen through the real kubectl, as the teacher: every node (node1 and node2; this
cluster's master has no taint, so it too) is filled with pods of PriorityClass `low`, then a pod
of class `high` is nominated to a node, the victims get their `Preempted` events and go, and the
preemptor is bound there on the next attempt."""

from __future__ import annotations

import json

import pytest

from tests.support.waiting import wait_for

pytestmark = pytest.mark.kubectl


def pod(name: str, cpu: str, klass: str, node: str = "") -> str:
    spec = {
        "priorityClassName": klass,
        "containers": [{"name": "c", "image": "nginx:1.15", "resources": {"requests": {"cpu": cpu}}}],
    }
    if node:
        spec["nodeName"] = node
    return json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec})


def test_a_pod_of_class_high_preempts_low_pods_on_the_nodes(kubectl):
    workers = tuple(n.split("/", 1)[1] for n in kubectl.ok("get", "nodes", "-o", "name").split())
    names = [f"pre-low-{n}" for n in workers] + ["pre-high"]
    try:
        assert (
            kubectl.ok("create", "priorityclass", "low", "--value=10").strip()
            == "priorityclass.scheduling.k8s.io/low created"
        )
        kubectl.ok("create", "priorityclass", "high", "--value=1000", "--description=the preemptor")
        for node in workers:
            allocatable = json.loads(kubectl.ok("get", "node", node, "-o", "json"))["status"]["allocatable"]
            kubectl.ok(
                "apply",
                "-f",
                "-",
                stdin=pod(f"pre-low-{node}", str(int(allocatable["cpu"]) - 1), "low", node),
            )
        assert kubectl.ok("get", "pod", "pre-low-node1", "-o", "jsonpath={.spec.priority}") == "10"
        kubectl.ok("apply", "-f", "-", stdin=pod("pre-high", "2", "high"))
        assert kubectl.ok("get", "pod", "pre-high", "-o", "jsonpath={.spec.priority}") == "1000"
        if not wait_for(lambda: kubectl.ok("get", "pod", "pre-high", "-o", "jsonpath={.spec.nodeName}")):
            pytest.skip("the embedded control plane is not running inside `manage.py serve`")
        uid = kubectl.ok("get", "pod", "pre-high", "-o", "jsonpath={.metadata.uid}")
        node = kubectl.ok("get", "pod", "pre-high", "-o", "jsonpath={.spec.nodeName}")
        assert node in workers
        # The nomination stays on the pod: the kubelet's status writes keep what it does not own.
        assert kubectl.ok("get", "pod", "pre-high", "-o", "jsonpath={.status.nominatedNodeName}") == node

        def preempted() -> list[dict]:
            events = json.loads(kubectl.ok("get", "events", "-o", "json"))["items"]
            return [
                e for e in events if e["reason"] == "Preempted" and e["message"].endswith(f"on node {node}")
            ]

        # Events are written a moment after they happen, as client-go's broadcaster does.
        assert wait_for(preempted), kubectl.ok("describe", "pod", "pre-high")
        victims = {e["involvedObject"]["name"] for e in preempted()}
        assert f"pre-low-{node}" in victims
        for event in preempted():
            assert event["message"] == f"Preempted by pod {uid} on node {node}"
            # Deleted through the API server's deletion path: gone, or terminating gracefully.
            gone = kubectl.run("get", "pod", event["involvedObject"]["name"], "-o", "json")
            assert (gone.returncode != 0 and "NotFound" in gone.stderr) or json.loads(gone.stdout)[
                "metadata"
            ].get("deletionTimestamp")
        for other in workers:
            if other != node:
                kubectl.ok("get", "pod", f"pre-low-{other}")  # the other nodes' pods stay
        described = kubectl.ok("describe", "pod", "pre-high")
        assert "Priority Class Name:  high" in described
        assert "FailedScheduling" in described and "Scheduled" in described
        wide = kubectl.ok("get", "pod", "pre-high", "-o", "wide").splitlines()
        assert "NOMINATED NODE" in wide[0] and wide[1].split()[7] == node
    finally:
        kubectl.run("delete", "pod", *names, "--wait=false", "--ignore-not-found")
        kubectl.run("delete", "priorityclass", "low", "high", "--ignore-not-found")
