"""A StatefulSet with the real kubectl: two pods with stable names created in order, its table,
describe and rollout status as kubectl prints them, its pods' DNS names through the headless
Service, a rolling update's history, and a scale-down from the highest ordinal."""

from __future__ import annotations

import json
import re

import pytest

from cluster.kinds.apps.statefulset import describe_stateful_set
from cluster.kubeapi.describe import involves, with_events
from k8s import clock
from tests.support.waiting import wait_for, without_ages

pytestmark = pytest.mark.kubectl

MANIFEST = """apiVersion: v1
kind: Service
metadata:
  name: stable
spec:
  clusterIP: None
  selector: {app: stable}
  ports:
  - port: 80
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: stable
spec:
  serviceName: stable
  replicas: 2
  selector:
    matchLabels: {app: stable}
  template:
    metadata:
      labels: {app: stable}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports:
        - containerPort: 80
"""
CLIENT = """apiVersion: v1
kind: Pod
metadata:
  name: stable-client
spec:
  containers:
  - name: bb
    image: busybox:1.36
    command: [sleep, "3600"]
"""


def pods(kubectl) -> list[dict]:
    return json.loads(kubectl.ok("get", "pods", "-l", "app=stable", "-o", "json"))["items"]


def test_a_stateful_set_of_two_gets_stable_names_in_order(kubectl):
    kubectl.ok("apply", "-f", "-", stdin=MANIFEST)
    kubectl.ok("apply", "-f", "-", stdin=CLIENT)
    try:
        status = kubectl.run("rollout", "status", "sts/stable", "--timeout=60s", timeout=70)
        assert status.returncode == 0
        assert status.stdout.endswith("partitioned roll out complete: 2 new pods have been updated...\n")
        assert sorted(p["metadata"]["name"] for p in pods(kubectl)) == ["stable-0", "stable-1"]
        assert re.fullmatch(r"NAME\s+READY\s+AGE\nstable\s+2/2\s+\d+s\n", kubectl.ok("get", "sts", "stable"))
        messages = [
            e["message"]
            for e in json.loads(kubectl.ok("get", "events", "-o", "json"))["items"]
            if e["involvedObject"]["name"] == "stable" and e["involvedObject"]["kind"] == "StatefulSet"
        ]
        assert messages[:2] == [
            "create Pod stable-0 in StatefulSet stable successful",
            "create Pod stable-1 in StatefulSet stable successful",
        ]
        for pod in pods(kubectl):
            name = pod["metadata"]["name"]
            assert (pod["spec"]["hostname"], pod["spec"]["subdomain"]) == (name, "stable")

        out = kubectl.ok("describe", "sts", "stable")
        sts = json.loads(kubectl.ok("get", "sts", "stable", "-o", "json"))
        events = json.loads(kubectl.ok("get", "events", "-o", "json"))["items"]
        ours = with_events(
            describe_stateful_set(sts, pods(kubectl)), [e for e in events if involves(e, sts)], clock.now()
        )
        assert without_ages(ours) == without_ages(out)

        assert wait_for(lambda: "Running" in kubectl.ok("get", "pod", "stable-client"))
        ip = next(p["status"]["podIP"] for p in pods(kubectl) if p["metadata"]["name"] == "stable-0")
        looked_up = kubectl.ok(
            "exec", "stable-client", "--", "nslookup", "stable-0.stable.default.svc.cluster.local"
        )
        assert looked_up.endswith(f"Name:\tstable-0.stable.default.svc.cluster.local\nAddress: {ip}\n\n")

        kubectl.ok("set", "image", "sts/stable", "nginx=nginx:1.25")
        assert kubectl.run("rollout", "status", "sts/stable", "--timeout=60s", timeout=70).returncode == 0
        assert {p["spec"]["containers"][0]["image"] for p in pods(kubectl)} == {"nginx:1.25"}
        history = kubectl.ok("rollout", "history", "sts/stable")
        assert (
            history
            == "statefulset.apps/stable \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n"
        )

        kubectl.ok("scale", "sts/stable", "--replicas=1")
        assert wait_for(lambda: [p["metadata"]["name"] for p in pods(kubectl)] == ["stable-0"])
    finally:
        kubectl.run("delete", "pod", "stable-client", "--grace-period=0", "--force")
        kubectl.run("delete", "-f", "-", stdin=MANIFEST)
