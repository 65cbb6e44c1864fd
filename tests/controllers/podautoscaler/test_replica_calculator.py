"""Upstream's replica_calculator_test.go tables for resource metrics, run against
cluster/controllers/podautoscaler/replica_calculator.py with the same harness: test-pod-0.. in
Running (or the phases given), two containers each requesting the CPU given, Ready as given; the
metrics API returns each pod's containers' levels (or only the one container asked for)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest

from cluster.controllers.podautoscaler.metrics import MetricsError
from cluster.controllers.podautoscaler.replica_calculator import (
    CalculationError,
    PodMetric,
    plain_metric_replicas,
    resource_replicas,
)

NOW = datetime(2026, 12, 5, 9, 0, tzinfo=UTC)
ZERO = "0001-01-01T00:00:00Z"
HOT = NOW.strftime("%Y-%m-%dT%H:%M:%SZ")  # hotCPUCreationTime: started just now
COOL = (NOW - timedelta(minutes=3)).strftime("%Y-%m-%dT%H:%M:%SZ")  # coolCPUCreationTime
TESTING = (timedelta(minutes=2), timedelta(seconds=10))  # defaultTesting{CPUInitializationPeriod,DelayOf...}
CONTAINERS = 2  # numContainersPerPod


def levels(*values: int) -> list[list[int]]:
    """makePodMetricLevels."""
    return [[v] * CONTAINERS for v in values]


@dataclass
class Case:
    current: int
    expected: int = 0
    requests: list[str] = field(default_factory=list)
    levels: list[list[int]] = field(default_factory=list)
    target: int = 0
    utilization: int = 0
    value: int = 0
    readiness: list[str] | None = None
    start: list[str] | None = None
    phase: list[str] | None = None
    deleting: list[bool] | None = None
    pod_names: list[str] | None = None
    container: str = ""
    error: str = ""


def pods(case: Case) -> list[dict]:
    count = max(case.current, len(case.phase or []))
    found = []
    for i in range(count):
        container = [{"name": "container1"}, {"name": "container2"}]
        if i < len(case.requests):
            for c in container:
                c["resources"] = {"requests": {"cpu": case.requests[i]}}
        pod = {
            "metadata": {
                "name": f"test-pod-{i}",
                "namespace": "test-namespace",
                "labels": {"name": "test-pod"},
            },
            "spec": {"containers": container},
            "status": {
                "phase": (case.phase or [])[i] if case.phase else "Running",
                "startTime": case.start[i] if case.start else ZERO,
                "conditions": [
                    {
                        "type": "Ready",
                        "status": (case.readiness or [])[i]
                        if case.readiness and i < len(case.readiness)
                        else "True",
                    }
                ],
            },
        }
        if case.deleting and case.deleting[i]:
            pod["metadata"]["deletionTimestamp"] = HOT
        found.append(pod)
    return found


def metrics(case: Case) -> dict[str, PodMetric]:
    """The resource metrics client's answer (GetResourceMetric) over the case's levels."""
    if not case.levels:
        raise MetricsError("no metrics returned from resource metrics API")
    window = timedelta(minutes=1)
    found = {}
    for i, values in enumerate(case.levels):
        name = case.pod_names[i] if case.pod_names and i < len(case.pod_names) else f"test-pod-{i}"
        named = {f"container{j + 1}": v for j, v in enumerate(values)}
        if case.container:
            if case.container in named:
                found[name] = PodMetric(datetime(1, 1, 1, tzinfo=UTC), window, named[case.container])
        else:
            found[name] = PodMetric(datetime(1, 1, 1, tzinfo=UTC), window, sum(values))
    return found


def run(case: Case):
    return resource_replicas(
        case.current, case.target, "cpu", pods(case), metrics(case), NOW, case.container, 0.1, TESTING
    )


ONE = "1.0"
CASES = {
    "ScaleUp": Case(3, 5, [ONE] * 3, levels(300, 500, 700), 30, 50, CONTAINERS * 500),
    "ContainerScaleUp": Case(
        3, 5, [ONE] * 3, [[1000, 300], [1000, 500], [1000, 700]], 30, 50, 500, container="container2"
    ),
    "ScaleUpUnreadyLessScale": Case(
        3, 4, [ONE] * 3, levels(300, 500, 700), 30, 60, CONTAINERS * 600, readiness=["False", "True", "True"]
    ),
    "ScaleUpContainerHotCpuLessScale": Case(
        3,
        4,
        [ONE] * 3,
        [[0, 300], [0, 500], [0, 700]],
        30,
        60,
        600,
        start=[HOT, COOL, COOL],
        container="container2",
    ),
    "ScaleUpHotCpuLessScale": Case(
        3, 4, [ONE] * 3, levels(300, 500, 700), 30, 60, CONTAINERS * 600, start=[HOT, COOL, COOL]
    ),
    "ScaleUpUnreadyNoScale": Case(
        3, 3, [ONE] * 3, levels(400, 500, 700), 30, 40, CONTAINERS * 400, readiness=["True", "False", "False"]
    ),
    "ScaleHotCpuNoScale": Case(
        3,
        3,
        [ONE] * 3,
        levels(400, 500, 700),
        30,
        40,
        CONTAINERS * 400,
        readiness=["True", "False", "False"],
        start=[COOL, HOT, HOT],
    ),
    "ScaleUpIgnoresFailedPods": Case(
        2,
        4,
        [ONE] * 4,
        levels(500, 700),
        30,
        60,
        CONTAINERS * 600,
        readiness=["True", "True", "False", "False"],
        phase=["Running", "Running", "Failed", "Failed"],
    ),
    "ScaleUpContainerIgnoresFailedPods": Case(
        2,
        4,
        [ONE] * 4,
        [[1000, 500], [9000, 700]],
        30,
        60,
        600,
        readiness=["True", "True", "False", "False"],
        phase=["Running", "Running", "Failed", "Failed"],
        container="container2",
    ),
    "ScaleUpIgnoresDeletionPods": Case(
        2,
        4,
        [ONE] * 4,
        levels(500, 700),
        30,
        60,
        CONTAINERS * 600,
        readiness=["True", "True", "False", "False"],
        phase=["Running"] * 4,
        deleting=[False, False, True, True],
    ),
    "ScaleDown": Case(5, 3, [ONE] * 5, levels(100, 300, 500, 250, 250), 50, 28, CONTAINERS * 280),
    "ContainerScaleDown": Case(
        5,
        3,
        [ONE] * 5,
        [[1000, 100], [1000, 300], [1000, 500], [1000, 250], [1000, 250]],
        50,
        28,
        280,
        container="container2",
    ),
    "ScaleDownExcludeUnreadyPods": Case(
        5,
        2,
        [ONE] * 5,
        levels(100, 300, 500, 250, 250),
        50,
        30,
        CONTAINERS * 300,
        readiness=["True", "True", "True", "False", "False"],
    ),
    "ScaleDownExcludeUnscheduledPods": Case(
        5,
        1,
        [ONE] * 5,
        levels(100),
        50,
        10,
        CONTAINERS * 100,
        readiness=["True", "False", "False", "False", "False"],
        phase=["Running", "Pending", "Pending", "Pending", "Pending"],
    ),
    "ScaleDownIgnoreHotCpuPods": Case(
        5,
        2,
        [ONE] * 5,
        levels(100, 300, 500, 250, 250),
        50,
        30,
        CONTAINERS * 300,
        start=[COOL, COOL, COOL, HOT, HOT],
    ),
    "ScaleDownContainerIgnoreHotCpuPods": Case(
        5,
        2,
        [ONE] * 5,
        [[1000, 100], [1000, 300], [1000, 500], [1000, 1000], [1000, 1000]],
        50,
        30,
        300,
        start=[COOL, COOL, COOL, HOT, HOT],
        container="container2",
    ),
    "ScaleDownIgnoresFailedPods": Case(
        5,
        3,
        [ONE] * 7,
        levels(100, 300, 500, 250, 250),
        50,
        28,
        CONTAINERS * 280,
        readiness=["True"] * 5 + ["False"] * 2,
        phase=["Running"] * 5 + ["Failed"] * 2,
    ),
    "ScaleDownIgnoresDeletionPods": Case(
        5,
        3,
        [ONE] * 7,
        levels(100, 300, 500, 250, 250),
        50,
        28,
        CONTAINERS * 280,
        readiness=["True"] * 5 + ["False"] * 2,
        phase=["Running"] * 7,
        deleting=[False] * 5 + [True] * 2,
    ),
    "Tolerance": Case(3, 3, ["0.9", "1.0", "1.1"], levels(1010, 1030, 1020), 100, 102, CONTAINERS * 1020),
    "SuperfluousMetrics": Case(
        4, 24, [ONE] * 4, levels(4000, 9500, 3000, 7000, 3200, 2000), 100, 587, CONTAINERS * 5875
    ),
    "MissingMetrics": Case(4, 3, [ONE] * 4, levels(400, 95), 100, 24, 495),
    "MissingMetricsNoChangeEq": Case(2, 2, [ONE] * 2, levels(1000), 100, 100, CONTAINERS * 1000),
    "MissingMetricsNoChangeGt": Case(2, 2, [ONE] * 2, levels(1900), 100, 190, CONTAINERS * 1900),
    "MissingMetricsNoChangeLt": Case(2, 2, [ONE] * 2, levels(600), 100, 60, CONTAINERS * 600),
    "MissingMetricsUnreadyChange": Case(
        3, 3, [ONE] * 3, levels(100, 450), 50, 45, CONTAINERS * 450, readiness=["False", "True", "True"]
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_replica_calculator(name):
    case = CASES[name]
    assert run(case) == (case.expected, case.utilization, case.value)


@pytest.mark.parametrize(
    ("case", "error"),
    [
        (
            Case(1, requests=[ONE], levels=levels(100), target=100, pod_names=["an-older-pod-name"]),
            "no metrics returned matched known pods",
        ),
        (Case(4, requests=[ONE] * 3, levels=[], target=100), "no metrics returned from resource metrics API"),
        (Case(1, requests=[], levels=levels(200), target=100), "missing request for"),
    ],
    ids=["DisjointResourcesMetrics", "EmptyMetrics", "EmptyCPURequest"],
)
def test_replica_calculator_errors(case, error):
    with pytest.raises((CalculationError, MetricsError), match=error):
        run(case)


def plain(current: int, values: list[int], target: int) -> tuple[int, int]:
    """GetMetricReplicas' calculation (calcPlainMetricReplicas) for pods' metric values."""
    case = Case(current, requests=[ONE] * current)
    found = {
        f"test-pod-{i}": PodMetric(datetime(1, 1, 1, tzinfo=UTC), timedelta(minutes=1), v)
        for i, v in enumerate(values)
    }
    return plain_metric_replicas(current, target, "", pods(case), found, NOW, 0.1, TESTING)


def test_plain_metric_tables():
    assert plain(3, [20000, 10000, 30000], 15000) == (4, 20000)  # ScaleUpCM
    assert plain(5, [12000] * 5, 20000) == (3, 12000)  # ScaleDownCM
    assert plain(3, [20000, 21000, 21000], 20000) == (3, 20666)  # ToleranceCM
    assert plain(5, [20000, 19000, 21000], 20000) == (
        5,
        20000,
    )  # PlainMetricReplicaCalcMissingMetricsNoChangeEq
