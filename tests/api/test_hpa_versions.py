"""HorizontalPodAutoscalers in autoscaling/v2 (stored) and v1 (converted, as upstream's
conversion.go): discovery lists both, v2 preferred; a v1 create is stored as v2 and read back in
either; a v1 patch changes the v2 object; what v1 cannot say survives a round trip through it."""

from __future__ import annotations

import json

import pytest

from cluster.kinds.autoscaling.hpa_v1 import from_v1, to_v1
from cluster.kubeapi import discovery

pytestmark = [pytest.mark.urls("tests.api.urls"), pytest.mark.django_db]

V1 = "/clusters/demo/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"
V2 = "/clusters/demo/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
TARGET = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}


def test_discovery_serves_both_versions_v2_preferred():
    entry = next(g for g in discovery.api_group_list()["groups"] if g["name"] == "autoscaling")
    assert [v["version"] for v in entry["versions"]] == ["v2", "v1"]
    assert entry["preferredVersion"]["version"] == "v2"
    v1 = discovery.api_resource_list("autoscaling", "v1")
    assert [(r["name"], r["kind"]) for r in v1["resources"]] == [
        ("horizontalpodautoscalers", "HorizontalPodAutoscaler"),
        ("horizontalpodautoscalers/status", "HorizontalPodAutoscaler"),
    ]
    aggregated = next(
        g for g in discovery.aggregated(core=False)["items"] if g["metadata"]["name"] == "autoscaling"
    )
    assert [v["version"] for v in aggregated["versions"]] == ["v2", "v1"]


def test_a_v1_create_is_stored_as_v2_and_served_in_both(client, cluster):
    body = {
        "apiVersion": "autoscaling/v1",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web"},
        "spec": {"scaleTargetRef": TARGET, "maxReplicas": 5, "targetCPUUtilizationPercentage": 60},
    }
    created = client.post(V1, json.dumps(body), content_type="application/json")
    assert created.status_code == 201, created.content
    assert created.json()["apiVersion"] == "autoscaling/v1"
    assert created.json()["spec"] == {
        "scaleTargetRef": TARGET,
        "minReplicas": 1,
        "maxReplicas": 5,
        "targetCPUUtilizationPercentage": 60,
    }
    v2 = client.get(f"{V2}/web").json()
    assert v2["apiVersion"] == "autoscaling/v2"
    assert v2["spec"]["metrics"] == [
        {
            "type": "Resource",
            "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}},
        }
    ]
    listed = client.get(V1).json()
    assert listed["kind"] == "HorizontalPodAutoscalerList" and listed["apiVersion"] == "autoscaling/v1"
    assert listed["items"][0]["spec"]["targetCPUUtilizationPercentage"] == 60
    patched = client.patch(
        f"{V1}/web",
        json.dumps({"spec": {"targetCPUUtilizationPercentage": 70}}),
        content_type="application/merge-patch+json",
    )
    assert patched.status_code == 200, patched.content
    assert patched.json()["spec"]["targetCPUUtilizationPercentage"] == 70
    assert (
        client.get(f"{V2}/web").json()["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"] == 70
    )


def test_v2_validation_in_upstreams_words(client, cluster):
    body = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "bad"},
        "spec": {
            "scaleTargetRef": {"kind": "Deployment"},
            "maxReplicas": 0,
            "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization"}}}],
            "behavior": {"scaleUp": {"policies": [{"type": "Pods", "value": 0, "periodSeconds": 15}]}},
        },
    }
    answer = client.post(V2, json.dumps(body), content_type="application/json")
    assert answer.status_code == 422
    assert [c["field"] for c in answer.json()["details"]["causes"]] == [
        "spec.maxReplicas",
        "spec.maxReplicas",
        "spec.scaleTargetRef.name",
        "spec.metrics[0].resource.target.averageUtilization",
        "spec.behavior.scaleUp.policies[0].value",
    ]
    assert "spec.maxReplicas: Invalid value: 0: must be greater than 0" in answer.json()["message"]


def test_what_v1_cannot_say_survives_a_round_trip():
    stored = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "default", "annotations": {"team": "a"}},
        "spec": {
            "scaleTargetRef": TARGET,
            "minReplicas": 2,
            "maxReplicas": 9,
            "metrics": [
                {
                    "type": "Resource",
                    "resource": {
                        "name": "memory",
                        "target": {"type": "AverageValue", "averageValue": "100Mi"},
                    },
                },
                {
                    "type": "Resource",
                    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}},
                },
            ],
            "behavior": {
                "scaleDown": {
                    "stabilizationWindowSeconds": 60,
                    "selectPolicy": "Max",
                    "policies": [{"type": "Pods", "value": 1, "periodSeconds": 30}],
                }
            },
        },
        "status": {
            "currentReplicas": 3,
            "desiredReplicas": 4,
            "currentMetrics": [
                {"type": "Resource", "resource": {"name": "memory", "current": {"averageValue": "80Mi"}}},
                {
                    "type": "Resource",
                    "resource": {"name": "cpu", "current": {"averageUtilization": 75, "averageValue": "75m"}},
                },
            ],
            "conditions": [
                {
                    "type": "AbleToScale",
                    "status": "True",
                    "reason": "ReadyForNewScale",
                    "message": "recommended size matches current size",
                }
            ],
        },
    }
    v1 = to_v1(stored)
    assert v1["spec"]["targetCPUUtilizationPercentage"] == 50
    assert v1["status"]["currentCPUUtilizationPercentage"] == 75
    assert set(v1["metadata"]["annotations"]) == {
        "team",
        "autoscaling.alpha.kubernetes.io/metrics",
        "autoscaling.alpha.kubernetes.io/behavior",
        "autoscaling.alpha.kubernetes.io/current-metrics",
        "autoscaling.alpha.kubernetes.io/conditions",
    }
    back = from_v1(v1)
    assert back["metadata"]["annotations"] == {"team": "a"}
    assert back["spec"] == stored["spec"]
    assert back["status"] == stored["status"]


def test_a_v1_get_is_v1(client, cluster):
    body = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web"},
        "spec": {"scaleTargetRef": TARGET, "maxReplicas": 3},
    }
    assert client.post(V2, json.dumps(body), content_type="application/json").status_code == 201
    got = client.get(f"{V1}/web", headers={"Accept": "application/json"}).json()
    assert got["apiVersion"] == "autoscaling/v1"
    assert got["spec"]["targetCPUUtilizationPercentage"] == 80
