"""Tables and pod status as the API server's printers compute them (no server needed)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from cluster.kubeapi.humanize import human_duration
from cluster.kubeapi.negotiation import table_version
from cluster.kubeapi.podstatus import pod_summary
from cluster.kubeapi.tables import to_table

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def pod(status: dict | None = None, **meta) -> dict:
    return {
        "metadata": {
            "name": "web",
            "namespace": "default",
            "creationTimestamp": "2025-12-31T23:59:00Z",
            **meta,
        },
        "spec": {"containers": [{"name": "nginx", "image": "nginx"}]},
        "status": status or {"phase": "Pending"},
    }


def waiting(reason: str) -> dict:
    return {
        "phase": "Pending",
        "containerStatuses": [{"name": "nginx", "state": {"waiting": {"reason": reason}}}],
    }


@pytest.mark.parametrize(
    ("obj", "ready", "reason"),
    [
        (pod(), "0/1", "Pending"),
        (pod(waiting("ContainerCreating")), "0/1", "ContainerCreating"),
        (pod(waiting("ErrImagePull")), "0/1", "ErrImagePull"),
        (pod(waiting("ImagePullBackOff")), "0/1", "ImagePullBackOff"),
        (
            pod(
                {
                    "phase": "Running",
                    "containerStatuses": [{"name": "nginx", "ready": True, "state": {"running": {}}}],
                }
            ),
            "1/1",
            "Running",
        ),
        (
            pod(
                {
                    "phase": "Running",
                    "containerStatuses": [{"name": "nginx", "ready": True, "state": {"running": {}}}],
                },
                deletionTimestamp="2026-01-01T00:00:30Z",
            ),
            "1/1",
            "Terminating",
        ),
    ],
)
def test_pod_ready_and_status_columns(obj, ready, reason):
    summary = pod_summary(obj)
    assert (f"{summary.ready}/{summary.total}", summary.reason) == (ready, reason)
    row = to_table("Pod", [obj], now=NOW)["rows"][0]
    assert row["cells"][:5] == ["web", ready, reason, "0", "60s"]


def test_restarts_show_when_the_last_restart_was():
    status = {
        "phase": "Running",
        "containerStatuses": [
            {
                "name": "nginx",
                "ready": True,
                "restartCount": 2,
                "state": {"running": {}},
                "lastState": {"terminated": {"finishedAt": "2025-12-31T23:55:00Z"}},
            }
        ],
    }
    assert to_table("Pod", [pod(status)], now=NOW)["rows"][0]["cells"][3] == "2 (5m ago)"


def test_wide_columns_are_priority_one_and_name_has_format_name():
    table = to_table("Pod", [pod()], now=NOW)
    columns = {c["name"]: c for c in table["columnDefinitions"]}
    assert columns["Name"]["format"] == "name"
    assert [c["name"] for c in table["columnDefinitions"] if c["priority"] == 1] == [
        "IP",
        "Node",
        "Nominated Node",
        "Readiness Gates",
    ]
    assert table["rows"][0]["object"]["kind"] == "PartialObjectMetadata"
    assert table["rows"][0]["object"]["metadata"]["namespace"] == "default"
    assert len(to_table("Pod", [pod()], wide=False, now=NOW)["rows"][0]["cells"]) == 5


def test_node_status_roles_and_deployment_ready():
    node = {
        "metadata": {"name": "master", "labels": {"node-role.kubernetes.io/control-plane": ""}},
        "spec": {"unschedulable": True},
        "status": {
            "conditions": [{"type": "Ready", "status": "True"}],
            "nodeInfo": {"kubeletVersion": "v1.33.1"},
        },
    }
    assert to_table("Node", [node], now=NOW)["rows"][0]["cells"][:3] == [
        "master",
        "Ready,SchedulingDisabled",
        "control-plane",
    ]
    deploy = {
        "metadata": {"name": "x"},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "x"}},
            "template": {"spec": {"containers": []}},
        },
        "status": {"readyReplicas": 2, "updatedReplicas": 3, "availableReplicas": 2},
    }
    cells = to_table("Deployment", [deploy], now=NOW)["rows"][0]["cells"]
    assert cells[:4] == ["x", "2/3", 3, 2] and cells[-1] == "app=x"


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (5, "5s"),
        (119, "119s"),
        (150, "2m30s"),
        (600, "10m"),
        (3 * 3600 + 720, "3h12m"),
        (9 * 3600, "9h"),
        (4 * 86400 + 5 * 3600, "4d5h"),
    ],
)
def test_human_duration_matches_apimachinery(seconds, text):
    assert human_duration(timedelta(seconds=seconds)) == text


def test_table_version_follows_kubectls_accept_header():
    accept = (
        "application/json;as=Table;v=v1;g=meta.k8s.io,"
        "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
    )
    assert table_version(accept) == "v1"
    assert table_version("application/json") is None
