"""NodeResourcesFit (legacy PodFitsResources / LeastRequestedPriority), as in kube-scheduler v1.33.

Filter: does the node have room for one more pod and for the pod's effective requests? Reasons in
upstream's fixed order: Too many pods, Insufficient cpu, memory, ephemeral-storage, then scalar
resources. Failures are Unschedulable (v1.33; later releases return UnschedulableAndUnresolvable
when the request alone exceeds allocatable). Score: the configured scoringStrategy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from k8s.labels import label_key_error
from k8s.quantity import parse_quantity
from scheduler.engine.framework import CycleState, Plugin, ScoreColumn, Status, Why, unschedulable
from scheduler.engine.nodeinfo import NodeInfo
from scheduler.engine.plugins.noderesources import resource_allocation as rs
from scheduler.engine.podinfo import PodInfo
from scheduler.engine.resources import CPU, EPHEMERAL_STORAGE, MEMORY, is_extended_resource

NAME = "NodeResourcesFit"
TOO_MANY_PODS = "Too many pods"
_SCORE_KEY = NAME + "/score"
_SOURCES_KEY = NAME + "/sources"


@dataclass(frozen=True, slots=True)
class FitArgs:
    ignored_resources: frozenset[str]
    ignored_resource_groups: frozenset[str]
    strategy: str
    resources: tuple[tuple[str, int], ...]
    shape: tuple[tuple[int, int], ...]


def parse_fit_args(args: dict | None) -> FitArgs:
    """NodeResourcesFitArgs (kubescheduler.config.k8s.io/v1): defaulted, then validated."""
    args = rs.check_fields(args, ("ignoredResources", "ignoredResourceGroups", "scoringStrategy"), "")
    errors: list[str] = []
    ignored = args.get("ignoredResources") or []
    groups = args.get("ignoredResourceGroups") or []
    for i, name in enumerate(ignored):
        if not isinstance(name, str) or label_key_error(name):
            errors.append(rs.invalid(f"ignoredResources[{i}]", name, "must be a valid qualified name"))
    for i, group in enumerate(groups):
        if isinstance(group, str) and "/" in group:
            errors.append(
                rs.invalid(f"ignoredResourceGroups[{i}]", group, "resource group name can't contain '/'")
            )
        elif not isinstance(group, str) or label_key_error(group):
            errors.append(rs.invalid(f"ignoredResourceGroups[{i}]", group, "must be a valid qualified name"))
    raw_strategy = args.get("scoringStrategy")
    strategy = rs.check_fields(
        {"type": rs.LEAST_ALLOCATED} if raw_strategy is None else raw_strategy,
        ("type", "resources", "requestedToCapacityRatio"),
        "scoringStrategy",
    )
    kind = strategy.get("type", "")
    if kind not in rs.STRATEGIES:
        supported = ", ".join(f'"{s}"' for s in rs.STRATEGIES)
        errors.append(f'scoringStrategy.type: Unsupported value: "{kind}": supported values: {supported}')
    resources = rs.parse_resource_specs(strategy.get("resources"), "scoringStrategy.resources")
    errors += rs.validate_weights(resources, "scoringStrategy.resources")
    shape: tuple[tuple[int, int], ...] = ()
    ratio = strategy.get("requestedToCapacityRatio")
    if ratio is not None or kind == rs.REQUESTED_TO_CAPACITY_RATIO:
        ratio = rs.check_fields(ratio, ("shape",), "scoringStrategy.requestedToCapacityRatio")
        try:
            # upstream reports these under "scoringStrategy.shape"
            shape = rs.parse_shape(ratio.get("shape"), "scoringStrategy.shape")
        except ValueError as error:
            errors.append(str(error))
    rs.raise_errors(errors)
    return FitArgs(frozenset(ignored), frozenset(groups), kind, resources, shape)


@dataclass(frozen=True, slots=True)
class FitRequest:
    """The pod's effective requests as the filter compares them (no 100m/200Mi defaults)."""

    cpu: int
    memory: int
    ephemeral_storage: int
    scalars: tuple[tuple[str, int], ...]  # non-zero, not ignored, by name


