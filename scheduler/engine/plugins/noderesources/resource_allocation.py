"""Resource scoring shared by NodeResourcesFit and NodeResourcesBalancedAllocation.

Mirrors noderesources/resource_allocation.go (v1.33): which resources take part, how "requested"
is counted, and the LeastAllocated / MostAllocated / RequestedToCapacityRatio arithmetic. Scores
are computed column-wise (one list per resource over all nodes) so that 5,000 nodes cost a few ms.
Plugin args are validated with upstream's field paths and messages (validation_pluginargs.go).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import repeat
from operator import add, mul
from typing import Any, NamedTuple

from scheduler.engine.framework import ScoreColumn
from scheduler.engine.nodeinfo import NodeInfo
from scheduler.engine.podinfo import PodInfo
from scheduler.engine.resources import CPU, EPHEMERAL_STORAGE, MEMORY, is_scalar_resource

LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
STRATEGIES = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)
MAX_UTILIZATION = 100
MAX_CUSTOM_PRIORITY_SCORE = 10  # shape scores are 0..10, scaled by MaxNodeScore / 10
DEFAULT_RESOURCES = (("cpu", 1), ("memory", 1))


# -- args --------------------------------------------------------------------------------------
def _go_value(value: object) -> str:
    return json.dumps(value) if isinstance(value, str) else str(value)


def invalid(path: str, value: object, detail: str) -> str:
    """field.Invalid(...).Error()."""
    return f"{path}: Invalid value: {_go_value(value)}: {detail}"


def raise_errors(errors: list[str]) -> None:
    """field.ErrorList.ToAggregate(): one message, or all of them in brackets."""
    if len(errors) == 1:
        raise ValueError(errors[0])
    if errors:
        raise ValueError("[" + ", ".join(errors) + "]")


def check_fields(obj: object, allowed: Sequence[str], path: str) -> dict:
    """Strict decoding: an object with only the known fields (apiVersion/kind are tolerated)."""
    if obj is None:
        return {}
    if not isinstance(obj, dict):
        raise ValueError(f"{path or 'args'}: Invalid value: {_go_value(obj)}: must be an object")
    for key in obj:
        if key not in allowed and key not in ("apiVersion", "kind"):
            raise ValueError(f'unknown field "{path}{"." if path else ""}{key}"')
    return obj


def as_int(value: object, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(invalid(path, value, "must be an integer"))
    return value


def parse_resource_specs(raw: object, path: str) -> tuple[tuple[str, int], ...]:
    """v1 defaulting: no resources means cpu:1, memory:1; a weight left out (or 0) becomes 1."""
    if raw is None or raw == []:
        return DEFAULT_RESOURCES
    if not isinstance(raw, list):
        raise ValueError(invalid(path, raw, "must be a list"))
    specs = []
    for index, item in enumerate(raw):
        item = check_fields(item, ("name", "weight"), f"{path}[{index}]")
        name = item.get("name")
        if not isinstance(name, str) or not name:
            raise ValueError(f"{path}[{index}].name: Required value: a resource name is required")
        weight = as_int(item.get("weight", 0), f"{path}[{index}].weight")
        specs.append((name, weight or 1))
    return tuple(specs)


def validate_weights(specs: Sequence[tuple[str, int]], path: str) -> list[str]:
    return [
        invalid(f"{path}[{i}].weight", w, f"resource weight of {name} not in valid range (0, 100]")
        for i, (name, w) in enumerate(specs)
        if not 0 < w <= 100
    ]


def parse_shape(raw: object, path: str) -> tuple[tuple[int, int], ...]:
    """The RequestedToCapacityRatio shape, validated as validateFunctionShape does."""
    if not raw:
        raise ValueError(f"{path}: Required value: at least one point must be specified")
    if not isinstance(raw, list):
        raise ValueError(invalid(path, raw, "must be a list"))
    points = []
    for i, point in enumerate(raw):
        point = check_fields(point, ("utilization", "score"), f"{path}[{i}]")
        points.append(
            (
                as_int(point.get("utilization", 0), f"{path}[{i}].utilization"),
                as_int(point.get("score", 0), f"{path}[{i}].score"),
            )
        )
    errors = []
    for i in range(1, len(points)):
        if points[i - 1][0] >= points[i][0]:
            errors.append(
                invalid(f"{path}[{i}].utilization", points[i][0], "values must be sorted in increasing order")
            )
            break
    for i, (utilization, score) in enumerate(points):
        if not 0 <= utilization <= MAX_UTILIZATION:
            errors.append(invalid(f"{path}[{i}].utilization", utilization, "not in valid range [0, 100]"))
        if not 0 <= score <= MAX_CUSTOM_PRIORITY_SCORE:
            errors.append(invalid(f"{path}[{i}].score", score, "not in valid range [0, 10]"))
    raise_errors(errors)
    scale = 100 // MAX_CUSTOM_PRIORITY_SCORE
    return tuple((utilization, score * scale) for utilization, score in points)


# -- request accounting --------------------------------------------------------------------------
class ScoringInputs(NamedTuple):
    """Per-pod facts of one scoring cycle, shown in every node's `detail`."""

    strategy: str  # LeastAllocated, MostAllocated, RequestedToCapacityRatio or Balanced
    names: tuple[str, ...]  # the resources that take part, in configured order
    weights: tuple[int, ...]
    pod_requests: tuple[int, ...]
    shape: tuple[tuple[int, int], ...]
    non_zero: bool  # cpu/memory counted with the 100m/200Mi defaults
    left_out: tuple[str, ...]  # configured resources the pod does not request (scalars) or unscored


