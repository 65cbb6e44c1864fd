"""`describe` of workloads, namespaces and events: the console's text is real kubectl's."""

from __future__ import annotations

import json
import time

from cluster.kinds.apps.daemonset import describe_daemon_set
from cluster.kinds.batch.job import describe_job
from cluster.kinds.core.namespace import describe_namespace
from cluster.kinds.core.replicationcontroller import describe_replication_controller
from cluster.kinds.scheduling.priorityclass import describe_priority_class
from cluster.kubeapi.describe import describe_generic, involves, with_events
from tests.support.waiting import without_ages

RC = """apiVersion: v1
kind: ReplicationController
metadata:
  name: described
spec:
  replicas: 2
  selector:
    app: described
  template:
    metadata:
      labels:
        app: described
    spec:
      nodeSelector:
        kubernetes.io/hostname: node1
      containers:
        - name: nginx
          image: nginx:1.15
          ports:
            - containerPort: 80
"""


def _wait_running(kubectl, selector: str, count: int) -> list[dict]:
    for _ in range(100):
        pods = json.loads(kubectl.ok("get", "pods", "-l", selector, "-o", "json"))["items"]
        if len(pods) == count and all(p["status"].get("phase") == "Running" for p in pods):
            return pods
        time.sleep(0.2)
    raise AssertionError(f"pods {selector} did not run")


def test_describe_rc_is_kubectls_text(kubectl):
    kubectl.ok("apply", "-f", "-", stdin=RC)
    try:
        pods = _wait_running(kubectl, "app=described", 2)
        time.sleep(0.5)  # the RC's status catches up
        out = kubectl.ok("describe", "rc", "described")
        rc = json.loads(kubectl.ok("get", "rc", "described", "-o", "json"))
        events = json.loads(kubectl.ok("get", "events", "-o", "json"))["items"]
        ours = with_events(
            describe_replication_controller(rc, pods), [e for e in events if involves(e, rc)], _now()
        )
        assert "Pods Status:  2 Running / 0 Waiting / 0 Succeeded / 0 Failed" in out
        assert without_ages(out) == without_ages(ours)
    finally:
        kubectl.ok("delete", "rc", "described")


def test_describe_namespace_and_an_event_are_kubectls_text(kubectl):
    namespace = json.loads(kubectl.ok("get", "namespace", "default", "-o", "json"))
    assert kubectl.ok("describe", "namespace", "default") == describe_namespace(namespace, [], [])
    events = json.loads(kubectl.ok("get", "events", "-o", "json"))["items"]
    if not events:
        kubectl.ok("apply", "-f", "-", stdin=RC)
        kubectl.ok("delete", "rc", "described")
        events = json.loads(kubectl.ok("get", "events", "-o", "json"))["items"]
    event = events[0]
    out = kubectl.ok("describe", "event", event["metadata"]["name"])
    ours = with_events(describe_generic(event), [], _now())
    assert out == ours


def _now():
    from datetime import UTC, datetime

    return datetime.now(UTC)


def test_describe_priority_class_job_and_daemon_set_are_kubectls_text(kubectl):
    def events_about(obj: dict) -> list[dict]:
        return [e for e in json.loads(kubectl.ok("get", "events", "-o", "json"))["items"] if involves(e, obj)]

    def same(kind: str, name: str, lines_of) -> None:
        obj = json.loads(kubectl.ok("get", kind, name, "-o", "json"))
        out = kubectl.ok("describe", kind, name)
        assert without_ages(out) == without_ages(with_events(lines_of(obj), events_about(obj), _now()))

    try:
        kubectl.ok("create", "priorityclass", "described-pc", "--value=42", "--description=for describe")
        same("priorityclass", "described-pc", describe_priority_class)
        same("priorityclass", "system-node-critical", describe_priority_class)
        kubectl.ok("create", "job", "described-job", "--image=busybox:1.36", "--", "echo", "hi")
        for _ in range(100):
            if "Complete" in kubectl.ok("get", "job", "described-job"):
                break
            time.sleep(0.2)
        same("job", "described-job", describe_job)
        kubectl.ok(
            "apply",
            "-f",
            "-",
            stdin=RC.replace("ReplicationController", "DaemonSet")
            .replace("apiVersion: v1", "apiVersion: apps/v1")
            .replace("  replicas: 2\n", "")
            .replace("  selector:\n    app: described", "  selector:\n    matchLabels:\n      app: described")
            .replace("name: described", "name: described-ds"),
        )
        pods = _wait_running(kubectl, "app=described", 1)
        time.sleep(0.5)  # the DaemonSet's status catches up
        same("daemonset", "described-ds", lambda ds: describe_daemon_set(ds, pods))
    finally:
        kubectl.run("delete", "ds", "described-ds", "--ignore-not-found")
        kubectl.run("delete", "job", "described-job", "--ignore-not-found")
        kubectl.run("delete", "priorityclass", "described-pc", "--ignore-not-found")
