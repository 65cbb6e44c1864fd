"""Preemption seen through the real kubectl: a high-priority pod evicts a low-priority one."""

from __future__ import annotations

import json
import time

import pytest

pytestmark = pytest.mark.kubectl


def pod(name: str, cpu: str, priority: int, node: str = "") -> str:
    spec = {
        "priority": priority,
        "containers": [{"name": "c", "image": "nginx:1.15", "resources": {"requests": {"cpu": cpu}}}],
    }
    if node:
        spec["nodeName"] = node
    return json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec})


def _wait(predicate, seconds: float = 20) -> bool:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.3)
    return False


def test_a_high_priority_pod_preempts_and_kubectl_shows_the_events(kubectl):
    nodes = json.loads(kubectl.ok("get", "nodes", "-o", "json"))["items"]
    names = [f"pre-low-{n['metadata']['name']}" for n in nodes] + ["pre-high"]
    try:
        # All but one cpu of every node goes to a low-priority pod (priorities 0, 10, 20, …).
        for index, node in enumerate(nodes):
            cpus = int(node["status"]["allocatable"]["cpu"])
            name = node["metadata"]["name"]
            kubectl.ok("apply", "-f", "-", stdin=pod(f"pre-low-{name}", str(cpus - 1), 10 * index, name))
        kubectl.ok("apply", "-f", "-", stdin=pod("pre-high", "2", 1000))
        if not _wait(lambda: kubectl.ok("get", "pod", "pre-high", "-o", "jsonpath={.spec.nodeName}")):
            pytest.skip("the embedded control plane is not running inside `manage.py serve`")
        uid = kubectl.ok("get", "pod", "pre-high", "-o", "jsonpath={.metadata.uid}")

        def preempted() -> list[dict]:
            events = json.loads(kubectl.ok("get", "events", "-o", "json"))["items"]
            return [e for e in events if e["reason"] == "Preempted"]

        # Events are written a moment after they happen, as client-go's broadcaster does.
        assert _wait(preempted), kubectl.ok("describe", "pod", "pre-high")
        preempted = preempted()
        victim = preempted[-1]
        node = victim["message"].rsplit(" ", 1)[-1]
        assert victim["message"] == f"Preempted by pod {uid} on node {node}"
        # The cheapest victims are on the node whose most important victim has the lowest priority
        # (other tests' pods, priority 0, may be on the nodes too).
        assert victim["involvedObject"]["kind"] == "Pod"
        assert kubectl.ok("get", "pod", "pre-high", "-o", "jsonpath={.spec.nodeName}") == node
        gone = kubectl.run("get", "pod", victim["involvedObject"]["name"])
        assert gone.returncode != 0 and "NotFound" in gone.stderr
        described = kubectl.ok("describe", "pod", "pre-high")
        assert "FailedScheduling" in described and "Scheduled" in described
    finally:
        kubectl.run("delete", "pod", *names, "--wait=false", "--ignore-not-found")
