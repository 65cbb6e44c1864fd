"""Figures the benchmark commands print."""

from __future__ import annotations


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile (`fraction` in 0..1); NaN when there is nothing to rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))] if ordered else float("nan")