_INPUT_FIELDS = len(ScoringInputs._fields)


def pod_request(pod: PodInfo, name: str, non_zero: bool) -> int:
    if name == CPU:
        return pod.non_zero_cpu if non_zero else pod.requests.milli_cpu
    if name == MEMORY:
        return pod.non_zero_memory if non_zero else pod.requests.memory
    return pod.requests.get(name)


def scoring_inputs(
    pod: PodInfo,
    specs: Sequence[tuple[str, int]],
    strategy: str,
    non_zero: bool,
    shape: tuple[tuple[int, int], ...] = (),
) -> ScoringInputs:
    names, weights, requests, left_out = [], [], [], []
    for name, weight in specs:
        request = pod_request(pod, name, non_zero)
        scored = name in (CPU, MEMORY, EPHEMERAL_STORAGE) or is_scalar_resource(name)
        # A scalar resource the pod does not ask for is bypassed, as is anything that is not a
        # resource the scheduler scores (its allocatable reads as 0).
        if not scored or (request == 0 and is_scalar_resource(name)):
            left_out.append(name)
            continue
        names.append(name)
        weights.append(weight)
        requests.append(request)
    return ScoringInputs(
        strategy, tuple(names), tuple(weights), tuple(requests), shape, non_zero, tuple(left_out)
    )


_ALLOCATABLE = "resource_scoring/allocatable"


def _allocatable(nodes: Sequence[NodeInfo], name: str) -> list[int]:
    if name == CPU:
        return [n.allocatable.milli_cpu for n in nodes]
    if name == MEMORY:
        return [n.allocatable.memory for n in nodes]
    if name == EPHEMERAL_STORAGE:
        return [n.allocatable.ephemeral_storage for n in nodes]
    return [n.allocatable.scalars.get(name, 0) for n in nodes]


def allocatable_column(state: dict, nodes: Sequence[NodeInfo], name: str) -> list[int]:
    """One resource's allocatable over the scored nodes, computed once per cycle for all plugins."""
    entry = state.get(_ALLOCATABLE)
    if entry is None or entry[0] is not nodes:
        entry = state[_ALLOCATABLE] = (nodes, {})
    column = entry[1].get(name)
    if column is None:
        column = entry[1][name] = _allocatable(nodes, name)
    return column


def _requested(nodes: Sequence[NodeInfo], name: str, non_zero: bool, request: int) -> list[int]:
    """What the node's pods request of one resource, plus this pod's `request`."""
    if name == CPU and non_zero:
        return [n.non_zero_cpu + request for n in nodes]
    if name == CPU:
        return [n.requested.milli_cpu + request for n in nodes]
    if name == MEMORY and non_zero:
        return [n.non_zero_memory + request for n in nodes]
    if name == MEMORY:
        return [n.requested.memory + request for n in nodes]
    if name == EPHEMERAL_STORAGE:
        return [n.requested.ephemeral_storage + request for n in nodes]
    return [n.requested.scalars.get(name, 0) + request for n in nodes]


_CPU_MEMORY = "resource_scoring/cpu_memory"


def _cpu_memory_columns(state: dict, nodes: Sequence[NodeInfo]) -> tuple[tuple[int, ...], ...]:
    """NodeInfo.cpu_memory over the scored nodes as six columns, once per cycle for all plugins."""
    entry = state.get(_CPU_MEMORY)
    if entry is None or entry[0] is not nodes:
        entry = state[_CPU_MEMORY] = (nodes, tuple(zip(*[node.cpu_memory for node in nodes], strict=True)))
    return entry[1]