class NodeResourcesFit(Plugin):
    name = NAME
    is_filter = True
    is_score = True

    def __init__(self, args: dict | None = None) -> None:
        super().__init__(args)
        self.config = parse_fit_args(self.args)

    # -- filter -----------------------------------------------------------------------------------
    def _request(self, pod: PodInfo) -> FitRequest:
        req = pod.requests
        scalars = []
        for name, amount in sorted(req.scalars.items()):
            if amount == 0:
                continue
            if is_extended_resource(name) and (
                name in self.config.ignored_resources
                or name.split("/")[0] in self.config.ignored_resource_groups
            ):
                continue
            scalars.append((name, amount))
        return FitRequest(req.milli_cpu, req.memory, req.ephemeral_storage, tuple(scalars))

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo], snapshot: Any) -> None:
        state[NAME] = self._request(pod)

    def filter(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> dict[str, Status]:
        req: FitRequest = state.get(NAME) or self._request(pod)
        cpu, memory, storage, scalars = req.cpu, req.memory, req.ephemeral_storage, req.scalars
        # NodeInfo.free: (pods, cpu, memory, ephemeral storage) left on the node.
        failing = [
            n
            for n in nodes
            if (free := n.free)[0] <= 0
            or (cpu and cpu > free[1])
            or (memory and memory > free[2])
            or (storage and storage > free[3])
            or (scalars and _short_scalar(n, scalars))
        ]
        if not state.explain:
            return {node.name: _terse_failure(node, req) for node in failing}
        return {node.name: self._failure(state, pod, node, req) for node in failing}

    def _failure(self, state: CycleState, pod: PodInfo, node: NodeInfo, req: FitRequest) -> Status:
        reasons: list[str] = []
        en: list[str] = []
        zh: list[str] = []
        alloc, used = node.allocatable, node.requested
        if len(node.pods) >= alloc.allowed_pod_number:
            reasons.append(TOO_MANY_PODS)
            en.append(
                f"{node.name} already runs {len(node.pods)} pod(s) and its status.allocatable.pods is "
                f"{alloc.allowed_pod_number}, so there is no room for one more."
            )
            zh.append(
                f"{node.name} 上已运行 {len(node.pods)} 个 Pod，而其 status.allocatable.pods 为 "
                f"{alloc.allowed_pod_number}，放不下更多 Pod。"
            )
        checks = [
            (CPU, req.cpu, alloc.milli_cpu, used.milli_cpu),
            (MEMORY, req.memory, alloc.memory, used.memory),
            (EPHEMERAL_STORAGE, req.ephemeral_storage, alloc.ephemeral_storage, used.ephemeral_storage),
        ]
        checks += [
            (name, amount, alloc.scalars.get(name, 0), used.scalars.get(name, 0))
            for name, amount in req.scalars
        ]
        for name, amount, allocatable, requested in checks:
            if amount and amount > allocatable - requested:
                reasons.append(f"Insufficient {name}")
                source = _sources(state, pod).get(name, f"spec.containers[*].resources.requests.{name}")
                en.append(_insufficient_en(node, name, amount, allocatable, requested, source))
                zh.append(_insufficient_zh(node, name, amount, allocatable, requested, source))
        return unschedulable(NAME, reasons, Why(" ".join(en), "".join(zh)))

    # -- score ------------------------------------------------------------------------------------
    def _inputs(self, pod: PodInfo) -> rs.ScoringInputs:
        config = self.config
        return rs.scoring_inputs(pod, config.resources, config.strategy, non_zero=True, shape=config.shape)

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo], snapshot: Any) -> None:
        state[_SCORE_KEY] = self._inputs(pod)

    def score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> ScoreColumn:
        inputs: rs.ScoringInputs = state.get(_SCORE_KEY) or self._inputs(pod)
        flat = rs.request_columns(inputs, nodes, state)
        raw = rs.allocation_scores(inputs, flat, len(nodes))
        return rs.lazy_column(raw, inputs, flat)

    def explain_score(self, detail: Any, raw: int, normalized: int, weight: int) -> Why:
        en, zh = rs.explain_allocation(detail, raw)
        strategy = detail[0].strategy
        return Why(
            f"{strategy} — {en}. Requested counts the pods on the node plus this pod; a container with no "
            f"cpu/memory request counts 100m/200Mi here. Score {raw} × weight {weight} = {raw * weight}.",
            f"{strategy} —— {zh}。请求量 = 节点上已有 Pod + 本 Pod；未写 cpu/memory 请求的容器在打分时按 "
            f"100m/200Mi 计。得分 {raw} × 权重 {weight} = {raw * weight}。",
        )


