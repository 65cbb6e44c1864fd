"""replica_calculator.go: the desired replica count from the pods' metrics and their requests.

Pure: the pods come as dicts, the metrics as {pod name: PodMetric}; time is passed in. Upstream's
table tests drive it (tests/controllers/podautoscaler/test_replica_calculator.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from k8s.quantity import milli_value

TOLERANCE = 0.1  # --horizontal-pod-autoscaler-tolerance
ZERO_TIME = datetime(1, 1, 1, tzinfo=UTC)  # Go's zero time.Time: a field never set
CPU_INITIALIZATION_PERIOD = timedelta(minutes=5)  # --horizontal-pod-autoscaler-cpu-initialization-period
DELAY_OF_INITIAL_READINESS_STATUS = timedelta(
    seconds=30
)  # --horizontal-pod-autoscaler-initial-readiness-delay


class CalculationError(Exception):
    """What the calculation could not do, in upstream's words."""


@dataclass(frozen=True, slots=True)
class PodMetric:
    timestamp: datetime
    window: timedelta
    value: int  # milli-units: millicores of CPU, milli-bytes of memory


def _time(text: object) -> datetime | None:
    if not isinstance(text, str):
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def _ready_condition(pod: dict) -> dict | None:
    return next(
        (c for c in (pod.get("status") or {}).get("conditions") or [] if c.get("type") == "Ready"), None
    )


def _is_ready(pod: dict) -> bool:
    condition = _ready_condition(pod)
    return condition is not None and condition.get("status") == "True"


def group_pods(
    pods: list[dict],
    metrics: dict[str, PodMetric],
    resource: str,
    now: datetime,
    cpu_initialization_period: timedelta = CPU_INITIALIZATION_PERIOD,
    delay_of_initial_readiness_status: timedelta = DELAY_OF_INITIAL_READINESS_STATUS,
) -> tuple[int, set[str], set[str], set[str]]:
    """groupPods: (ready count, unready pods, pods missing metrics, ignored pods)."""
    ready, unready, missing, ignored = 0, set(), set(), set()
    for pod in pods:
        name, status = pod["metadata"]["name"], pod.get("status") or {}
        if pod["metadata"].get("deletionTimestamp") or status.get("phase") == "Failed":
            ignored.add(name)
            continue
        if status.get("phase") == "Pending":
            unready.add(name)
            continue
        metric = metrics.get(name)
        if metric is None:
            missing.add(name)
            continue
        if resource == "cpu":
            condition, started = _ready_condition(pod), _time(status.get("startTime"))
            if condition is None or started is None:
                is_unready = True
            else:
                transition = _time(condition.get("lastTransitionTime")) or ZERO_TIME
                if started + cpu_initialization_period > now:
                    # still initializing: unready, or no whole window of metrics since it became ready
                    is_unready = (
                        condition.get("status") == "False" or metric.timestamp < transition + metric.window
                    )
                else:
                    # unready and never ready since it started
                    is_unready = (
                        condition.get("status") == "False"
                        and started + delay_of_initial_readiness_status > transition
                    )
            if is_unready:
                unready.add(name)
                continue
        ready += 1
    return ready, unready, missing, ignored


def calculate_requests(pods: list[dict], container: str, resource: str) -> dict[str, int]:
    """calculatePodRequestsFromContainers for each pod: milli-units requested (sidecars count)."""
    requests = {}
    for pod in pods:
        spec = pod.get("spec") or {}
        containers = list(spec.get("containers") or [])
        containers += [c for c in spec.get("initContainers") or [] if c.get("restartPolicy") == "Always"]
        total, found = 0, False
        for c in containers:
            if container and c.get("name") != container:
                continue
            request = ((c.get("resources") or {}).get("requests") or {}).get(resource)
            if request is None:
                where = f"container {c.get('name')} of Pod {pod['metadata']['name']}"
                raise CalculationError(f"missing request for {resource} in {where}")
            total += milli_value(request)
            found = True
        if container and not found:
            raise CalculationError(f"container {container} not found in Pod {pod['metadata']['name']}")
        requests[pod["metadata"]["name"]] = total
    return requests


def resource_utilization_ratio(
    metrics: dict[str, PodMetric], requests: dict[str, int], target_utilization: int
) -> tuple[float, int, int]:
    """GetResourceUtilizationRatio: (ratio, utilization %, raw average milli-value)."""
    metrics_total = requests_total = entries = 0
    for name, metric in metrics.items():
        if name not in requests:
            continue  # a metric of a pod we do not know (missing requests are checked elsewhere)
        metrics_total += metric.value
        requests_total += requests[name]
        entries += 1
    if requests_total == 0:
        raise CalculationError("no metrics returned matched known pods")
    utilization = (metrics_total * 100) // requests_total  # Go's int64 division (values are >= 0)
    return utilization / target_utilization, utilization, metrics_total // entries


