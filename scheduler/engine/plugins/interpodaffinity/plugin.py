"""InterPodAffinity: required pod (anti-)affinity filter and preferred (anti-)affinity score.

PreFilter counts, once per cycle, the matching pods per topology pair (key, value): pods matching
all of the incoming pod's required affinity terms, pods matching its anti-affinity terms, and
existing pods whose required anti-affinity matches the incoming pod. Filter then decides each node
with a few dictionary lookups.

PreScore sums the weights per topology pair the same way; a node's raw score is the sum of the
pairs its labels belong to, normalized with the true minimum and maximum (v1.33).

Neither walks every bound pod. The snapshot keeps two indexes up to date: bound pods grouped by
(namespace, labels), so an incoming term is matched once per group, and bound pods' terms grouped
by what they select, so each group is matched once against the incoming pod. What matched is then
replayed in the order of a walk over the nodes and their pods, which fixes the order of the
explanations' examples exactly as such a walk would.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from operator import add, itemgetter
from typing import Any

from scheduler.engine.framework import (
    MAX_NODE_SCORE,
    Code,
    CycleState,
    Plugin,
    ScoreColumn,
    Status,
    Why,
    skip,
    unresolvable,
)
from scheduler.engine.nodeinfo import NodeInfo
from scheduler.engine.plugins.interpodaffinity import why as explain
from scheduler.engine.plugins.interpodaffinity.terms import (
    PREFERRED,
    AffinityTerm,
    ExistingTermsIndex,
    affinity_of,
    merge_namespaces,
)
from scheduler.engine.plugins.interpodaffinity.why import (
    ERR_REASON_AFFINITY,
    ERR_REASON_ANTI_AFFINITY,
    ERR_REASON_EXISTING_ANTI_AFFINITY,
    NAME,
)
from scheduler.engine.pod_index import LabelIndex, walk_order
from scheduler.engine.podinfo import PodInfo

__all__ = [
    "ERR_REASON_AFFINITY",
    "ERR_REASON_ANTI_AFFINITY",
    "ERR_REASON_EXISTING_ANTI_AFFINITY",
    "NAME",
    "InterPodAffinity",
]

_PREFILTER, _PRESCORE = "PreFilter" + NAME, "PreScore" + NAME
_EXAMPLES = 3  # contributions kept per topology pair for the score explanation

_SKIP_FILTER = Why(
    "The pod has no required pod affinity or anti-affinity, and no existing pod's required "
    "anti-affinity matches it, so this filter has nothing to check.",
    "Pod 没有必需的 Pod 亲和性或反亲和性，也没有任何已有 Pod 的必需反亲和性与它匹配，此过滤器无需检查。",
)
_SKIPPED_FILTER = skip(NAME, _SKIP_FILTER)  # shared by every cycle
_SKIP_SCORE = Why(
    "No preferred pod (anti-)affinity of this pod, and no (anti-)affinity of an existing pod, "
    "matches anything, so InterPodAffinity does not score it.",
    "该 Pod 的偏好 Pod（反）亲和性、以及已有 Pod 的（反）亲和性都没有匹配任何对象，"
    "InterPodAffinity 不为它打分。",
)
_SKIPPED_SCORE = skip(NAME, _SKIP_SCORE)  # shared by every cycle

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
    # The first few contributions per topology pair, flat: (key, value, delta, kind, pod, term
    # path) after one another, as the score details keep them (see ScoreColumn.lazy).
    examples: Sequence[Any]
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
        parsed = affinity_of(pod)
        if parsed.error:
            return unresolvable(NAME, f"parsing pod: {parsed.error}", explain.parse_why(parsed.error))
        namespace_labels = getattr(snapshot, "namespace_labels", None) or {}
        affinity = [merge_namespaces(t, namespace_labels) for t in parsed.required_affinity]
        anti = [merge_namespaces(t, namespace_labels) for t in parsed.required_anti_affinity]
        own_labels = namespace_labels.get(pod.namespace) or {}
        self_match = bool(affinity) and all(t.matches(pod, {}) for t in affinity)
        s = _FilterState(affinity, anti, self_match)
        # processExistingPod's walk: nodes in order, each node's pods in order, terms in order.
        matched = [
            (walk_order(snapshot, entry.pod, entry.node), entry.rank, entry)
            for entry in snapshot.index(ExistingTermsIndex).matching(
                "required_anti_affinity", pod, own_labels
            )
        ]
        matched.sort(key=lambda item: item[:2])
        for _, _, entry in matched:
            _count(s, "existing", s.existing_counts, entry.node, entry.term, entry.pod, pod)
        if affinity or anti:
            _count_incoming(s, pod, snapshot)
        if not s.existing_counts and not affinity and not anti:
            return _SKIPPED_FILTER
        state[_PREFILTER] = s
        return None

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
                remaining = _reject(s, remaining, key, hot, "anti", explain.anti_status, failures)
        existing_by_key: dict[str, set[str]] = {}
        for key, value in s.existing_counts:
            existing_by_key.setdefault(key, set()).add(value)
        for key, values in existing_by_key.items():
            remaining = _reject(s, remaining, key, values, "existing", explain.existing_status, failures)
        return failures

    # -- Score ---------------------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo], snapshot: Any):
        if not nodes:
            return _SKIPPED_SCORE
        has_constraints = bool(pod.pod_affinity.get(PREFERRED) or pod.pod_anti_affinity.get(PREFERRED))
        if self.ignore_existing_preferred and not has_constraints:
            return _SKIPPED_SCORE
        parsed = affinity_of(pod)
        if parsed.error:
            return Status(Code.ERROR, (parsed.error,), NAME, explain.parse_why(parsed.error))
        namespace_labels = getattr(snapshot, "namespace_labels", None) or {}
        preferred = [merge_namespaces(t, namespace_labels) for t in parsed.preferred_affinity]
        preferred_anti = [merge_namespaces(t, namespace_labels) for t in parsed.preferred_anti_affinity]
        own_labels = namespace_labels.get(pod.namespace) or {}
        s = _ScoreState({}, ())
        found = _incoming_contributions(snapshot, preferred, preferred_anti)
        found += self._existing_contributions(snapshot, pod, own_labels)
        found.sort(key=itemgetter(0))
        _add_all(s, found, pod)
        if not s.topology_score:
            return _SKIPPED_SCORE
        state[_PRESCORE] = s
        return None

    def _existing_contributions(self, snapshot: Any, pod: PodInfo, own_labels: Mapping[str, str]) -> list:
        """processExistingPod's second half: the terms of existing pods that match the incoming pod."""
        index = snapshot.index(ExistingTermsIndex)
        lists = [("required_affinity", 2, "requires"), ("preferred_affinity", 3, "prefers")]
        lists.append(("preferred_anti_affinity", 4, "avoids"))
        if self.hard_weight <= 0:
            lists.pop(0)
        found = []
        for kind, rank, why in lists:
            for entry in index.matching(kind, pod, own_labels):
                if not entry.node.labels:
                    continue
                term = entry.term
                delta = (
                    self.hard_weight
                    if why == "requires"
                    else term.weight
                    if why == "prefers"
                    else -term.weight
                )
                order = (*walk_order(snapshot, entry.pod, entry.node), rank, entry.rank)
                found.append((order, entry.node.labels, term, delta, why, entry.pod))
        return found

    def score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> ScoreColumn:
        s: _ScoreState | None = state.get(_PRESCORE)
        if s is None:
            return ScoreColumn(raw=[0] * len(nodes))
        label_sets = [node.labels for node in nodes]
        raw = [0] * len(nodes)
        domains = []  # per topology key, each node's value (None without the label)
        for key, values in s.topology_score.items():
            column = tuple([labels.get(key) for labels in label_sets])
            domains.append(column)
            # A node without the label reads None, which is never a domain value.
            raw = list(map(add, raw, map(values.get, column, repeat(0))))
        # The explanation's inputs, kept flat (see ScoreColumn.lazy); NormalizeScore uses the same
        # minimum and maximum.
        scores = []  # (key, value, total) after one another
        for key, values in s.topology_score.items():
            for value, total in values.items():
                scores += (key, value, total)
        keys = tuple(s.topology_score)
        return ScoreColumn.lazy(raw, _detail, min(raw), max(raw), keys, tuple(scores), s.examples, *domains)

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
        return list(map(normalized.__getitem__, scores))

    def explain_score(self, detail: Any, raw: int, normalized: int, weight: int) -> Why:
        if detail is None:
            return super().explain_score(detail, raw, normalized, weight)
        return explain.explain_score(detail, raw, normalized, weight)


