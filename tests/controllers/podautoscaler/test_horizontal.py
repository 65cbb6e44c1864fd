"""The HPA controller in the demo cluster's control plane, on a fake clock: a `wget` loop against
the Service scales the Deployment up with upstream's conditions and Events; without load it comes
back down after the 5-minute stabilization window; a pod without CPU requests is reported in
upstream's words."""

from __future__ import annotations

import pytest

from cluster.apiserver import service as api
from tests.support.demo import KUBECTL, drive

pytestmark = pytest.mark.django_db(transaction=True)


def web(requests: dict | None) -> dict:
    container = {"name": "nginx", "image": "nginx:1.25"}
    if requests:
        container["resources"] = {"requests": requests}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [container]}},
        },
    }


SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "web"},
    "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]},
}
HPA = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "web"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
        "minReplicas": 1,
        "maxReplicas": 6,
        "metrics": [
            {
                "type": "Resource",
                "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}},
            }
        ],
    },
}
LOAD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "load"},
    "spec": {
        "containers": [
            {
                "name": "load",
                "image": "busybox:1.36",
                "command": ["sh", "-c", "while true; do wget -q -O- http://web; done"],
            }
        ]
    },
}


def replicas(cluster) -> int:
    return api.get(cluster, "Deployment", "default", "web")["spec"]["replicas"]


def events(cluster) -> list[tuple[str, str]]:
    items, _ = api.list_objects(cluster, "Event", "default")
    return [
        (e["reason"], e["message"]) for e in items if e["involvedObject"]["kind"] == "HorizontalPodAutoscaler"
    ]


def conditions(cluster) -> dict:
    status = api.get(cluster, "HorizontalPodAutoscaler", "default", "web").get("status") or {}
    return {c["type"]: (c["status"], c["reason"]) for c in status.get("conditions") or []}


def syncs(clock, count: int, seconds: float = 15) -> None:
    for _ in range(count):
        clock.advance(seconds)
        drive()


def test_load_scales_up_and_quiet_scales_back_down(demo, fake_clock):
    for body in (web({"cpu": "100m"}), SERVICE, HPA):
        api.create(demo, body, KUBECTL)
    drive()
    syncs(fake_clock, 3)  # the pods run past a scrape window; the HPA syncs
    assert replicas(demo) == 1
    assert conditions(demo) == {
        "AbleToScale": ("True", "ReadyForNewScale"),
        "ScalingActive": ("True", "ValidMetricFound"),
        "ScalingLimited": ("False", "DesiredWithinRange"),
    }
    status = api.get(demo, "HorizontalPodAutoscaler", "default", "web")["status"]
    assert status["currentReplicas"] == 1 and status["desiredReplicas"] == 1
    assert status["currentMetrics"][0]["resource"]["current"]["averageUtilization"] < 5

    api.create(demo, LOAD, KUBECTL)
    drive()
    syncs(fake_clock, 3)
    assert replicas(demo) >= 2
    up = [m for r, m in events(demo) if r == "SuccessfulRescale"]
    assert up[0].endswith("; reason: cpu resource utilization (percentage of request) above target")
    syncs(fake_clock, 8)
    assert 4 <= replicas(demo) <= 6

    api.delete(demo, "Pod", "default", "load", KUBECTL, grace_period=0)
    drive()
    syncs(fake_clock, 8)  # two minutes: still inside the scale-down stabilization window
    assert replicas(demo) >= 4
    assert conditions(demo)["AbleToScale"] == ("True", "ScaleDownStabilized")
    syncs(fake_clock, 14)  # past five minutes of low recommendations
    assert replicas(demo) == 1
    assert ("SuccessfulRescale", "New size: 1; reason: All metrics below target") in events(demo)


def test_pods_without_requests_are_reported_in_upstreams_words(demo, fake_clock):
    for body in (web(None), SERVICE, HPA):
        api.create(demo, body, KUBECTL)
    drive()
    syncs(fake_clock, 3)
    pod = api.list_objects(demo, "Pod", "default", label_selector="app=web")[0][0]["metadata"]["name"]
    message = f"failed to get cpu utilization: missing request for cpu in container nginx of Pod {pod}"
    assert ("FailedGetResourceMetric", message) in events(demo)
    assert (
        "FailedComputeMetricsReplicas",
        "invalid metrics (1 invalid out of 1), first error is: "
        f"failed to get cpu resource metric value: {message}",
    ) in events(demo)
    assert conditions(demo)["ScalingActive"] == ("False", "FailedGetResourceMetric")
    status = api.get(demo, "HorizontalPodAutoscaler", "default", "web")["status"]
    assert status["currentMetrics"] == [{"type": ""}]