def metric_usage_ratio(metrics: dict[str, PodMetric], target_usage: int) -> tuple[float, int]:
    """GetMetricUsageRatio: (ratio, average usage)."""
    total = sum(m.value for m in metrics.values())
    usage = total // len(metrics)
    return usage / target_usage, usage


def _within(ratio: float, tolerance: float) -> bool:
    return abs(1.0 - ratio) <= tolerance


def resource_replicas(
    current_replicas: int,
    target_utilization: int,
    resource: str,
    pods: list[dict],
    metrics: dict[str, PodMetric],
    now: datetime,
    container: str = "",
    tolerance: float = TOLERANCE,
    timing: tuple[timedelta, timedelta] = (CPU_INITIALIZATION_PERIOD, DELAY_OF_INITIAL_READINESS_STATUS),
) -> tuple[int, int, int]:
    """GetResourceReplicas after its metrics are fetched: (replicas, utilization %, raw average).
    `timing`: the CPU initialization period and the initial readiness delay."""
    if not pods:
        raise CalculationError("no pods returned by selector while calculating replica count")
    metrics = dict(metrics)
    ready, unready, missing, ignored = group_pods(pods, metrics, resource, now, *timing)
    for name in ignored | unready:
        metrics.pop(name, None)
    if not metrics:
        raise CalculationError("did not receive metrics for targeted pods (pods might be unready)")
    requests = calculate_requests(pods, container, resource)
    ratio, utilization, raw = resource_utilization_ratio(metrics, requests, target_utilization)
    scale_up_with_unready = bool(unready) and ratio > 1.0
    if not scale_up_with_unready and not missing:
        if _within(ratio, tolerance):
            return current_replicas, utilization, raw
        return math.ceil(ratio * ready), utilization, raw
    if missing:
        if ratio < 1.0:
            # on a scale-down, missing pods use 100% of their request (or the target, when above)
            fallback = max(100, target_utilization)
            for name in missing:
                metrics[name] = PodMetric(now, timedelta(0), requests[name] * fallback // 100)
        elif ratio > 1.0:
            for name in missing:  # on a scale-up, they use nothing
                metrics[name] = PodMetric(now, timedelta(0), 0)
    if scale_up_with_unready:
        for name in unready:
            metrics[name] = PodMetric(now, timedelta(0), 0)
    new_ratio, _, _ = resource_utilization_ratio(metrics, requests, target_utilization)
    if _within(new_ratio, tolerance) or (ratio < 1.0 < new_ratio) or (ratio > 1.0 > new_ratio):
        return current_replicas, utilization, raw  # too small a change, or the direction flipped
    replicas = math.ceil(new_ratio * len(metrics))
    if (new_ratio < 1.0 and replicas > current_replicas) or (new_ratio > 1.0 and replicas < current_replicas):
        return current_replicas, utilization, raw
    return replicas, utilization, raw


def plain_metric_replicas(
    current_replicas: int,
    target_usage: int,
    resource: str,
    pods: list[dict],
    metrics: dict[str, PodMetric],
    now: datetime,
    tolerance: float = TOLERANCE,
    timing: tuple[timedelta, timedelta] = (CPU_INITIALIZATION_PERIOD, DELAY_OF_INITIAL_READINESS_STATUS),
) -> tuple[int, int]:
    """calcPlainMetricReplicas (an averageValue target): (replicas, average usage)."""
    if not pods:
        raise CalculationError("no pods returned by selector while calculating replica count")
    metrics = dict(metrics)
    ready, unready, missing, ignored = group_pods(pods, metrics, resource, now, *timing)
    for name in ignored | unready:
        metrics.pop(name, None)
    if not metrics:
        raise CalculationError("did not receive metrics for targeted pods (pods might be unready)")
    ratio, usage = metric_usage_ratio(metrics, target_usage)
    scale_up_with_unready = bool(unready) and ratio > 1.0
    if not scale_up_with_unready and not missing:
        if _within(ratio, tolerance):
            return current_replicas, usage
        return math.ceil(ratio * ready), usage
    if missing:
        value = target_usage if ratio < 1.0 else 0
        if ratio != 1.0:
            for name in missing:
                metrics[name] = PodMetric(now, timedelta(0), value)
    if scale_up_with_unready:
        for name in unready:
            metrics[name] = PodMetric(now, timedelta(0), 0)
    new_ratio, _ = metric_usage_ratio(metrics, target_usage)
    if _within(new_ratio, tolerance) or (ratio < 1.0 < new_ratio) or (ratio > 1.0 > new_ratio):
        return current_replicas, usage
    replicas = math.ceil(new_ratio * len(metrics))
    if (new_ratio < 1.0 and replicas > current_replicas) or (new_ratio > 1.0 and replicas < current_replicas):
        return current_replicas, usage
    return replicas, usage
