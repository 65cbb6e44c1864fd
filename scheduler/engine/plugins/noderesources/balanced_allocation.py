"""NodeResourcesBalancedAllocation (legacy BalancedResourceAllocation), as in kube-scheduler v1.33.

Favors nodes whose resource usage stays even across the configured resources once the pod is
placed: score = (1 − standard deviation of the requested/allocatable fractions) · 100, truncated.
Actual requests are used (no 100m/200Mi defaults), and a pod that requests none of the configured
resources is skipped at PreScore (v1.33, PR #130260), so it contributes nothing that cycle.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import repeat
from typing import Any

from scheduler.engine.framework import MAX_NODE_SCORE, CycleState, Plugin, ScoreColumn, Status, Why, skip
from scheduler.engine.nodeinfo import NodeInfo
from scheduler.engine.plugins.noderesources import resource_allocation as rs
from scheduler.engine.podinfo import PodInfo

NAME = "NodeResourcesBalancedAllocation"
BALANCED = "Balanced"


def parse_balanced_args(args: dict | None) -> tuple[tuple[str, int], ...]:
    """NodeResourcesBalancedAllocationArgs: resources default to cpu and memory; every weight must be 1."""
    args = rs.check_fields(args, ("resources",), "")
    resources = rs.parse_resource_specs(args.get("resources"), "resources")
    errors, seen = [], set()
    for i, (name, weight) in enumerate(resources):
        if name in seen:
            errors.append(f'resources[{i}].name: Duplicate value: "{name}"')
        seen.add(name)
        if weight != 1:
            errors.append(rs.invalid(f"resources[{i}].weight", weight, "must be 1"))
    rs.raise_errors(errors)
    return resources


def fractions(alloc_requested: Sequence[int]) -> list[float]:
    """requested/allocatable per resource the node reports, capped at 1 (float64, as upstream)."""
    out = []
    for i in range(0, len(alloc_requested), 2):
        alloc, requested = alloc_requested[i], alloc_requested[i + 1]
        if alloc:
            fraction = float(requested) / float(alloc)
            out.append(1.0 if fraction > 1 else fraction)
    return out


def std(values: Sequence[float]) -> float:
    """Two fractions: |f1 − f2|/2; more: population standard deviation; fewer: 0."""
    if len(values) == 2:
        return abs((values[0] - values[1]) / 2)
    if len(values) > 2:
        mean = sum(values) / len(values)
        return math.sqrt(sum((f - mean) * (f - mean) for f in values) / len(values))
    return 0.0


def balanced_score(alloc_requested: Sequence[int]) -> int:
    return int((1 - std(fractions(alloc_requested))) * MAX_NODE_SCORE)


class BalancedAllocation(Plugin):
    name = NAME
    is_score = True

    def __init__(self, args: dict | None = None) -> None:
        super().__init__(args)
        self.resources = parse_balanced_args(self.args)

    def _inputs(self, pod: PodInfo) -> rs.ScoringInputs:
        return rs.scoring_inputs(pod, self.resources, BALANCED, non_zero=False)

    def pre_score(
        self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo], snapshot: Any
    ) -> Status | None:
        inputs = self._inputs(pod)
        if not any(inputs.pod_requests):
            configured = ", ".join(name for name, _ in self.resources)
            return skip(
                NAME,
                Why(
                    f"The pod requests none of {configured} (spec.containers[*].resources.requests), so "
                    "BalancedAllocation is skipped for this pod (Kubernetes ≥ 1.33) instead of steering "
                    "best-effort pods onto the same node.",
                    f"该 Pod 没有请求 {configured} 中的任何资源（spec.containers[*].resources.requests），"
                    "因此本轮跳过 BalancedAllocation（Kubernetes 1.33 起），"
                    "以免把尽力而为型 Pod 都堆到同一节点。",
                ),
            )
        state[NAME] = inputs
        return None

    def score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> ScoreColumn:
        inputs: rs.ScoringInputs = state.get(NAME) or self._inputs(pod)
        flat = rs.request_columns(inputs, nodes, state)
        if len(inputs.names) == 2 and all(all(column) for column in flat[0::2]):
            # Common case (cpu and memory, both reported by every node), inlined for speed.
            raw = [
                int((1 - abs(((r0 / a0 if r0 < a0 else 1.0) - (r1 / a1 if r1 < a1 else 1.0)) / 2)) * 100)
                for a0, r0, a1, r1 in zip(*flat, strict=True)
            ]
        else:
            rows = zip(*flat, strict=True) if flat else repeat((), len(nodes))
            raw = [balanced_score(row) for row in rows]
        return rs.lazy_column(raw, inputs, flat)

    def explain_score(self, detail: Any, raw: int, normalized: int, weight: int) -> Why:
        inputs: rs.ScoringInputs = detail[0]
        shown, shown_zh = [], []
        values = []
        for i, name in enumerate(inputs.names):
            alloc, requested = detail[1 + 2 * i], detail[2 + 2 * i]
            if not alloc:
                shown_zh.append(f"{name} 跳过（节点无可分配量）")
                shown.append(f"{name} skipped (no allocatable)")
                continue
            fraction = min(float(requested) / float(alloc), 1.0)
            values.append(fraction)
            capped = " capped at 1" if requested > alloc else ""
            text = f"{name} {rs.amount(name, requested)}/{rs.amount(name, alloc)} = {fraction:.4g}{capped}"
            shown.append(text)
            shown_zh.append(text.replace("capped at 1", "封顶为 1"))
        deviation = std(values)
        if len(values) == 2:
            formula = f"std |{values[0]:.4g}−{values[1]:.4g}|/2 = {deviation:.4g}"
        elif len(values) > 2:
            formula = f"std √(Σ(f−{sum(values) / len(values):.4g})²/{len(values)}) = {deviation:.4g}"
        else:
            formula = "std 0 (fewer than two resources)"
        arithmetic = f"{', '.join(shown)} → {formula} → ⌊(1−{deviation:.4g})·100⌋ = {raw}"
        arithmetic_zh = f"{'，'.join(shown_zh)} → {formula} → ⌊(1−{deviation:.4g})·100⌋ = {raw}"
        return Why(
            f"{arithmetic}. Fractions use the actual requests on the node plus this pod. "
            f"Score {raw} × weight {weight} = {raw * weight}.",
            f"{arithmetic_zh}。比例按节点上已有请求加本 Pod 的实际请求计算。"
            f"得分 {raw} × 权重 {weight} = {raw * weight}。",
        )