def _incoming_contributions(snapshot: Any, preferred: list, preferred_anti: list) -> list:
    """processExistingPod's first half: existing pods that the incoming pod's preferred terms match."""
    if not preferred and not preferred_anti:
        return []
    found = []
    terms = [*preferred, *preferred_anti]
    for group in snapshot.index(LabelIndex).candidates([term.label_pairs for term in terms]):
        probe = next(iter(group.members))  # every member has the same namespace and labels
        hits = [(0, rank, t, t.weight) for rank, t in enumerate(preferred) if t.matches(probe, {})]
        hits += [(1, rank, t, -t.weight) for rank, t in enumerate(preferred_anti) if t.matches(probe, {})]
        if not hits:
            continue
        for existing, node in group.members.items():
            if not node.labels:
                continue
            where = walk_order(snapshot, existing, node)
            for rank, term_rank, term, delta in hits:
                found.append(((*where, rank, term_rank), node.labels, term, delta, "matches", existing))
    return found


def _count_incoming(s: _FilterState, pod: PodInfo, snapshot: Any) -> None:
    """Existing pods matching all the required affinity terms, or each anti-affinity term."""
    found = []
    required = [term.label_pairs for term in s.anti_affinity]
    if s.affinity:
        required.append([pair for term in s.affinity for pair in term.label_pairs])
    for group in snapshot.index(LabelIndex).candidates(required):
        probe = next(iter(group.members))
        affinity = bool(s.affinity) and all(t.matches(probe, {}) for t in s.affinity)
        anti = [term for term in s.anti_affinity if term.matches(probe, {})]
        if affinity or anti:
            found.extend(
                (walk_order(snapshot, existing, node), node, existing, affinity, anti)
                for existing, node in group.members.items()
            )
    found.sort(key=itemgetter(0))
    for _, node, existing, affinity, anti in found:
        if affinity:
            for term in s.affinity:
                _count(s, "affinity", s.affinity_counts, node, term, existing, pod)
        for term in anti:
            _count(s, "anti", s.anti_counts, node, term, existing, pod)


