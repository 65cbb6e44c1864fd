"""Counters the control plane's components keep in this process, for `/metrics`.

A component adds to a named series of its cluster; `/metrics` (cluster/api/metrics.py) prints the
caller's cluster's (a gauge is set to what the component sees now). Only what a component really
counts is here, under upstream's names and help texts. They count in the process the component
runs in: `manage.py serve` with its embedded control plane shows them; in the scale-out profile
the `controlplane` processes count them and a `serve --no-control-plane` process has none to show.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict

SCHEDULE_ATTEMPTS = "scheduler_schedule_attempts_total"
PREEMPTION_ATTEMPTS = "scheduler_preemption_attempts_total"
PENDING_PODS = "scheduler_pending_pods"
# The controller manager's workqueues (k8s.io/component-base/metrics/prometheus/workqueue).
QUEUE_ADDS = "workqueue_adds_total"
QUEUE_DEPTH = "workqueue_depth"
QUEUE_DURATION = "workqueue_queue_duration_seconds"
QUEUE_WORK_DURATION = "workqueue_work_duration_seconds"
QUEUE_UNFINISHED = "workqueue_unfinished_work_seconds"
QUEUE_LONGEST_RUNNING = "workqueue_longest_running_processor_seconds"
QUEUE_RETRIES = "workqueue_retries_total"

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
    QUEUE_ADDS: ("counter", "[ALPHA] Total number of adds handled by workqueue"),
    QUEUE_DEPTH: ("gauge", "[ALPHA] Current depth of workqueue"),
    QUEUE_DURATION: (
        "histogram",
        "[ALPHA] How long in seconds an item stays in workqueue before being requested.",
    ),
    QUEUE_WORK_DURATION: (
        "histogram",
        "[ALPHA] How long in seconds processing an item from workqueue takes.",
    ),
    QUEUE_UNFINISHED: (
        "gauge",
        "[ALPHA] How many seconds of work has done that is in progress and hasn't been observed by "
        "work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads "
        "by observing the rate at which this increases.",
    ),
    QUEUE_LONGEST_RUNNING: (
        "gauge",
        "[ALPHA] How many seconds has the longest running processor for workqueue been running.",
    ),
    QUEUE_RETRIES: ("counter", "[ALPHA] Total number of retries handled by workqueue"),
}


def exponential_buckets(start: float, factor: float, count: int) -> tuple[float, ...]:
    """prometheus.ExponentialBuckets: each bound the last one times `factor`, in the same float
    arithmetic (so the bounds print as upstream's do, `9.999999999999999e-06` included)."""
    bounds = [start]
    for _ in range(count - 1):
        bounds.append(bounds[-1] * factor)
    return tuple(bounds)


# name → its bucket bounds, for the histograms above.
BUCKETS: dict[str, tuple[float, ...]] = {
    QUEUE_DURATION: exponential_buckets(10e-9, 10, 10),
    QUEUE_WORK_DURATION: exponential_buckets(10e-9, 10, 10),
}

_lock = threading.Lock()
_values: dict[str, dict[tuple[str, tuple[tuple[str, str], ...]], float]] = defaultdict(dict)
# cluster → queue → when the item it processes now was taken (time.perf_counter()).
_in_progress: dict[str, dict[str, float]] = defaultdict(dict)
_histograms: dict[str, dict[tuple[str, tuple[tuple[str, str], ...]], list[float]]] = defaultdict(dict)


def add(cluster: str, name: str, labels: dict[str, str], value: float = 1) -> None:
    key = (name, tuple(sorted(labels.items())))
    with _lock:
        series = _values[cluster]
        series[key] = series.get(key, 0) + value


def set_gauge(cluster: str, name: str, labels: dict[str, str], value: float) -> None:
    key = (name, tuple(sorted(labels.items())))
    with _lock:
        _values[cluster][key] = value


def observe(cluster: str, name: str, labels: dict[str, str], seconds: float) -> None:
    """One observation of a histogram: the count at or under each bound, the count, the sum."""
    key = (name, tuple(sorted(labels.items())))
    bounds = BUCKETS[name]
    with _lock:
        counts = _histograms[cluster].setdefault(key, [0.0] * (len(bounds) + 2))
        for i, bound in enumerate(bounds):
            if seconds <= bound:
                counts[i] += 1
        counts[-2] += 1
        counts[-1] += seconds


def start_work(cluster: str, queue: str) -> None:
    with _lock:
        _in_progress[cluster][queue] = time.perf_counter()


def finish_work(cluster: str, queue: str) -> float:
    """Ends the queue's item in progress; returns how long it took (for work_duration)."""
    with _lock:
        started = _in_progress[cluster].pop(queue, None)
    return 0.0 if started is None else time.perf_counter() - started


def _working(cluster: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """The unfinished-work gauges as they stand now: one processor per queue, so the unfinished
    work and the longest running processor are the same seconds."""
    now = time.perf_counter()
    out = {}
    for queue, started in _in_progress.get(cluster, {}).items():
        for name in (QUEUE_UNFINISHED, QUEUE_LONGEST_RUNNING):
            out[(name, (("name", queue),))] = now - started
    return out


def samples(cluster: str) -> dict[str, list[tuple[str, dict[str, str], float]]]:
    """The cluster's samples by metric: every defined name, with (sample name, labels, value) in
    the text format's order (a histogram's buckets by bound, then `_sum` and `_count`)."""
    with _lock:
        counted = {**_values.get(cluster, {}), **_working(cluster)}
        histograms = {key: list(counts) for key, counts in _histograms.get(cluster, {}).items()}
    out: dict[str, list[tuple[str, dict[str, str], float]]] = {name: [] for name in DEFINITIONS}
    for (name, labels), value in sorted(counted.items()):
        out[name].append((name, dict(labels), value))
    for (name, labels), counts in sorted(histograms.items()):
        plain = dict(labels)
        for bound, count in zip((*BUCKETS[name], float("inf")), (*counts[:-2], counts[-2]), strict=True):
            out[name].append((f"{name}_bucket", {**plain, "le": _bound(bound)}, count))
        out[name] += [(f"{name}_sum", plain, counts[-1]), (f"{name}_count", plain, counts[-2])]
    return out


def _bound(bound: float) -> str:
    return "+Inf" if bound == float("inf") else number_text(bound)


def number_text(value: float) -> str:
    """A sample's value or bound as the text format writes it: `3`, `0.25`, `9.999999999999999e-06`."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def of(cluster: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    """The cluster's series by name: every defined name, with what has been counted under it."""
    with _lock:
        counted = dict(_values.get(cluster, {}))
    out: dict[str, list[tuple[dict[str, str], float]]] = {name: [] for name in DEFINITIONS}
    for (name, labels), value in sorted(counted.items()):
        out[name].append((dict(labels), value))
    return out
