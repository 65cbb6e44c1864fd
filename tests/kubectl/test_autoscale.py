"""`kubectl autoscale` and the HPA scaling a Deployment up under load and back down, with the real
kubectl (docs/metrics.md): the v1 object kubectl creates, served as v2 by `get hpa`; the table,
conditions and Events in upstream's words; the scale-down after the stabilization window, reached
by jumping the cluster's clock."""

from __future__ import annotations

import json
import re

import pytest

from cluster.kinds.autoscaling.hpa_describe import describe_lines
from cluster.kubeapi.describe import with_events
from k8s import clock
from tests.kubectl.conftest import Kubectl, own_demo
from tests.support.clock import jump_clock
from tests.support.waiting import wait_for

pytestmark = pytest.mark.kubectl
CLUSTER = "autoscaled"  # a cluster of its own: the test moves its clock
LOAD = "while true; do wget -q -O- http://web; done"


@pytest.fixture(scope="module")
def scaled(kubesim, kubectl) -> Kubectl:
    return own_demo(kubesim, kubectl, CLUSTER)


def jump(kubesim, seconds: int) -> None:
    jump_clock(kubesim.http, CLUSTER, {"seconds": seconds})


def replicas(kubectl: Kubectl) -> int:
    return json.loads(kubectl.ok("get", "deployment", "web", "-o", "json"))["spec"]["replicas"]


def hpa(kubectl: Kubectl, version: str = "") -> dict:
    if version:
        path = f"/apis/autoscaling/{version}/namespaces/default/horizontalpodautoscalers/web"
        return json.loads(kubectl.ok("get", "--raw", path))
    return json.loads(kubectl.ok("get", "hpa", "web", "-o", "json"))


def events(kubectl: Kubectl) -> list[tuple[str, str]]:
    listed = json.loads(
        kubectl.ok(
            "get", "events", "--field-selector", "involvedObject.kind=HorizontalPodAutoscaler", "-o", "json"
        )
    )
    return [(e["reason"], e["message"]) for e in listed["items"]]


def until(kubesim, kubectl, check, steps: int = 40, seconds: int = 20):
    """Jump the clock a sync or so at a time until `check` holds (each sync runs 15 s apart)."""
    for _ in range(steps):
        found = check()
        if found:
            return found
        jump(kubesim, seconds)
        wait_for(lambda: False, 0.6)
    return check()


def test_autoscale_scales_up_under_load_and_back_down(scaled, kubesim):
    kubectl = scaled
    kubectl.ok("create", "deployment", "web", "--image=nginx:1.25", "--replicas=1")
    kubectl.ok("set", "resources", "deployment", "web", "--requests=cpu=100m")
    kubectl.ok("expose", "deployment", "web", "--port=80")
    assert (
        kubectl.ok("autoscale", "deployment", "web", "--cpu-percent=50", "--min=1", "--max=6")
        == "horizontalpodautoscaler.autoscaling/web autoscaled\n"
    )
    created = hpa(kubectl)
    assert created["apiVersion"] == "autoscaling/v2"
    assert created["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
    assert created["spec"]["metrics"] == [
        {
            "type": "Resource",
            "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}},
        }
    ]
    table = kubectl.ok("get", "hpa")
    assert re.fullmatch(
        r"NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE\n"
        r"web\s+Deployment/web\s+cpu: <unknown>/50%\s+1\s+6\s+0\s+\d+s\n",
        table,
    ), table

    # The first syncs: idle nginx is far below its target, and one replica is the minimum.
    # (until the pods ran through a scrape window the metric is `<unknown>`: {"type": ""})
    idle = until(
        kubesim, kubectl, lambda: (hpa(kubectl)["status"].get("currentMetrics") or [{}])[0].get("resource")
    )
    assert idle["current"]["averageUtilization"] < 10
    conditions = {c["type"]: c for c in hpa(kubectl)["status"]["conditions"]}
    assert conditions["AbleToScale"]["status"] == "True"
    assert conditions["ScalingActive"]["reason"] == "ValidMetricFound"
    assert conditions["ScalingActive"]["message"] == (
        "the HPA was able to successfully calculate a replica count from "
        "cpu resource utilization (percentage of request)"
    )
    assert conditions["ScalingLimited"]["reason"] == "DesiredWithinRange"

    kubectl.ok("run", "load", "--image=busybox:1.36", "--", "sh", "-c", LOAD)
    assert until(kubesim, kubectl, lambda: replicas(kubectl) > 1), kubectl.ok("describe", "hpa", "web")
    reasons = events(kubectl)
    assert any(
        reason == "SuccessfulRescale"
        and re.fullmatch(
            r"New size: \d+; reason: cpu resource utilization \(percentage of request\) above target", message
        )
        for reason, message in reasons
    ), reasons
    assert until(kubesim, kubectl, lambda: replicas(kubectl) >= 4)
    # The console's describe (and the inspector's) is kubectl's text, up to the Events.
    for _attempt in range(3):
        before, described, after = hpa(kubectl), kubectl.ok("describe", "hpa", "web"), hpa(kubectl)
        if before == after:
            break
    seen = {
        "type": "Normal",
        "reason": "SuccessfulRescale",
        "source": {"component": "horizontal-pod-autoscaler"},
    }
    ours = with_events(describe_lines(after), [seen], clock.now())  # events: the table comes after
    assert described.split("\nEvents:")[0] == ours.split("\nEvents:")[0]
    assert re.search(r"Min replicas:\s+1\nMax replicas:\s+6\n", described)

    # autoscaling/v1 serves the same object: the CPU target as v1's field, the rest in annotations.
    v1 = hpa(kubectl, "v1")
    assert v1["apiVersion"] == "autoscaling/v1"
    assert v1["spec"]["targetCPUUtilizationPercentage"] == 50
    assert "metrics" not in v1["spec"]
    assert "autoscaling.alpha.kubernetes.io/conditions" in v1["metadata"]["annotations"]
    assert v1["status"]["currentCPUUtilizationPercentage"] > 50

    # The load stops: after the 5-minute scale-down window the Deployment is back to one pod.
    kubectl.ok("delete", "pod", "load", "--wait=false")
    assert until(kubesim, kubectl, lambda: replicas(kubectl) == 1, steps=40), kubectl.ok(
        "describe", "hpa", "web"
    )
    assert ("SuccessfulRescale", "New size: 1; reason: All metrics below target") in events(kubectl)


def test_an_invalid_autoscaler_is_refused_in_upstreams_words(scaled):
    body = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "bad"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 3,
            "maxReplicas": 2,
        },
    }
    result = scaled.run("create", "-f", "-", stdin=json.dumps(body))
    assert result.returncode == 1
    assert result.stderr == (
        'The HorizontalPodAutoscaler "bad" is invalid: spec.maxReplicas: Invalid value: 2: '
        "must be greater than or equal to `minReplicas`\n"
    )