def request_columns(
    inputs: ScoringInputs, nodes: Sequence[NodeInfo], state: dict | None = None
) -> list[Sequence[int]]:
    """[alloc_0, requested_0, alloc_1, requested_1, ...]; requested includes the incoming pod."""
    state = {} if state is None else state
    if inputs.names == (CPU, MEMORY) and nodes:
        # The default resources: all the columns come from one tuple per node.
        alloc_cpu, alloc_memory, *used = _cpu_memory_columns(state, nodes)
        cpu, memory = used[:2] if inputs.non_zero else used[2:]
        cpu_request, memory_request = inputs.pod_requests
        cpu_requested = list(map(add, cpu, repeat(cpu_request)))
        return [alloc_cpu, cpu_requested, alloc_memory, list(map(add, memory, repeat(memory_request)))]
    flat: list[Sequence[int]] = []
    for name, request in zip(inputs.names, inputs.pod_requests, strict=True):
        flat.append(allocatable_column(state, nodes, name))
        flat.append(_requested(nodes, name, inputs.non_zero, request))
    return flat


def lazy_column(raw: list[int], inputs: ScoringInputs, flat: list[list[int]]) -> ScoreColumn:
    """Each node's detail is (inputs, alloc_0, requested_0, ...), assembled from the columns on demand.

    The context is the inputs' fields followed by the columns, each a tuple of numbers: kept flat
    for the garbage collector (see ScoreColumn.lazy), which never stops scanning a NamedTuple.
    """
    return ScoreColumn.lazy(raw, _node_detail, *inputs, *map(tuple, flat))


def _node_detail(*context_and_index: Any) -> tuple:
    *context, index = context_and_index
    inputs = ScoringInputs._make(context[:_INPUT_FIELDS])
    return (inputs, *[column[index] for column in context[_INPUT_FIELDS:]])


# -- strategies ----------------------------------------------------------------------------------
def broken_linear(shape: Sequence[tuple[int, int]], utilization: int) -> int:
    """helper.BuildBrokenLinearFunction, with Go's truncating integer division."""
    for i, (u, score) in enumerate(shape):
        if utilization <= u:
            if i == 0:
                return score
            u0, s0 = shape[i - 1]
            delta = (score - s0) * (utilization - u0)
            step = delta // (u - u0) if delta >= 0 else -(-delta // (u - u0))
            return s0 + step
    return shape[-1][1]


def resource_score(inputs: ScoringInputs, alloc: int, requested: int) -> int | None:
    """One resource's 0..100 score on one node; None when the node does not report it."""
    if alloc == 0:
        return None
    if inputs.strategy == LEAST_ALLOCATED:
        return 0 if requested > alloc else (alloc - requested) * 100 // alloc
    if inputs.strategy == MOST_ALLOCATED:
        return min(requested, alloc) * 100 // alloc
    utilization = MAX_UTILIZATION if requested > alloc else requested * MAX_UTILIZATION // alloc
    return broken_linear(inputs.shape, utilization)


def combine(inputs: ScoringInputs, scores: Sequence[int | None]) -> int:
    """Σ score·weight / Σ weight: truncated, except RequestedToCapacityRatio (math.Round, scores > 0 only)."""
    total = weight_sum = 0
    rtcr = inputs.strategy == REQUESTED_TO_CAPACITY_RATIO
    for score, weight in zip(scores, inputs.weights, strict=True):
        if score is None or (rtcr and score <= 0):
            continue
        total += score * weight
        weight_sum += weight
    if weight_sum == 0:
        return 0
    if rtcr:
        return (2 * total + weight_sum) // (2 * weight_sum)  # exact half-up rounding
    return total // weight_sum