def _count(s: _FilterState, kind: str, counts: dict, node: NodeInfo, term, existing, pod) -> None:
    value = node.labels.get(term.topology_key)
    if value is None:
        return
    pair = (term.topology_key, value)
    counts[pair] = counts.get(pair, 0) + 1
    s.examples.setdefault((kind, pair), (_ref(existing, pod), node.name, term))


def _add_all(s: _ScoreState, found: list, pod: PodInfo) -> None:
    """Sum each contribution into its topology pair, keeping the first few as examples."""
    topology_score = s.topology_score
    examples: list = []
    kept: dict[Pair, int] = {}  # examples per pair so far
    for _, labels, term, delta, kind, existing in found:
        key = term.topology_key
        value = labels.get(key)
        if value is None:
            continue
        values = topology_score.get(key)
        if values is None:
            values = topology_score[key] = {}
        values[value] = values.get(value, 0) + delta
        count = kept.get((key, value), 0)
        if count < _EXAMPLES:
            kept[(key, value)] = count + 1
            examples += (key, value, delta, kind, _ref(existing, pod), term.path)
    s.examples = tuple(examples)


def _detail(low: int, high: int, keys: tuple, scores: tuple, examples: tuple, *domains_and_index) -> tuple:
    """One node's (key, value, total, examples) per topology key its labels hold, and the min and max.

    `scores` and `examples` are flat records of 3 and 6 fields; `domains` has each node's value
    per key, in the order of `keys`.
    """
    *domains, index = domains_and_index
    totals = {(scores[i], scores[i + 1]): scores[i + 2] for i in range(0, len(scores), 3)}
    examples_of: dict[Pair, list] = {}
    for i in range(0, len(examples), 6):
        examples_of.setdefault((examples[i], examples[i + 1]), []).append(examples[i + 2 : i + 6])
    parts = []
    for key, column in zip(keys, domains, strict=True):
        value = column[index]
        if value is not None and (key, value) in totals:
            parts.append((key, value, totals[key, value], examples_of.get((key, value), [])))
    return parts, low, high


def _reject(s: _FilterState, nodes: list[NodeInfo], key: str, values: set[str], kind: str, build, failures):
    """Fail the nodes whose `key` label is one of `values`; return the others."""
    seen = [node.labels.get(key) for node in nodes]
    if values.isdisjoint(seen):
        return nodes  # the usual case: the domains in question hold none of these nodes
    for node, value in [(node, value) for node, value in zip(nodes, seen, strict=True) if value in values]:
        failures[node.name] = _cached(s, (kind, key, value), build)
    return [node for node, value in zip(nodes, seen, strict=True) if value not in values]


def _affinity_status(s: _FilterState, labels: Mapping[str, str]) -> Status | None:
    missing = None
    for term in s.affinity:
        value = labels.get(term.topology_key)
        if value is None:
            return _cached(s, ("missing", term.path), explain.missing_status)
        if missing is None and s.affinity_counts.get((term.topology_key, value), 0) <= 0:
            missing = (term, value)
    if missing is None:
        return None
    if not s.affinity_counts and s.self_match:
        return None  # the first pod of a group that has affinity to itself
    term, value = missing
    return _cached(s, ("affinity", term.path, value), explain.affinity_failure)


def _cached(s: _FilterState, key: tuple, build) -> Status:
    status = s.statuses.get(key)
    if status is None:
        status = s.statuses[key] = build(s, *key[1:])
    return status
