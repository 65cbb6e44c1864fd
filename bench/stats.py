"""Figures the benchmark commands print."""

from __future__ import annotations

import json
import time


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile (`fraction` in 0..1); NaN when there is nothing to rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))] if ordered else float("nan")


# A pod as the API server stores it: the yardstick's work is the server's kind of work.
_YARDSTICK_POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "yardstick-7f9c", "namespace": "default", "labels": {"app": "nginx"}},
    "spec": {"containers": [{"name": "nginx", "image": "nginx:1.15", "ports": [{"containerPort": 80}]}]},
    "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}] * 4},
}


def yardstick(loops: int = 20_000) -> float:
    """This machine's speed now: thousands of loops per CPU-second of this thread, one loop being
    a pod encoded, decoded and walked in pure Python. A 2-core VM's speed drifts by half within
    minutes (other tenants, clock throttling), so a benchmark prints this before and after its run
    and figures from different runs can be set side by side."""
    start = time.thread_time()
    for index in range(loops):
        pod = json.loads(json.dumps(_YARDSTICK_POD))
        pod["metadata"]["resourceVersion"] = str(index)
        sum(len(condition) for condition in pod["status"]["conditions"])
    return loops / 1000 / max(time.thread_time() - start, 1e-9)


def speed_line(before: float) -> str:
    """The benchmarks' closing line: the machine's speed at their start (`before`) and now."""
    return (
        f"machine speed (bench.stats.yardstick) before / after: {before:.1f} / {yardstick():.1f} "
        "k loops per CPU-second"
    )