def _score_column(inputs: ScoringInputs, allocs: list[int], requested: list[int]) -> list[int | None]:
    # Inlined per strategy: this runs once per node and resource, the hot loop of scoring.
    pairs = zip(allocs, requested, strict=True)
    if inputs.strategy == LEAST_ALLOCATED:
        return [((0 if r > a else (a - r) * 100 // a) if a else None) for a, r in pairs]
    if inputs.strategy == MOST_ALLOCATED:
        return [((r if r < a else a) * 100 // a if a else None) for a, r in pairs]
    return [resource_score(inputs, a, r) for a, r in pairs]


def allocation_scores(inputs: ScoringInputs, flat: list[list[int]], count: int) -> list[int]:
    """The raw score of every node, column by column."""
    if not inputs.names:
        return [0] * count
    if inputs.strategy == LEAST_ALLOCATED and len(inputs.names) == 2 and all(flat[0]) and all(flat[2]):
        # The default (cpu and memory, reported by every node), in one pass.
        w0, w1 = inputs.weights
        total = w0 + w1
        if w0 == w1 == 1:
            return [
                (((a0 - r0) * 100 // a0 if r0 <= a0 else 0) + ((a1 - r1) * 100 // a1 if r1 <= a1 else 0)) // 2
                for a0, r0, a1, r1 in zip(*flat, strict=True)
            ]
        return [
            (
                ((a0 - r0) * 100 // a0 if r0 <= a0 else 0) * w0
                + ((a1 - r1) * 100 // a1 if r1 <= a1 else 0) * w1
            )
            // total
            for a0, r0, a1, r1 in zip(*flat, strict=True)
        ]
    columns = [_score_column(inputs, flat[2 * i], flat[2 * i + 1]) for i in range(len(inputs.names))]
    if inputs.strategy != REQUESTED_TO_CAPACITY_RATIO and not any(None in c for c in columns):
        # Every node reports every resource: a plain weighted average.
        weights, total = inputs.weights, sum(inputs.weights)
        return [sum(map(mul, row, weights)) // total for row in zip(*columns, strict=True)]
    return [combine(inputs, row) for row in zip(*columns, strict=True)]


# -- explanation ---------------------------------------------------------------------------------
def amount(name: str, value: int) -> str:
    return f"{value}m" if name == CPU else str(value)


def _resource_terms(inputs: ScoringInputs, detail: tuple) -> tuple[list[str], list[str], list[int | None]]:
    en: list[str] = []
    zh: list[str] = []
    scores: list[int | None] = []
    for i, (name, request) in enumerate(zip(inputs.names, inputs.pod_requests, strict=True)):
        alloc, requested = detail[1 + 2 * i], detail[2 + 2 * i]
        score = resource_score(inputs, alloc, requested)
        scores.append(score)
        if score is None:
            en.append(f"{name}: skipped, the node reports no allocatable {name}")
            zh.append(f"{name}：跳过，节点没有可分配的 {name}")
            continue
        a, r = amount(name, alloc), amount(name, requested)
        on_node = f"{amount(name, requested - request)} on the node + {amount(name, request)} this pod"
        on_node_zh = f"节点已有 {amount(name, requested - request)} + 本 Pod {amount(name, request)}"
        if inputs.strategy == LEAST_ALLOCATED:
            formula = f"requested {r} > {a} → 0" if requested > alloc else f"({a}−{r})·100/{a} = {score}"
        elif inputs.strategy == MOST_ALLOCATED:
            formula = f"{amount(name, min(requested, alloc))}·100/{a} = {score}"
        else:
            used = MAX_UTILIZATION if requested > alloc else requested * MAX_UTILIZATION // alloc
            formula = f"utilization {r}·100/{a} = {used}% → shape score {score}"
        en.append(f"{name}: {formula} ({on_node})")
        formula_zh = formula.replace("requested", "请求").replace("utilization", "利用率")
        zh.append(f"{name}：{formula_zh}（{on_node_zh}）")
    return en, zh, scores


def explain_allocation(detail: tuple, raw: int) -> tuple[str, str]:
    """The arithmetic of one node's LeastAllocated / MostAllocated / RequestedToCapacityRatio score."""
    inputs: ScoringInputs = detail[0]
    en, zh, scores = _resource_terms(inputs, detail)
    rtcr = inputs.strategy == REQUESTED_TO_CAPACITY_RATIO
    kept = [
        (s, w) for s, w in zip(scores, inputs.weights, strict=True) if s is not None and not (rtcr and s <= 0)
    ]
    if kept:
        numerator = "+".join(f"{s}·{w}" for s, w in kept)
        average = f"({numerator})/{sum(w for _, w in kept)}"
        en.append(f"round({average}) = {raw}" if rtcr else f"{average} = {raw}")
    else:
        en.append(f"no resource to average → {raw}")
    zh.append(en[-1].replace("no resource to average", "没有可参与平均的资源"))
    if inputs.left_out:
        left = ", ".join(inputs.left_out)
        en.append(f"left out: {left} (the pod does not request it, or it is not scored)")
        zh.append(f"未参与：{left}（Pod 未请求该资源，或它不参与打分）")
    return "; ".join(en), "；".join(zh)
