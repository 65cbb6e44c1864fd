"""Probes through the real kubectl: a readiness probe on a closed port leaves the pod `0/1` and out
of its Service's endpoints, with the kubelet's words; a failing liveness probe restarts the
container; describe prints upstream's stored defaults."""

from __future__ import annotations

import json

import pytest

from tests.support.waiting import wait_for

pytestmark = pytest.mark.kubectl

UNREADY = """
apiVersion: v1
kind: Pod
metadata:
  name: unready
  labels: {app: unready}
spec:
  containers:
  - name: web
    image: nginx:1.27
    readinessProbe:
      httpGet: {port: 8080}
---
apiVersion: v1
kind: Service
metadata:
  name: unready
spec:
  selector: {app: unready}
  ports:
  - port: 80
"""

SICK = """
apiVersion: v1
kind: Pod
metadata:
  name: sick
spec:
  containers:
  - name: web
    image: nginx:1.27
    livenessProbe:
      tcpSocket: {port: 8080}
      periodSeconds: 1
      failureThreshold: 2
"""


def _row(kubectl, name: str) -> list[str]:
    result = kubectl.run("get", "pod", name, "--no-headers")
    return result.stdout.split() if result.returncode == 0 else []


def test_a_readiness_probe_on_a_closed_port_gives_0_of_1_and_no_endpoint(kubectl):
    kubectl.ok("apply", "-f", "-", stdin=UNREADY)
    try:
        assert wait_for(lambda: _row(kubectl, "unready")[1:3] == ["0/1", "Running"], 30), _row(
            kubectl, "unready"
        )
        pod = json.loads(kubectl.ok("get", "pod", "unready", "-o", "json"))
        ip = pod["status"]["podIP"]
        refused = f"dial tcp {ip}:8080: connect: connection refused"
        failed = f'Readiness probe failed: Get "http://{ip}:8080/": {refused}'
        assert wait_for(lambda: failed in kubectl.ok("describe", "pod", "unready"), 20)
        described = kubectl.ok("describe", "pod", "unready")
        assert (
            "Readiness:      http-get http://:8080/ delay=0s timeout=1s period=10s #success=1 #failure=3"
            in (described)
        )
        assert "  Ready               False" in described or "Ready             False" in described
        # Only notReadyAddresses: kube-apiserver's printer leaves the ENDPOINTS column empty.
        assert kubectl.ok("get", "endpoints", "unready", "--no-headers").split()[:1] == ["unready"]
        subsets = json.loads(kubectl.ok("get", "endpoints", "unready", "-o", "json"))["subsets"]
        assert [a["ip"] for s in subsets for a in s.get("addresses") or []] == []
        assert [a["ip"] for s in subsets for a in s.get("notReadyAddresses") or []] == [ip]
        assert pod["status"]["containerStatuses"][0]["ready"] is False
    finally:
        kubectl.run("delete", "-f", "-", "--wait=false", stdin=UNREADY)


def test_a_failing_liveness_probe_restarts_the_container(kubectl):
    kubectl.ok("apply", "-f", "-", stdin=SICK)
    try:
        assert wait_for(lambda: [*_row(kubectl, "sick"), "", "", "", ""][3] not in ("", "0"), 30), _row(
            kubectl, "sick"
        )
        described = kubectl.ok("describe", "pod", "sick")
        assert "Container web failed liveness probe, will be restarted" in described
        assert (
            "Liveness probe failed: dial tcp " in described
            and ":8080: connect: connection refused" in described
        )
        assert (
            "Liveness:       tcp-socket :8080 delay=0s timeout=1s period=1s #success=1 #failure=2"
            in described
        )
        pod = json.loads(kubectl.ok("get", "pod", "sick", "-o", "json"))
        status = pod["status"]["containerStatuses"][0]
        assert status["restartCount"] >= 1
        assert status["lastState"]["terminated"]["reason"] == "Completed"
    finally:
        kubectl.run("delete", "pod", "sick", "--wait=false")
