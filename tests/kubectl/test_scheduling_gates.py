"""Pod scheduling readiness through the real kubectl: a gated pod prints SchedulingGated, a gate
cannot be added, and removing the gates lets the scheduler place it."""

from __future__ import annotations

import json

import pytest

from tests.support.waiting import wait_for

pytestmark = pytest.mark.kubectl

GATED = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "gated"},
    "spec": {
        "schedulingGates": [{"name": "example.com/quota"}],
        "containers": [{"name": "c", "image": "nginx:1.15"}],
    },
}


def test_a_gated_pod_waits_refuses_new_gates_and_runs_once_released(kubectl):
    try:
        assert kubectl.ok("apply", "-f", "-", stdin=json.dumps(GATED)).strip() == "pod/gated created"
        row = kubectl.ok("get", "pod", "gated", "--no-headers").split()
        assert row[:3] == ["gated", "0/1", "SchedulingGated"]
        message = kubectl.ok(
            "get", "pod", "gated", "-o", 'jsonpath={.status.conditions[?(@.type=="PodScheduled")].message}'
        )
        assert message == "Scheduling is blocked due to non-empty scheduling gates"
        add = '[{"op":"add","path":"/spec/schedulingGates/-","value":{"name":"example.com/another"}}]'
        refused = kubectl.run("patch", "pod", "gated", "--type=json", "-p", add)
        assert refused.returncode == 1
        assert refused.stderr.strip() == (
            'The Pod "gated" is invalid: spec.schedulingGates[1].name: Forbidden: only deletion is allowed, '
            "but found new scheduling gate 'example.com/another'"
        )
        events = kubectl.ok("get", "events", "--field-selector", "involvedObject.name=gated", "-o", "name")
        assert "FailedScheduling" not in kubectl.ok("describe", "pod", "gated") and events.strip() == ""
        kubectl.ok(
            "patch", "pod", "gated", "--type=json", "-p", '[{"op":"remove","path":"/spec/schedulingGates"}]'
        )
        node = wait_for(lambda: kubectl.ok("get", "pod", "gated", "-o", "jsonpath={.spec.nodeName}"))
        assert node, "released: scheduled"
    finally:
        kubectl.run("delete", "pod", "gated", "--now", "--ignore-not-found")
