"""PodTopologySpread: DoNotSchedule constraints filter, ScheduleAnyway constraints score.

PreFilter counts the matching pods per topology domain once per cycle, over every node that has
all the constraints' topology keys and passes nodeAffinityPolicy / nodeTaintsPolicy. Filter then
compares each node's domain with the least-loaded domain: one dictionary lookup per constraint.

A pod without constraints of its own gets the cluster-default constraints (hostname maxSkew 3,
zone maxSkew 5, ScheduleAnyway) only when a Service, ReplicaSet, StatefulSet or
ReplicationController selects it. The engine has no such objects; callers describe them as
"selector owners", through the plugin argument `workloadSelectors` or the snapshot attribute
`snapshot.workload_selectors` (see topology.workload_selector). A bare pod gets nothing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from scheduler.engine.framework import (
    MAX_NODE_SCORE,
    Code,
    CycleState,
    LazyDetails,
    Plugin,
    ScoreColumn,
    Status,
    Why,
    skip,
    unresolvable,
    unschedulable,
)
from scheduler.engine.nodeinfo import NodeInfo
from scheduler.engine.plugins.topology import (
    HOSTNAME,
    SYSTEM_DEFAULT_CONSTRAINTS,
    SelectorParseError,
    SpreadConstraint,
    required_node_affinity,
    spread_constraints,
    terminating,
    workload_selector,
)
from scheduler.engine.podinfo import PodInfo
from scheduler.engine.tolerations import first_untolerated

NAME = "PodTopologySpread"
ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"
_PREFILTER, _PRESCORE = "PreFilter" + NAME, "PreScore" + NAME
_PATH = "spec.topologySpreadConstraints"
_DEFAULT_PATH = "PodTopologySpreadArgs.defaultConstraints"
_DO_NOT_SCHEDULE_TAINTS = ("NoSchedule", "NoExecute")
_MAX_INT32 = 2**31 - 1  # newCriticalPaths' starting minimum

_SKIP_FILTER = Why(
    f"The pod has no {_PATH} with whenUnsatisfiable: DoNotSchedule, so this filter has nothing to check.",
    f"Pod 没有 whenUnsatisfiable: DoNotSchedule 的 {_PATH}，此过滤器无需检查。",
)
_SKIP_SCORE = Why(
    f"The pod has no ScheduleAnyway {_PATH}, and no Service, ReplicaSet, StatefulSet or "
    "ReplicationController selects it, so the cluster-default spreading does not apply either.",
    f"Pod 没有 ScheduleAnyway 的 {_PATH}，也没有 Service、ReplicaSet、StatefulSet 或 "
    "ReplicationController 选中它，因此集群默认的打散规则也不适用。",
)


def count_matching(pods: Sequence[PodInfo], constraint: SpreadConstraint, namespace: str) -> int:
    """countPodsMatchSelector: same namespace, not terminating, labels match."""
    selector = constraint.selector
    return sum(1 for p in pods if p.namespace == namespace and selector(p.labels) and not terminating(p))


@dataclass(slots=True)
class _FilterState:
    constraints: list[SpreadConstraint]
    counts: list[dict[str, int]]  # per constraint: domain value -> matching pods
    statuses: dict[tuple, Status] = field(default_factory=dict)


@dataclass(slots=True)
class _ScoreState:
    constraints: list[SpreadConstraint]
    ignored: set[str]
    counts: list[dict[str, int]]
    sizes: list[int]  # domains per constraint, the n of ln(n + 2)
    weights: list[float]
    namespace: str
    ignored_mask: list[bool] = field(default_factory=list)
    low: int = 0
    high: int = 0


class PodTopologySpread(Plugin):
    name = NAME
    is_filter = True
    is_score = True

    def __init__(self, args: dict | None = None) -> None:
        super().__init__(args)
        defaulting = self.args.get("defaultingType", "System")
        if defaulting not in ("System", "List"):
            raise ValueError('defaultingType: must be "System" or "List"')
        self.system_defaulted = defaulting == "System"
        listed = list(self.args.get("defaultConstraints") or [])
        if self.system_defaulted and listed:
            raise ValueError('defaultConstraints: must be empty for defaultingType "System"')
        self.default_constraints = list(SYSTEM_DEFAULT_CONSTRAINTS) if self.system_defaulted else listed
        self.workload_selectors = list(self.args.get("workloadSelectors") or [])

    def _constraints(self, pod: PodInfo, action: str, snapshot: Any) -> list[SpreadConstraint]:
        if pod.spread_constraints:
            return spread_constraints(pod.spread_constraints, pod.labels, action, _PATH)
        if not self.default_constraints or not any(
            c.get("whenUnsatisfiable") == action for c in self.default_constraints
        ):
            return []
        owners = [*self.workload_selectors, *(getattr(snapshot, "workload_selectors", None) or [])]
        selector = workload_selector(pod, owners)
        if selector is None:
            return []
        return spread_constraints(self.default_constraints, pod.labels, action, _DEFAULT_PATH, selector)

    # -- Filter --------------------------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo], snapshot: Any):
        try:
            constraints = self._constraints(pod, "DoNotSchedule", snapshot)
        except SelectorParseError as err:
            status = _error(f"obtaining pod's hard topology spread constraints: {err}")
            state[_PREFILTER] = status
            return status
        if not constraints:
            return skip(NAME, _SKIP_FILTER)
        state[_PREFILTER] = _FilterState(constraints, _count_domains(constraints, pod, nodes))
        return None

    def filter(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> dict[str, Status]:
        s = state.get(_PREFILTER)
        if isinstance(s, Status):
            return {node.name: s for node in nodes}
        if s is None:
            return {}
        checks = []
        for index, c in enumerate(s.constraints):
            counts = s.counts[index]
            least = _min_match(c, counts)
            checks.append((index, c.topology_key, counts, int(c.selector(pod.labels)) - least, c.max_skew))
        failures: dict[str, Status] = {}
        for node in nodes:
            labels = node.labels
            for index, key, counts, offset, max_skew in checks:
                value = labels.get(key)
                if value is None:
                    failures[node.name] = _cached(s, (index,), pod)
                    break
                if counts.get(value, 0) + offset > max_skew:
                    failures[node.name] = _cached(s, (index, value), pod)
                    break
        return failures

    # -- Score ---------------------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo], snapshot: Any):
        all_nodes = getattr(snapshot, "nodes", nodes)
        if not all_nodes:
            return skip(NAME, _SKIP_SCORE)
        try:
            constraints = self._constraints(pod, "ScheduleAnyway", snapshot)
        except SelectorParseError as err:
            return _error(
                f"calculating preScoreState: obtaining pod's soft topology spread constraints: {err}"
            )
        if not constraints:
            return skip(NAME, _SKIP_SCORE)
        require_all = bool(pod.spread_constraints) or not self.system_defaulted
        keys = [c.topology_key for c in constraints]
        ignored: set[str] = set()
        if require_all:
            for node in nodes:
                labels = node.labels
                for key in keys:
                    if key not in labels:
                        ignored.add(node.name)
                        break
        kept = [node for node in nodes if node.name not in ignored] if ignored else nodes
        counts: list[dict[str, int]] = [
            {} if key == HOSTNAME else dict.fromkeys([node.labels.get(key, "") for node in kept], 0)
            for key in keys
        ]
        sizes = [len(kept) if key == HOSTNAME else len(counts[i]) for i, key in enumerate(keys)]
        weights = [math.log(size + 2) for size in sizes]  # topologyNormalizingWeight
        # Only nodes with pods can add to a domain, and only domains of scored nodes are kept.
        eligible = _eligibility(constraints, pod)
        for node in [node for node in all_nodes if node.pods]:
            labels = node.labels
            if require_all and any(key not in labels for key in keys):
                continue
            for index, c in enumerate(constraints):
                domain = counts[index]
                value = labels.get(c.topology_key, "")
                if value in domain and (eligible is None or eligible(index, node)):
                    domain[value] += count_matching(node.pods, c, pod.namespace)
        state[_PRESCORE] = _ScoreState(constraints, ignored, counts, sizes, weights, pod.namespace)
        return None

    def score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> ScoreColumn:
        s: _ScoreState | None = state.get(_PRESCORE)
        if s is None:
            return ScoreColumn(raw=[0] * len(nodes))
        ignored = s.ignored
        s.ignored_mask = [node.name in ignored for node in nodes] if ignored else []
        terms = [
            (c.topology_key, c.topology_key == HOSTNAME, s.counts[i], s.weights[i], float(c.max_skew - 1), c)
            for i, c in enumerate(s.constraints)
        ]
        floor, namespace = math.floor, s.namespace
        raw = []
        for node in nodes:
            if ignored and node.name in ignored:
                raw.append(0)
                continue
            labels, total = node.labels, 0.0
            for key, is_hostname, counts, weight, base, c in terms:
                value = labels.get(key)
                if value is None:
                    continue
                if is_hostname:
                    count = count_matching(node.pods, c, namespace) if node.pods else 0
                else:
                    count = counts.get(value, 0)
                total += count * weight + base
            whole = floor(total)  # go_round, inlined: Go's math.Round rounds halves away from zero
            raw.append(int(whole) + (total - whole >= 0.5))
        nodes = list(nodes)
        return ScoreColumn(raw=raw, details=LazyDetails(len(nodes), lambda i: _score_detail(s, nodes[i], i)))

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: list[int]) -> list[int] | None:
        s: _ScoreState | None = state.get(_PRESCORE)
        if s is None:
            return None
        mask = s.ignored_mask
        kept = [score for score, ignored in zip(scores, mask, strict=True) if not ignored] if mask else scores
        s.low, s.high = (min(kept), max(0, *kept)) if kept else (0, 0)
        low, high = s.low, s.high
        if not mask:
            if high == 0:
                return [MAX_NODE_SCORE] * len(scores)
            normalized = {score: MAX_NODE_SCORE * (high + low - score) // high for score in set(scores)}
            return [normalized[score] for score in scores]
        if high == 0:
            return [0 if ignored else MAX_NODE_SCORE for ignored in mask]
        return [
            0 if ignored else MAX_NODE_SCORE * (high + low - score) // high
            for score, ignored in zip(scores, mask, strict=True)
        ]

    def explain_score(self, detail: Any, raw: int, normalized: int, weight: int) -> Why:
        if detail is None:
            return super().explain_score(detail, raw, normalized, weight)
        ignored, parts, total, low, high = detail
        tail_en = f"×{weight} = {normalized * weight}."
        tail_zh = f"×{weight} = {normalized * weight}。"
        if ignored:
            return Why(
                "This node lacks one of the constraints' topology keys, so it is left out and scores 0; "
                + tail_en,
                "该节点缺少某个约束的拓扑标签，不参与打分，得 0；" + tail_zh,
            )
        en = [
            f"{key}={value}: {count} matching pod(s) × ln({size}+2)={w:.3f} + (maxSkew {skew} − 1) = "
            f"{count * w + skew - 1:.3f}"
            for key, value, count, size, w, skew in parts
        ]
        zh = [
            f"{key}={value}：{count} 个匹配 Pod × ln({size}+2)={w:.3f} + (maxSkew {skew} − 1) = "
            f"{count * w + skew - 1:.3f}"
            for key, value, count, size, w, skew in parts
        ]
        if high == 0:
            norm = f"every scored node has raw 0, so {MAX_NODE_SCORE}"
            norm_zh = f"所有参与打分的节点原始得分都为 0，故为 {MAX_NODE_SCORE}"
        else:
            norm = norm_zh = f"100·({high} + {low} − {raw}) // {high} = {normalized}"
        return Why(
            f"{'; '.join(en)}; sum {total:.3f}, rounded {raw}; fewer matching pods score higher: "
            f"{norm}; {tail_en}",
            f"{'；'.join(zh)}；合计 {total:.3f}，四舍五入为 {raw}；"
            f"匹配 Pod 越少得分越高：{norm_zh}；{tail_zh}",
        )


def _error(message: str) -> Status:
    why = Why(
        f"A label selector in the pod's {_PATH} cannot be parsed, so the scheduler gives up: {message}",
        f"Pod 的 {_PATH} 中有无法解析的标签选择器，调度器放弃调度：{message}",
    )
    return Status(Code.ERROR, (message,), NAME, why)


def _eligibility(constraints: list[SpreadConstraint], pod: PodInfo):
    """matchNodeInclusionPolicies, memoized per node for the cycle."""
    required = required_node_affinity(pod) if any(c.honor_node_affinity for c in constraints) else None
    honor_taints = any(c.honor_node_taints for c in constraints)
    if required is None and not honor_taints:
        return None
    affinity_ok: dict[str, bool] = {}
    taints_ok: dict[str, bool] = {}

    def eligible(index: int, node: NodeInfo) -> bool:
        c = constraints[index]
        if c.honor_node_affinity and required is not None:
            if node.name not in affinity_ok:
                affinity_ok[node.name] = required(node.labels, node.name)
            if not affinity_ok[node.name]:
                return False
        if c.honor_node_taints:
            if node.name not in taints_ok:
                taints_ok[node.name] = (
                    first_untolerated(node.taints, pod.tolerations, _DO_NOT_SCHEDULE_TAINTS) is None
                )
            if not taints_ok[node.name]:
                return False
        return True

    return eligible


def _count_domains(constraints: list[SpreadConstraint], pod: PodInfo, nodes: Sequence[NodeInfo]):
    """calPreFilterState: matching pods per domain, over the nodes that carry every topology key."""
    keys = [c.topology_key for c in constraints]
    if len(keys) == 1:
        key = keys[0]
        candidates = [node for node in nodes if key in node.labels]
    else:
        candidates = [node for node in nodes if all(key in node.labels for key in keys)]
    eligible = _eligibility(constraints, pod)
    counts: list[dict[str, int]] = []
    for index, c in enumerate(constraints):
        key = c.topology_key
        members = candidates if eligible is None else [node for node in candidates if eligible(index, node)]
        domain = dict.fromkeys([node.labels[key] for node in members], 0)
        for node in members:
            if node.pods:
                domain[node.labels[key]] += count_matching(node.pods, c, pod.namespace)
        counts.append(domain)
    return counts


def _min_match(c: SpreadConstraint, counts: dict[str, int]) -> int:
    """The global minimum; 0 while fewer domains than minDomains are eligible."""
    if len(counts) < c.min_domains:
        return 0
    return min(counts.values()) if counts else _MAX_INT32


def _cached(s: _FilterState, key: tuple, pod: PodInfo) -> Status:
    status = s.statuses.get(key)
    if status is None:
        status = s.statuses[key] = _missing_label(s, key[0]) if len(key) == 1 else _skew(s, *key, pod)
    return status


def _missing_label(s: _FilterState, index: int) -> Status:
    c = s.constraints[index]
    why = Why(
        f"This node has no label {c.topology_key}, the topologyKey of {c.path}; a DoNotSchedule "
        "constraint only places pods on nodes that belong to one of its domains.",
        f"该节点没有标签 {c.topology_key}（{c.path} 的 topologyKey）；DoNotSchedule 约束只会把 Pod "
        "放到属于某个拓扑域的节点上。",
    )
    return unresolvable(NAME, ERR_REASON_NODE_LABEL_NOT_MATCH, why)


def _skew(s: _FilterState, index: int, value: str, pod: PodInfo) -> Status:
    c = s.constraints[index]
    counts = s.counts[index]
    count, own = counts.get(value, 0), int(c.selector(pod.labels))
    least = _min_match(c, counts)
    key = c.topology_key
    if len(counts) < c.min_domains:
        floor_en = (
            f"only {len(counts)} eligible domain(s) < minDomains {c.min_domains}, so the minimum counts as 0"
        )
        floor_zh = f"合格的拓扑域只有 {len(counts)} 个，少于 minDomains {c.min_domains}，因此最小值按 0 计"
    else:
        smallest = sorted(v for v, n in counts.items() if n == least)[0]
        floor_en = f"the least-loaded domain {key}={smallest} has {least}"
        floor_zh = f"最空闲的拓扑域 {key}={smallest} 有 {least} 个"
    skew = count + own - least
    head = f"{c.path} (topologyKey {key}, maxSkew {c.max_skew}, labelSelector {c.selector_text})"
    why = Why(
        f"{head}: {key}={value} already has {count} matching pod(s), {floor_en}; placing the pod here makes "
        f"skew {count} + {own} − {least} = {skew} > {c.max_skew}.",
        f"{head}：{key}={value} 已有 {count} 个匹配的 Pod，{floor_zh}；放在这里偏差为 "
        f"{count} + {own} − {least} = {skew} > {c.max_skew}。",
    )
    return unschedulable(NAME, ERR_REASON_CONSTRAINTS_NOT_MATCH, why)


def _sum(s: _ScoreState, node: NodeInfo) -> float:
    """Score's sum for one node, for the explanation: Σ count·weight + (maxSkew − 1)."""
    total = 0.0
    labels = node.labels
    for index, c in enumerate(s.constraints):
        value = labels.get(c.topology_key)
        if value is None:
            continue
        if c.topology_key == HOSTNAME:
            count = count_matching(node.pods, c, s.namespace) if node.pods else 0
        else:
            count = s.counts[index].get(value, 0)
        total += count * s.weights[index] + float(c.max_skew - 1)
    return total


def _score_detail(s: _ScoreState, node: NodeInfo, position: int) -> tuple:
    if node.name in s.ignored:
        return True, [], 0.0, s.low, s.high
    parts = []
    for index, c in enumerate(s.constraints):
        value = node.labels.get(c.topology_key)
        if value is None:
            continue
        if c.topology_key == HOSTNAME:
            count = count_matching(node.pods, c, s.namespace)
        else:
            count = s.counts[index].get(value, 0)
        parts.append((c.topology_key, value, count, s.sizes[index], s.weights[index], c.max_skew))
    return False, parts, _sum(s, node), s.low, s.high
