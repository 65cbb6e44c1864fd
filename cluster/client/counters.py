"""Counters the control plane's components keep in this process, for `/metrics`.

A component adds to a named series of its cluster; `/metrics` (cluster/api/metrics.py) prints the
caller's cluster's (a gauge is set to what the component sees now). Only what a component really
counts is here, under upstream's names and help texts. They count in the process the component
runs in: `manage.py serve` with its embedded control plane shows them; in the scale-out profile
the `controlplane` processes count them and a `serve --no-control-plane` process has none to show.
"""

from __future__ import annotations

import threading
from collections import defaultdict

SCHEDULE_ATTEMPTS = "scheduler_schedule_attempts_total"
PREEMPTION_ATTEMPTS = "scheduler_preemption_attempts_total"
PENDING_PODS = "scheduler_pending_pods"

# name → (type, help), as upstream registers them (pkg/scheduler/metrics/metrics.go).
DEFINITIONS: dict[str, tuple[str, str]] = {
    SCHEDULE_ATTEMPTS: (
        "counter",
        "[STABLE] Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could "
        "not be scheduled, while 'error' means an internal scheduler problem.",
    ),
    PREEMPTION_ATTEMPTS: ("counter", "[STABLE] Total preemption attempts in the cluster till now"),
    PENDING_PODS: (
        "gauge",
        "[STABLE] Number of pending pods, by the queue type. 'active' means number of pods in activeQ; "
        "'backoff' means number of pods in backoffQ; 'unschedulable' means number of pods in "
        "unschedulablePods that the scheduler attempted to schedule and failed; 'gated' is the number "
        "of unschedulable pods that the scheduler never attempted to schedule because they are gated.",
    ),
}

_lock = threading.Lock()
_values: dict[str, dict[tuple[str, tuple[tuple[str, str], ...]], float]] = defaultdict(dict)


def add(cluster: str, name: str, labels: dict[str, str], value: float = 1) -> None:
    key = (name, tuple(sorted(labels.items())))
    with _lock:
        series = _values[cluster]
        series[key] = series.get(key, 0) + value


def set_gauge(cluster: str, name: str, labels: dict[str, str], value: float) -> None:
    key = (name, tuple(sorted(labels.items())))
    with _lock:
        _values[cluster][key] = value


def of(cluster: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    """The cluster's series by name: every defined name, with what has been counted under it."""
    with _lock:
        counted = dict(_values.get(cluster, {}))
    out: dict[str, list[tuple[dict[str, str], float]]] = {name: [] for name in DEFINITIONS}
    for (name, labels), value in sorted(counted.items()):
        out[name].append((dict(labels), value))
    return out
