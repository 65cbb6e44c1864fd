"""InterPodAffinity: required pod (anti-)affinity filter and preferred (anti-)affinity score.

PreFilter counts, once per cycle, the matching pods per topology pair (key, value): pods matching
all of the incoming pod's required affinity terms, pods matching its anti-affinity terms, and
existing pods whose required anti-affinity matches the incoming pod. Filter then decides each node
with a few dictionary lookups. Existing pods' terms are parsed once per pod (PodInfo.extra), and
only nodes listed as hosting pods with (anti-)affinity are visited for them.

PreScore sums the weights per topology pair the same way; a node's raw score is the sum of the
pairs its labels belong to, normalized with the true minimum and maximum (v1.33).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
from scheduler.engine.plugins.pod_affinity_terms import (
    PREFERRED,
    AffinityTerm,
    affinity_of,
    merge_namespaces,
    parse_affinity,
)
from scheduler.engine.podinfo import PodInfo

NAME = "InterPodAffinity"
ERR_REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
_PREFILTER, _PRESCORE = "PreFilter" + NAME, "PreScore" + NAME
_EXAMPLES = 3  # contributions kept per topology pair for the score explanation

_SKIP_FILTER = Why(
    "The pod has no required pod affinity or anti-affinity, and no existing pod's required "
    "anti-affinity matches it, so this filter has nothing to check.",
    "Pod 没有必需的 Pod 亲和性或反亲和性，也没有任何已有 Pod 的必需反亲和性与它匹配，此过滤器无需检查。",
)
_SKIP_SCORE = Why(
    "No preferred pod (anti-)affinity of this pod, and no (anti-)affinity of an existing pod, "
    "matches anything, so InterPodAffinity does not score it.",
    "该 Pod 的偏好 Pod（反）亲和性、以及已有 Pod 的（反）亲和性都没有匹配任何对象，"
    "InterPodAffinity 不为它打分。",
)

Pair = tuple[str, str]


def _ref(pod: PodInfo, incoming: PodInfo) -> str:
    return pod.name if pod.namespace == incoming.namespace else pod.key


@dataclass(slots=True)
class _FilterState:
    affinity: list[AffinityTerm]
    anti_affinity: list[AffinityTerm]
    self_match: bool
    affinity_counts: dict[Pair, int] = field(default_factory=dict)
    anti_counts: dict[Pair, int] = field(default_factory=dict)
    existing_counts: dict[Pair, int] = field(default_factory=dict)
    examples: dict[tuple[str, Pair], tuple[str, str, AffinityTerm]] = field(default_factory=dict)
    statuses: dict[tuple, Status] = field(default_factory=dict)  # shared by the nodes of a domain


@dataclass(slots=True)
class _ScoreState:
    topology_score: dict[str, dict[str, int]]
    examples: dict[Pair, list[tuple[int, str, str, str]]]  # (delta, kind, pod, term path)
    low: int = 0
    high: int = 0


class InterPodAffinity(Plugin):
    name = NAME
    is_filter = True
    is_score = True

    def __init__(self, args: dict | None = None) -> None:
        super().__init__(args)
        weight = self.args.get("hardPodAffinityWeight", 1)
        if isinstance(weight, bool) or not isinstance(weight, int) or not 0 <= weight <= 100:
            raise ValueError("hardPodAffinityWeight: must be an integer between 0 and 100")
        self.hard_weight = weight
        self.ignore_existing_preferred = bool(self.args.get("ignorePreferredTermsOfExistingPods", False))

    # -- Filter --------------------------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo], snapshot: Any):
        parsed = parse_affinity(pod)
        if parsed.error:
            return unresolvable(NAME, f"parsing pod: {parsed.error}", _parse_why(parsed.error))
        namespace_labels = getattr(snapshot, "namespace_labels", None) or {}
        affinity = [merge_namespaces(t, namespace_labels) for t in parsed.required_affinity]
        anti = [merge_namespaces(t, namespace_labels) for t in parsed.required_anti_affinity]
        own_labels = namespace_labels.get(pod.namespace) or {}
        self_match = bool(affinity) and all(t.matches(pod, {}) for t in affinity)
        s = _FilterState(affinity, anti, self_match)
        all_nodes = getattr(snapshot, "nodes", nodes)
        for node in [node for node in all_nodes if node.pods_with_required_anti_affinity]:
            for existing in node.pods_with_required_anti_affinity:
                for term in affinity_of(existing).required_anti_affinity:
                    if term.matches(pod, own_labels):
                        _count(s, "existing", s.existing_counts, node, term, existing, pod)
        if affinity or anti:
            self._count_incoming(s, pod, nodes)
        if not s.existing_counts and not affinity and not anti:
            return skip(NAME, _SKIP_FILTER)
        state[_PREFILTER] = s
        return None

    @staticmethod
    def _count_incoming(s: _FilterState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> None:
        for node in [node for node in nodes if node.pods]:
            for existing in node.pods:
                if s.affinity and all(t.matches(existing, {}) for t in s.affinity):
                    for term in s.affinity:
                        _count(s, "affinity", s.affinity_counts, node, term, existing, pod)
                for term in s.anti_affinity:
                    if term.matches(existing, {}):
                        _count(s, "anti", s.anti_counts, node, term, existing, pod)

    def filter(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> dict[str, Status]:
        """Column-wise, in upstream's order: affinity, then anti-affinity, then existing pods' rules."""
        s: _FilterState | None = state.get(_PREFILTER)
        if s is None:
            return {}
        failures: dict[str, Status] = {}
        remaining = list(nodes)
        if s.affinity:
            passing = []
            for node in remaining:
                status = _affinity_status(s, node.labels)
                if status is None:
                    passing.append(node)
                else:
                    failures[node.name] = status
            remaining = passing
        for term in s.anti_affinity:
            key = term.topology_key
            hot = {v for (k, v), n in s.anti_counts.items() if k == key and n > 0}
            if hot:
                remaining = _reject(s, remaining, key, hot, "anti", _anti_status, failures)
        existing_by_key: dict[str, set[str]] = {}
        for key, value in s.existing_counts:
            existing_by_key.setdefault(key, set()).add(value)
        for key, values in existing_by_key.items():
            remaining = _reject(s, remaining, key, values, "existing", _existing_status, failures)
        return failures

    # -- Score ---------------------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo], snapshot: Any):
        if not nodes:
            return skip(NAME, _SKIP_SCORE)
        has_constraints = bool(pod.pod_affinity.get(PREFERRED) or pod.pod_anti_affinity.get(PREFERRED))
        if self.ignore_existing_preferred and not has_constraints:
            return skip(NAME, _SKIP_SCORE)
        parsed = parse_affinity(pod)
        if parsed.error:
            return Status(Code.ERROR, (parsed.error,), NAME, _parse_why(parsed.error))
        namespace_labels = getattr(snapshot, "namespace_labels", None) or {}
        preferred = [merge_namespaces(t, namespace_labels) for t in parsed.preferred_affinity]
        preferred_anti = [merge_namespaces(t, namespace_labels) for t in parsed.preferred_anti_affinity]
        own_labels = namespace_labels.get(pod.namespace) or {}
        s = _ScoreState({}, {})
        all_nodes = getattr(snapshot, "nodes", nodes)
        if has_constraints:
            hosts = [(node, node.pods) for node in all_nodes if node.pods and node.labels]
        else:
            hosts = [
                (node, node.pods_with_affinity)
                for node in all_nodes
                if node.pods_with_affinity and node.labels
            ]
        for node, existing_pods in hosts:
            for existing in existing_pods:
                self._score_existing(s, pod, existing, node.labels, preferred, preferred_anti, own_labels)
        if not s.topology_score:
            return skip(NAME, _SKIP_SCORE)
        state[_PRESCORE] = s
        return None

    def _score_existing(self, s, pod, existing, labels, preferred, preferred_anti, own_labels) -> None:
        """processExistingPod: the five ways an existing pod moves the score of its domains."""
        ref = _ref(existing, pod)
        for term in preferred:
            if term.matches(existing, {}):
                _add(s, term, labels, term.weight, ("matches", ref))
        for term in preferred_anti:
            if term.matches(existing, {}):
                _add(s, term, labels, -term.weight, ("matches", ref))
        other = affinity_of(existing)
        if self.hard_weight > 0:
            for term in other.required_affinity:
                if term.matches(pod, own_labels):
                    _add(s, term, labels, self.hard_weight, ("requires", ref))
        for term in other.preferred_affinity:
            if term.matches(pod, own_labels):
                _add(s, term, labels, term.weight, ("prefers", ref))
        for term in other.preferred_anti_affinity:
            if term.matches(pod, own_labels):
                _add(s, term, labels, -term.weight, ("avoids", ref))

    def score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> ScoreColumn:
        s: _ScoreState | None = state.get(_PRESCORE)
        if s is None:
            return ScoreColumn(raw=[0] * len(nodes))
        by_key = list(s.topology_score.items())
        raw = []
        for node in nodes:
            labels = node.labels
            total = 0
            for key, values in by_key:
                value = labels.get(key)
                if value is not None:
                    total += values.get(value, 0)
            raw.append(total)
        label_sets = [node.labels for node in nodes]
        return ScoreColumn(raw=raw, details=LazyDetails(len(nodes), lambda i: _detail(s, label_sets[i])))

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: list[int]) -> list[int] | None:
        s: _ScoreState | None = state.get(_PRESCORE)
        if s is None or not s.topology_score or not scores:
            return None
        s.low, s.high = min(scores), max(scores)
        spread = s.high - s.low
        if spread <= 0:
            return [0] * len(scores)
        # Go: int64(float64(MaxNodeScore) * (float64(score-min) / float64(max-min))), truncated.
        normalized = {
            score: int(float(MAX_NODE_SCORE) * (float(score - s.low) / float(spread)))
            for score in set(scores)
        }
        return [normalized[score] for score in scores]

    def explain_score(self, detail: Any, raw: int, normalized: int, weight: int) -> Why:
        if detail is None:
            return super().explain_score(detail, raw, normalized, weight)
        parts, low, high = detail
        en_terms = "; ".join(
            f"{key}={value}: {total:+d} ({', '.join(_EN[kind](ref, path, d) for d, kind, ref, path in why)})"
            for key, value, total, why in parts
        )
        zh_terms = "；".join(
            f"{key}={value}：{total:+d}（{'，'.join(_ZH[kind](ref, path, d) for d, kind, ref, path in why)}）"
            for key, value, total, why in parts
        )
        en_terms = en_terms or "none of this node's topology domains gained or lost weight"
        zh_terms = zh_terms or "该节点所在的拓扑域都没有得分或扣分"
        if high > low:
            low_text = f"({low})" if low < 0 else str(low)
            formula = f"int(100·({raw} − {low_text})/({high} − {low_text})) = {normalized}"
            en_norm, zh_norm = formula, formula
        else:
            en_norm = f"every node has the same raw score, so {normalized}"
            zh_norm = f"所有节点原始得分相同，故为 {normalized}"
        return Why(
            f"{en_terms}; raw {raw}; normalized {en_norm}; ×{weight} = {normalized * weight}.",
            f"{zh_terms}；原始得分 {raw}；归一化 {zh_norm}；×{weight} = {normalized * weight}。",
        )


_EN = {
    "matches": lambda ref, path, d: f"{d:+d}: pod {ref} matches {path}",
    "requires": lambda ref, path, d: f"{d:+d}: {ref}'s {path} requires this pod nearby",
    "prefers": lambda ref, path, d: f"{d:+d}: {ref}'s {path} prefers this pod",
    "avoids": lambda ref, path, d: f"{d:+d}: {ref}'s {path} avoids this pod",
}
_ZH = {
    "matches": lambda ref, path, d: f"{d:+d}：Pod {ref} 匹配 {path}",
    "requires": lambda ref, path, d: f"{d:+d}：{ref} 的 {path} 要求本 Pod 在同一拓扑域",
    "prefers": lambda ref, path, d: f"{d:+d}：{ref} 的 {path} 偏好本 Pod",
    "avoids": lambda ref, path, d: f"{d:+d}：{ref} 的 {path} 避开本 Pod",
}


def _count(s: _FilterState, kind: str, counts: dict, node: NodeInfo, term, existing, pod) -> None:
    value = node.labels.get(term.topology_key)
    if value is None:
        return
    pair = (term.topology_key, value)
    counts[pair] = counts.get(pair, 0) + 1
    s.examples.setdefault((kind, pair), (_ref(existing, pod), node.name, term))


def _add(s: _ScoreState, term: AffinityTerm, labels: Mapping[str, str], delta: int, why: tuple) -> None:
    value = labels.get(term.topology_key)
    if value is None:
        return
    values = s.topology_score.setdefault(term.topology_key, {})
    values[value] = values.get(value, 0) + delta
    examples = s.examples.setdefault((term.topology_key, value), [])
    if len(examples) < _EXAMPLES:
        examples.append((delta, why[0], why[1], term.path))


def _detail(s: _ScoreState, labels: Mapping[str, str]) -> tuple:
    parts = []
    for key, values in s.topology_score.items():
        value = labels.get(key)
        if value is not None and value in values:
            parts.append((key, value, values[value], s.examples.get((key, value), [])))
    return parts, s.low, s.high


def _reject(s: _FilterState, nodes: list[NodeInfo], key: str, values: set[str], kind: str, build, failures):
    """Fail the nodes whose `key` label is one of `values`; return the others."""
    passing = []
    for node in nodes:
        value = node.labels.get(key)
        if value is not None and value in values:
            failures[node.name] = _cached(s, (kind, key, value), build)
        else:
            passing.append(node)
    return passing


def _affinity_status(s: _FilterState, labels: Mapping[str, str]) -> Status | None:
    missing = None
    for term in s.affinity:
        value = labels.get(term.topology_key)
        if value is None:
            return _cached(s, ("missing", term.path), _missing_status)
        if missing is None and s.affinity_counts.get((term.topology_key, value), 0) <= 0:
            missing = (term, value)
    if missing is None:
        return None
    if not s.affinity_counts and s.self_match:
        return None  # the first pod of a group that has affinity to itself
    term, value = missing
    return _cached(s, ("affinity", term.path, value), _affinity_failure)


def _cached(s: _FilterState, key: tuple, build) -> Status:
    status = s.statuses.get(key)
    if status is None:
        status = s.statuses[key] = build(s, *key[1:])
    return status


def _missing_status(s: _FilterState, path: str) -> Status:
    term = next(t for t in s.affinity if t.path == path)
    key = term.topology_key or '""'
    why = Why(
        f"This node has no label {key}, the topologyKey of the pod's {path}; a required pod affinity "
        "term can only be satisfied on nodes that carry its topology label.",
        f"该节点没有标签 {key}，而它是 Pod 的 {path} 的 topologyKey；"
        "必需的 Pod 亲和性只能在带有该拓扑标签的节点上满足。",
    )
    return unresolvable(NAME, ERR_REASON_AFFINITY, why)


def _affinity_failure(s: _FilterState, path: str, value: str) -> Status:
    term = next(t for t in s.affinity if t.path == path)
    domain = f"{term.topology_key}={value}"
    wanted = f"labelSelector {term.selector_text}, namespaces {term.namespaces_text}"
    elsewhere = sorted(
        f"{k}={v}" for (k, v), n in s.affinity_counts.items() if k == term.topology_key and n > 0
    )
    if elsewhere:
        en_tail = f" Pods matching every required term do run in {', '.join(elsewhere[:3])}."
        zh_tail = f"满足全部必需条件的 Pod 运行在 {', '.join(elsewhere[:3])}。"
    elif s.affinity_counts:
        en_tail = " Matching pods exist, but only in domains of another term's topologyKey."
        zh_tail = "匹配的 Pod 存在，但只在其他条件的拓扑域中。"
    else:
        en_tail = (
            " No pod in the cluster matches the terms yet, and the pod does not match its own terms, "
            "so the 'first pod of a group' exception does not apply."
        )
        zh_tail = "集群中还没有匹配的 Pod，且该 Pod 不匹配自己的条件，因此“同组第一个 Pod”的例外不适用。"
    why = Why(
        f"No pod matching the pod's {path} ({wanted}) runs in this node's domain {domain}.{en_tail}",
        f"该节点所在拓扑域 {domain} 中没有匹配 Pod 的 {path}（{wanted}）的 Pod。{zh_tail}",
    )
    return unresolvable(NAME, ERR_REASON_AFFINITY, why)


def _anti_status(s: _FilterState, key: str, value: str) -> Status:
    ref, node_name, term = s.examples[("anti", (key, value))]
    count = s.anti_counts[(key, value)]
    more = f" ({count} matching pods in this domain)" if count > 1 else ""
    why = Why(
        f"Pod {ref} on {node_name} (same {key} domain, {key}={value}) matches the pod's {term.path} "
        f"(labelSelector {term.selector_text}){more}.",
        f"{node_name} 上的 Pod {ref}（同一 {key} 拓扑域 {key}={value}）匹配 Pod 的 {term.path}"
        f"（labelSelector {term.selector_text}）。",
    )
    return unschedulable(NAME, ERR_REASON_ANTI_AFFINITY, why)


def _existing_status(s: _FilterState, key: str, value: str) -> Status:
    ref, node_name, term = s.examples[("existing", (key, value))]
    why = Why(
        f"Pod {ref} on {node_name} has {term.path} (labelSelector {term.selector_text}, topologyKey {key}) "
        f"which matches this pod, and this node is in the same domain {key}={value}.",
        f"{node_name} 上的 Pod {ref} 的 {term.path}（labelSelector {term.selector_text}，topologyKey {key}）"
        f"匹配本 Pod，而该节点与它同在拓扑域 {key}={value}。",
    )
    return unschedulable(NAME, ERR_REASON_EXISTING_ANTI_AFFINITY, why)


def _parse_why(error: str) -> Why:
    return Why(
        f"The pod's spec.affinity has a label selector Kubernetes cannot parse: {error}",
        f"Pod 的 spec.affinity 中有 Kubernetes 无法解析的标签选择器：{error}",
    )
