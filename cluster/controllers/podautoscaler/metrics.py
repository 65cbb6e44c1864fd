"""The HPA controller's metrics clients (upstream's podautoscaler/metrics): the resource metrics
API's PodMetrics as {pod: PodMetric}, read from the same usage model the metrics API serves
(cluster/usage), so the controller sees what `kubectl top` shows. No custom or external metrics API
is served: those metric types fail as against a cluster without an adapter."""

from __future__ import annotations

from datetime import timedelta

from cluster.controllers.podautoscaler.replica_calculator import PodMetric
from cluster.usage.model import WINDOW, Sample


class MetricsError(Exception):
    pass


NO_CUSTOM_METRICS = (
    "unable to fetch metrics from custom metrics API: "
    "no custom metrics API (custom.metrics.k8s.io) registered"
)
NO_EXTERNAL_METRICS = (
    "unable to fetch metrics from external metrics API: "
    "no external metrics API (external.metrics.k8s.io) registered"
)


def _milli(resource: str, millicores: float, memory: int) -> int | None:
    """Quantity.MilliValue of the usage metrics-server reports (nanocores, kibibytes)."""
    if resource == "cpu":
        return -(-round(millicores * 1_000_000) // 1_000_000)
    if resource == "memory":
        return (memory // 1024) * 1024 * 1000
    return None


def resource_metric(
    sample: Sample, resource: str, namespace: str, pod_names: set[str], container: str = ""
) -> dict[str, PodMetric]:
    """GetResourceMetric: the selected pods' usage of `resource` (one container's, or the pod's)."""
    found = {}
    for (pod_namespace, name), usage in sample.pods.items():
        if pod_namespace != namespace or name not in pod_names:
            continue
        found[name] = usage
    if not found:
        raise MetricsError("no metrics returned from resource metrics API")
    window = timedelta(seconds=WINDOW)
    metrics = {}
    for name, usage in found.items():
        if container:
            chosen = [c for c in usage.containers if c.name == container]
            if not chosen:
                raise MetricsError(
                    f"failed to get container metrics: container {container} not present in metrics for pod "
                    f"{namespace}/{name}"
                )
        else:
            chosen = list(usage.containers)
        values = [_milli(resource, c.millicores, c.memory) for c in chosen]
        if chosen and all(v is not None for v in values):
            metrics[name] = PodMetric(sample.timestamp, window, sum(values))  # type: ignore[arg-type]
    return metrics
