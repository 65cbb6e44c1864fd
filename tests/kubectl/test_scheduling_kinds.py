"""PriorityClasses, Jobs and DaemonSets through the real kubectl: typed creates (protobuf
bodies), tables, describe and rollout status."""

from __future__ import annotations

import json

import pytest

from tests.support.waiting import wait_for

pytestmark = pytest.mark.kubectl


def test_every_cluster_has_the_system_priority_classes_and_refuses_to_delete_them(kubectl):
    lines = kubectl.ok("get", "priorityclasses").splitlines()
    assert lines[0].split() == ["NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"]
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert rows["system-cluster-critical"][1:3] == ["2000000000", "false"]
    assert rows["system-node-critical"][1:3] == ["2000001000", "false"]
    assert rows["system-node-critical"][-1] == "PreemptLowerPriority"
    refused = kubectl.run("delete", "pc", "system-node-critical")
    assert refused.returncode != 0
    assert (
        'priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: '
        "this is a system priority class and cannot be deleted" in refused.stderr
    )


def test_priority_class_rules_and_priority_admission_errors(kubectl):
    try:
        too_high = kubectl.run("create", "priorityclass", "huge", "--value=1000000001")
        assert "maximum allowed value of a user defined priority is 1000000000" in too_high.stderr
        reserved = kubectl.run("create", "priorityclass", "system-mine", "--value=5")
        assert (
            "priority class names with 'system-' prefix are reserved for system use only" in reserved.stderr
        )
        kubectl.ok("create", "priorityclass", "pc-default", "--value=7", "--global-default")
        second = kubectl.run("create", "priorityclass", "pc-default2", "--value=8", "--global-default")
        assert (
            "PriorityClass pc-default is already marked as default. Only one default can exist"
            in second.stderr
        )
        kubectl.ok("run", "pc-defaulted", "--image=nginx:1.15")
        assert kubectl.ok(
            "get", "pod", "pc-defaulted", "-o", "jsonpath={.spec.priorityClassName} {.spec.priority}"
        ) == ("pc-default 7")
        missing = kubectl.run(
            "run",
            "pc-missing",
            "--image=nginx:1.15",
            "--overrides",
            '{"spec": {"priorityClassName": "nope"}}',
        )
        assert 'pods "pc-missing" is forbidden: no PriorityClass with name nope was found' in missing.stderr
        described = kubectl.ok("describe", "priorityclass", "pc-default")
        assert described.splitlines()[:4] == [
            "Name:              pc-default",
            "Value:             7",
            "GlobalDefault:     true",
            "PreemptionPolicy:  PreemptLowerPriority",
        ]
    finally:
        kubectl.run("delete", "pod", "pc-defaulted", "--wait=false", "--ignore-not-found")
        kubectl.run("delete", "pc", "pc-default", "--ignore-not-found")


def test_kubectl_create_job_runs_to_complete(kubectl):
    try:
        assert (
            kubectl.ok("create", "job", "hi", "--image=busybox:1.36", "--", "echo", "hi").strip()
            == "job.batch/hi created"
        )
        if not wait_for(lambda: "Complete" in kubectl.ok("get", "jobs", "hi")):
            pytest.skip("the embedded control plane is not running inside `manage.py serve`")
        header, row = kubectl.ok("get", "jobs", "hi").splitlines()
        assert header.split() == ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]
        assert row.split()[:3] == ["hi", "Complete", "1/1"]
        pods = json.loads(kubectl.ok("get", "pods", "-l", "job-name=hi", "-o", "json"))["items"]
        assert len(pods) == 1 and pods[0]["status"]["phase"] == "Succeeded"
        status = kubectl.ok("get", "pods", "-l", "job-name=hi").splitlines()[1].split()[2]
        assert status == "Completed"
        described = kubectl.ok("describe", "job", "hi")
        statuses = next(line for line in described.splitlines() if line.startswith("Pods Statuses:"))
        assert statuses.split(":", 1)[1].strip() == "0 Active (0 Ready) / 1 Succeeded / 0 Failed"
        assert "Completed" in described  # the Job's event
    finally:
        kubectl.run("delete", "job", "hi", "--ignore-not-found")


def test_a_failing_job_pod_shows_error(kubectl):
    try:
        kubectl.ok("create", "job", "boom", "--image=busybox:1.36", "--", "sh", "-c", "exit 1")
        if not wait_for(lambda: "Error" in kubectl.ok("get", "pods", "-l", "job-name=boom")):
            pytest.skip("the embedded control plane is not running inside `manage.py serve`")
    finally:
        kubectl.run("delete", "job", "boom", "--ignore-not-found")


DAEMON_SET = """\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      containers:
        - name: agent
          image: nginx:1.27
          ports:
            - containerPort: 80
"""


def test_kubectl_get_ds_and_rollout_status(kubectl):
    try:
        kubectl.ok("apply", "-f", "-", stdin=DAEMON_SET)
        rolled = kubectl.run("rollout", "status", "ds/agent", "--timeout=30s")
        if rolled.returncode != 0:
            pytest.skip("the embedded control plane is not running inside `manage.py serve`")
        assert rolled.stdout.strip().endswith('daemon set "agent" successfully rolled out')
        header, row = kubectl.ok("get", "ds").splitlines()[:2]
        assert header.split() == [
            "NAME",
            "DESIRED",
            "CURRENT",
            "READY",
            "UP-TO-DATE",
            "AVAILABLE",
            "NODE",
            "SELECTOR",
            "AGE",
        ]
        nodes = str(len(kubectl.ok("get", "nodes", "-o", "name").split()))  # none is tainted here
        assert row.split()[:7] == ["agent", nodes, nodes, nodes, nodes, nodes, "<none>"]
        described = kubectl.ok("describe", "ds", "agent")
        assert f"Desired Number of Nodes Scheduled: {nodes}" in described
        status = next(line for line in described.splitlines() if line.startswith("Pods Status:"))
        assert status.split(":", 1)[1].strip() == f"{nodes} Running / 0 Waiting / 0 Succeeded / 0 Failed"
        # A new image rolls out node by node; the strategic merge keeps the container's ports.
        kubectl.ok("set", "image", "ds/agent", "agent=nginx:1.25")
        rolled = kubectl.run("rollout", "status", "ds/agent", "--timeout=60s")
        assert rolled.returncode == 0, rolled.stderr
        template = json.loads(kubectl.ok("get", "ds", "agent", "-o", "json"))["spec"]["template"]
        (container,) = template["spec"]["containers"]
        assert (container["image"], container["ports"][0]["containerPort"]) == ("nginx:1.25", 80)
        # The replaced pods may still be Terminating (graceful deletion), as on a real cluster.
        pods = json.loads(kubectl.ok("get", "pods", "-l", "app=agent", "-o", "json"))["items"]
        live = [p for p in pods if not p["metadata"].get("deletionTimestamp")]
        assert len(live) == int(nodes)
        assert {p["spec"]["containers"][0]["image"] for p in live} == {"nginx:1.25"}
    finally:
        kubectl.run("delete", "ds", "agent", "--ignore-not-found")