def _terse_failure(node: NodeInfo, req: FitRequest) -> Status:
    """The failure's reasons alone, in the same order as _failure's."""
    alloc, used = node.allocatable, node.requested
    reasons = [TOO_MANY_PODS] if len(node.pods) >= alloc.allowed_pod_number else []
    checks = [
        (CPU, req.cpu, alloc.milli_cpu, used.milli_cpu),
        (MEMORY, req.memory, alloc.memory, used.memory),
        (EPHEMERAL_STORAGE, req.ephemeral_storage, alloc.ephemeral_storage, used.ephemeral_storage),
    ]
    checks += [
        (name, amount, alloc.scalars.get(name, 0), used.scalars.get(name, 0)) for name, amount in req.scalars
    ]
    reasons += [f"Insufficient {name}" for name, amount, a, u in checks if amount and amount > a - u]
    return unschedulable(NAME, reasons)


def _short_scalar(node: NodeInfo, scalars: tuple[tuple[str, int], ...]) -> bool:
    alloc, used = node.allocatable.scalars, node.requested.scalars
    return any(amount > alloc.get(name, 0) - used.get(name, 0) for name, amount in scalars)


# -- explanation helpers ---------------------------------------------------------------------------
def show(name: str, value: int) -> str:
    """cpu in millicores, bytes with the largest exact binary or decimal suffix."""
    if name == CPU:
        return f"{value}m"
    if name not in (MEMORY, EPHEMERAL_STORAGE) and not name.startswith("hugepages-"):
        return str(value)
    for suffix, unit in (
        ("Ti", 2**40),
        ("Gi", 2**30),
        ("Mi", 2**20),
        ("Ki", 2**10),
        ("G", 10**9),
        ("M", 10**6),
    ):
        if value and value % unit == 0:
            return f"{value // unit}{suffix}"
    return str(value)


def _insufficient_en(node: NodeInfo, name: str, amount: int, alloc: int, used: int, source: str) -> str:
    return (
        f"{node.name} has {show(name, alloc)} {name} allocatable, {show(name, used)} already requested by "
        f"{len(node.pods)} pod(s); the pod's {source} totals {show(name, amount)} > "
        f"{show(name, alloc - used)} free."
    )


def _insufficient_zh(node: NodeInfo, name: str, amount: int, alloc: int, used: int, source: str) -> str:
    return (
        f"{node.name} 的可分配 {name} 为 {show(name, alloc)}，已有 {len(node.pods)} 个 Pod 请求了 "
        f"{show(name, used)}；该 Pod 的 {source} 合计 {show(name, amount)}，"
        f"超过剩余的 {show(name, alloc - used)}。"
    )


def _sources(state: CycleState, pod: PodInfo) -> dict[str, str]:
    """Which fields make up each requested resource, computed once per cycle and only on failure."""
    sources = state.get(_SOURCES_KEY)
    if sources is None:
        sources = state[_SOURCES_KEY] = request_sources(pod.pod)
    return sources


def request_sources(pod: dict) -> dict[str, str]:
    """Name the fields behind each effective request: containers (+ sidecars), an init container, overhead."""
    spec = pod.get("spec") or {}
    init = spec.get("initContainers") or []

    def requests(container: dict) -> dict:
        return (container.get("resources") or {}).get("requests") or {}

    names = {n for c in [*spec.get("containers", []), *init] for n in requests(c)} | set(
        spec.get("overhead") or {}
    )
    sources = {}
    for name in names:
        running = sum(
            (parse_quantity(requests(c).get(name, 0)) for c in spec.get("containers") or []), Fraction()
        )
        sidecars = Fraction()
        parts = [f"spec.containers[*].resources.requests.{name}"]
        peak, peak_index = Fraction(-1), None
        for i, c in enumerate(init):
            amount = parse_quantity(requests(c).get(name, 0))
            if c.get("restartPolicy") == "Always":
                sidecars += amount
                running += amount
                parts = [f"spec.containers[*] and sidecar spec.initContainers[*].resources.requests.{name}"]
                needed = sidecars
            else:
                needed = amount + sidecars
            if needed > peak:
                peak, peak_index = needed, i
        if peak_index is not None and peak > running:
            parts = [
                f"spec.initContainers[{peak_index}].resources.requests.{name} (init containers take the max)"
            ]
        if name in (spec.get("overhead") or {}):
            parts.append(f"spec.overhead.{name}")
        sources[name] = " + ".join(parts)
    return sources
