"""PodTopologySpread: DoNotSchedule constraints filter, ScheduleAnyway constraints score.

PreFilter counts the matching pods per topology domain once per cycle, over every node that has
all the constraints' topology keys and passes nodeAffinityPolicy / nodeTaintsPolicy. Filter then
compares each node's domain with the least-loaded domain: one dictionary lookup per constraint.

A pod without constraints of its own gets the cluster-default constraints (hostname maxSkew 3,
zone maxSkew 5, ScheduleAnyway) only when a Service, ReplicaSet, StatefulSet or
ReplicationController selects it. The engine has no such objects; callers describe them as
"selector owners", through the plugin argument `workloadSelectors` or the snapshot attribute
`snapshot.workload_selectors` (see topology.workload_selector). A bare pod gets nothing.

Matching pods are counted through the snapshot's LabelIndex: a constraint's selector is evaluated
once per group of pods sharing namespace and labels, not once per pod.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from scheduler.engine.framework import (
    MAX_NODE_SCORE,
    CycleState,
    NodesMemo,
    Plugin,
    ScoreColumn,
    Status,
    Why,
    skip,
)
from scheduler.engine.nodeinfo import NodeInfo
from scheduler.engine.plugins.helper.topology import (
    HOSTNAME,
    SYSTEM_DEFAULT_CONSTRAINTS,
    SelectorParseError,
    SpreadConstraint,
    required_node_affinity,
    spread_constraints,
    workload_selector,
)
from scheduler.engine.plugins.podtopologyspread import why as explain
from scheduler.engine.plugins.podtopologyspread.why import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    NAME,
)
from scheduler.engine.plugins.podtopologyspread.why import PATH as _PATH
from scheduler.engine.pod_index import LabelIndex
from scheduler.engine.podinfo import PodInfo
from scheduler.engine.tolerations import first_untolerated

__all__ = ["ERR_REASON_CONSTRAINTS_NOT_MATCH", "ERR_REASON_NODE_LABEL_NOT_MATCH", "NAME", "PodTopologySpread"]

_PREFILTER, _PRESCORE = "PreFilter" + NAME, "PreScore" + NAME
_DEFAULT_PATH = "PodTopologySpreadArgs.defaultConstraints"
_DO_NOT_SCHEDULE_TAINTS = ("NoSchedule", "NoExecute")

_SKIP_FILTER = Why(
    f"The pod has no {_PATH} with whenUnsatisfiable: DoNotSchedule, so this filter has nothing to check.",
    f"Pod 没有 whenUnsatisfiable: DoNotSchedule 的 {_PATH}，此过滤器无需检查。",
)
_SKIPPED_FILTER = skip(NAME, _SKIP_FILTER)  # shared by every cycle
_SKIP_SCORE = Why(
    f"The pod has no ScheduleAnyway {_PATH}, and no Service, ReplicaSet, StatefulSet or "
    "ReplicationController selects it, so the cluster-default spreading does not apply either.",
    f"Pod 没有 ScheduleAnyway 的 {_PATH}，也没有 Service、ReplicaSet、StatefulSet 或 "
    "ReplicationController 选中它，因此集群默认的打散规则也不适用。",
)
_SKIPPED_SCORE = skip(NAME, _SKIP_SCORE)  # shared by every cycle


def matching_per_node(snapshot: Any, c: SpreadConstraint, namespace: str) -> dict[str, tuple[NodeInfo, int]]:
    """countPodsMatchSelector for every node at once: same namespace, not terminating, labels match.

    Only nodes with at least one matching pod are listed.
    """
    per_node: dict[str, tuple[NodeInfo, int]] = {}
    for group in snapshot.index(LabelIndex).candidates([c.label_pairs]):
        if group.namespace != namespace or not c.selector(group.labels):
            continue
        for name, (node, count) in group.live_per_node.items():
            if name in per_node:
                count += per_node[name][1]
            per_node[name] = (node, count)
    return per_node


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
    host_counts: list[dict[str, int]]  # per hostname constraint: node name -> matching pods
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
            status = explain.error_status(f"obtaining pod's hard topology spread constraints: {err}")
            state[_PREFILTER] = status
            return status
        if not constraints:
            return _SKIPPED_FILTER
        state[_PREFILTER] = _FilterState(
            constraints, _count_domains(constraints, pod, nodes, snapshot, state)
        )
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
            least = explain.min_match(c, counts)
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
            return _SKIPPED_SCORE
        try:
            constraints = self._constraints(pod, "ScheduleAnyway", snapshot)
        except SelectorParseError as err:
            return explain.error_status(
                f"calculating preScoreState: obtaining pod's soft topology spread constraints: {err}"
            )
        if not constraints:
            return _SKIPPED_SCORE
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
        # Only nodes with matching pods can add to a domain, and only domains of scored nodes are
        # kept. A hostname constraint counts on each scored node itself, with no further checks.
        eligible = _eligibility(constraints, pod)
        host_counts: list[dict[str, int]] = []
        for index, c in enumerate(constraints):
            per_node = matching_per_node(snapshot, c, pod.namespace)
            host_counts.append(
                {name: count for name, (_, count) in per_node.items()} if keys[index] == HOSTNAME else {}
            )
            domain = counts[index]
            for node, count in per_node.values():
                labels = node.labels
                if require_all and any(key not in labels for key in keys):
                    continue
                value = labels.get(c.topology_key, "")
                if value in domain and (eligible is None or eligible(index, node)):
                    domain[value] += count
        state[_PRESCORE] = _ScoreState(constraints, ignored, counts, sizes, weights, host_counts)
        return None

    def score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> ScoreColumn:
        s: _ScoreState | None = state.get(_PRESCORE)
        if s is None:
            return ScoreColumn(raw=[0] * len(nodes))
        ignored = s.ignored
        s.ignored_mask = [node.name in ignored for node in nodes] if ignored else []
        # A hostname domain is the node itself: its counts are keyed by node name.
        terms = [
            (
                c.topology_key,
                c.topology_key == HOSTNAME,
                (s.host_counts if c.topology_key == HOSTNAME else s.counts)[i],
                s.weights[i],
            )
            for i, c in enumerate(s.constraints)
        ]
        bases = [float(c.max_skew - 1) for c in s.constraints]
        floor = math.floor
        raw = []
        for node in nodes:
            if ignored and node.name in ignored:
                raw.append(0)
                continue
            labels, total = node.labels, 0.0
            for (key, is_hostname, counts, weight), base in zip(terms, bases, strict=True):
                value = labels.get(key)
                if value is None:
                    continue
                total += counts.get(node.name if is_hostname else value, 0) * weight + base
            whole = floor(total)  # go_round, inlined: Go's math.Round rounds halves away from zero
            raw.append(int(whole) + (total - whole >= 0.5))
        return ScoreColumn.lazy(raw, _score_detail, s, nodes)

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
            return list(map(normalized.__getitem__, scores))
        if high == 0:
            return [0 if ignored else MAX_NODE_SCORE for ignored in mask]
        return [
            0 if ignored else MAX_NODE_SCORE * (high + low - score) // high
            for score, ignored in zip(scores, mask, strict=True)
        ]

    def explain_score(self, detail: Any, raw: int, normalized: int, weight: int) -> Why:
        if detail is None:
            return super().explain_score(detail, raw, normalized, weight)
        return explain.explain_score(detail, raw, normalized, weight)


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


# Per pod: each constraint's eligible nodes with every topology key. They depend on the nodes
# alone, so while the snapshot's nodes stay the same (preemption's dry runs re-run this PreFilter
# for every pod they take away or put back) they are worked out once.
_DOMAIN_MEMBERS = NodesMemo()


def _members(constraints: list[SpreadConstraint], pod: PodInfo, nodes: Sequence[NodeInfo]) -> list:
    keys = [c.topology_key for c in constraints]
    candidates = [node for node in nodes if all(key in node.labels for key in keys)]
    eligible = _eligibility(constraints, pod)
    found = []
    for index in range(len(constraints)):
        members = candidates if eligible is None else [node for node in candidates if eligible(index, node)]
        found.append((members, {node.name for node in members}))
    return found


def _count_domains(
    constraints: list[SpreadConstraint],
    pod: PodInfo,
    nodes: Sequence[NodeInfo],
    snapshot: Any,
    state: CycleState | None = None,
):
    """calPreFilterState: matching pods per domain, over the nodes that carry every topology key."""
    if state is not None and state.nodes_version is not None:
        counts = []
        for c, (members, names) in zip(
            constraints,
            _DOMAIN_MEMBERS.get(state, pod, lambda: _members(constraints, pod, nodes)),
            strict=True,
        ):
            key = c.topology_key
            domain = dict.fromkeys([node.labels[key] for node in members], 0)
            for node, count in matching_per_node(snapshot, c, pod.namespace).values():
                if node.name in names:
                    domain[node.labels[key]] += count
            counts.append(domain)
        return counts
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
        for node, count in matching_per_node(snapshot, c, pod.namespace).values():
            labels = node.labels
            if all(k in labels for k in keys) and (eligible is None or eligible(index, node)):
                domain[labels[key]] += count
        counts.append(domain)
    return counts


def _cached(s: _FilterState, key: tuple, pod: PodInfo) -> Status:
    status = s.statuses.get(key)
    if status is None:
        status = s.statuses[key] = (
            explain.missing_label(s, key[0]) if len(key) == 1 else explain.skew(s, *key, pod)
        )
    return status


def _sum(s: _ScoreState, node: NodeInfo) -> float:
    """Score's sum for one node, for the explanation: Σ count·weight + (maxSkew − 1)."""
    total = 0.0
    labels = node.labels
    for index, c in enumerate(s.constraints):
        value = labels.get(c.topology_key)
        if value is None:
            continue
        if c.topology_key == HOSTNAME:
            count = s.host_counts[index].get(node.name, 0)
        else:
            count = s.counts[index].get(value, 0)
        total += count * s.weights[index] + float(c.max_skew - 1)
    return total


def _score_detail(s: _ScoreState, nodes: list[NodeInfo], index: int) -> tuple:
    node = nodes[index]
    if node.name in s.ignored:
        return True, [], 0.0, s.low, s.high
    parts = []
    for index, c in enumerate(s.constraints):
        value = node.labels.get(c.topology_key)
        if value is None:
            continue
        if c.topology_key == HOSTNAME:
            count = s.host_counts[index].get(node.name, 0)
        else:
            count = s.counts[index].get(value, 0)
        parts.append((c.topology_key, value, count, s.sizes[index], s.weights[index], c.max_skew))
    return False, parts, _sum(s, node), s.low, s.high
