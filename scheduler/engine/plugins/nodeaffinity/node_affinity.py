"""NodeAffinity: spec.nodeSelector and required node affinity filter; preferred node affinity scores.

The pod's selectors are parsed once per cycle (PreFilter / PreScore) and kept in the CycleState.
Filter and Score then judge each distinct combination of the label values the selectors read
only once, so 5,000 nodes that share a few label sets cost one dictionary lookup each.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from k8s.labels import SelectorError
from scheduler.engine.framework import (
    MAX_NODE_SCORE,
    Code,
    CycleState,
    NodesMemo,
    Plugin,
    PreFilterResult,
    ScoreColumn,
    SharedValues,
    Status,
    Why,
    skip,
    unresolvable,
)
from scheduler.engine.node_selector import NodeSelector, ParsedTerm, is_empty_term, parse_term
from scheduler.engine.nodeinfo import NodeInfo
from scheduler.engine.plugins.nodeaffinity import why as explain
from scheduler.engine.plugins.nodeaffinity.why import REQUIRED, REQUIRED_PATH
from scheduler.engine.podinfo import PodInfo

NAME = "NodeAffinity"
ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"
PREFERRED_PATH = f"spec.affinity.nodeAffinity.{PREFERRED}"
_PREFILTER, _PRESCORE = "PreFilter" + NAME, "PreScore" + NAME

_ENFORCED = Why(
    f"The scheduler profile adds its own node affinity (NodeAffinityArgs.addedAffinity.{REQUIRED}), "
    "and {node} does not match it.",
    f"调度器配置为所有 Pod 附加了节点亲和性（NodeAffinityArgs.addedAffinity.{REQUIRED}），"
    "节点 {node} 不满足它。",
)
_ENFORCED_FAILURE = unresolvable(NAME, ERR_REASON_ENFORCED, _ENFORCED)  # shared by every cycle
_SKIP_FILTER = Why(
    "The pod has no spec.nodeSelector and no required node affinity, so this filter has nothing to check.",
    "Pod 没有 spec.nodeSelector，也没有必需的节点亲和性，此过滤器无需检查。",
)
_SKIPPED_FILTER = skip(NAME, _SKIP_FILTER)  # shared by every cycle
_SKIP_SCORE = Why(
    f"The pod has no preferred node affinity ({PREFERRED_PATH}), so NodeAffinity does not score it.",
    f"Pod 没有偏好的节点亲和性（{PREFERRED_PATH}），NodeAffinity 不为它打分。",
)
_SKIPPED_SCORE = skip(NAME, _SKIP_SCORE)  # shared by every cycle


@dataclass(frozen=True, slots=True)
class LabelView:
    """What a set of selector terms can see of a node: some label keys, maybe its name.

    Nodes that look the same through this view get the same verdict, so a verdict is computed once
    per distinct view and then found by a dictionary lookup.
    """

    keys: tuple[str, ...]
    uses_name: bool

    @classmethod
    def of(cls, terms: Sequence[dict], extra_keys: Sequence[str] = ()) -> LabelView:
        keys = set(extra_keys)
        uses_name = False
        for term in terms:
            keys.update(expr.get("key", "") for expr in (term or {}).get("matchExpressions") or [])
            uses_name = uses_name or bool((term or {}).get("matchFields"))
        return cls(tuple(sorted(keys)), uses_name)

    def node_keys(self, nodes: Sequence[NodeInfo]) -> list[Any]:
        """Each node's key, one comprehension per shape: up to three labels are spelled out."""
        keys = self.keys
        if self.uses_name:
            return [(node.name, *map(node.labels.get, keys)) for node in nodes]
        if len(keys) == 1:
            (k0,) = keys
            return [node.labels.get(k0) for node in nodes]
        if len(keys) == 2:
            k0, k1 = keys
            return [(labels.get(k0), labels.get(k1)) for labels in [node.labels for node in nodes]]
        if len(keys) == 3:
            k0, k1, k2 = keys
            return [
                (labels.get(k0), labels.get(k1), labels.get(k2)) for labels in [node.labels for node in nodes]
            ]
        return [tuple(map(node.labels.get, keys)) for node in nodes]

    def seen(self, key: Any) -> tuple[dict[str, str], str]:
        """The labels and node name behind a key (absent labels stay absent)."""
        if self.uses_name:
            name, values = key[0], key[1:]
        else:
            name, values = "", ((key,) if len(self.keys) == 1 else key)
        return {k: v for k, v in zip(self.keys, values, strict=True) if v is not None}, name


class _Memo(dict):
    """Verdicts by view key, computed on first sight."""

    def __init__(self, compute: Callable[[Any], Any]) -> None:
        super().__init__()
        self.compute = compute

    def __missing__(self, key: Any) -> Any:
        value = self[key] = self.compute(key)
        return value


@dataclass(slots=True)
class AffinityDetail:
    """One node's score inputs: the matching preferred terms (source, weight) and the column's maximum."""

    hits: tuple[tuple[str, int], ...]
    raw: int
    top: int = 0


def _affinity_detail(hits: tuple[tuple[tuple[str, int], ...], ...], top: int, index: int) -> AffinityDetail:
    return AffinityDetail(hits[index], sum(weight for _, weight in hits[index]), top)


@dataclass(frozen=True, slots=True)
class WeightedTerm:
    weight: int
    term: ParsedTerm
    preference: dict
    source: str  # e.g. "preferred[0]" or "addedAffinity[1]", for the explanation


def parse_preferred(terms: Sequence[dict], path: str, source: str) -> list[WeightedTerm]:
    """nodeaffinity.NewPreferredSchedulingTerms: weight-0 and empty terms are skipped, errors raise."""
    parsed = []
    for index, term in enumerate(terms):
        preference = (term or {}).get("preference") or {}
        weight = int((term or {}).get("weight") or 0)
        if weight == 0 or is_empty_term(preference):
            continue
        try:
            parsed.append(WeightedTerm(weight, parse_term(preference), preference, f"{source}[{index}]"))
        except SelectorError as err:
            raise SelectorError(f"{path}[{index}].preference: {err}") from None
    return parsed


@dataclass(slots=True)
class RequiredAffinity:
    """The pod's required selectors, parsed once per cycle (nodeaffinity.GetRequiredNodeAffinity)."""

    node_selector: tuple[tuple[str, str], ...]
    affinity: NodeSelector | None  # None when the pod has no required node affinity
    affinity_raw: dict
    view: LabelView

    @classmethod
    def of(cls, pod: PodInfo, added_raw: dict | None) -> RequiredAffinity:
        raw = (pod.affinity.get("nodeAffinity") or {}).get(REQUIRED)
        terms = [
            *((raw or {}).get("nodeSelectorTerms") or []),
            *((added_raw or {}).get("nodeSelectorTerms") or []),
        ]
        return cls(
            node_selector=tuple(pod.node_selector.items()),
            affinity=None if raw is None else NodeSelector.parse(raw),
            affinity_raw=raw or {},
            view=LabelView.of(terms, tuple(pod.node_selector)),
        )


class NodeAffinity(Plugin):
    name = NAME
    is_filter = True
    is_score = True

    def __init__(self, args: dict | None = None) -> None:
        """Parse NodeAffinityArgs.addedAffinity; a ValueError names the offending field."""
        super().__init__(args)
        added = self.args.get("addedAffinity") or {}
        if not isinstance(added, dict):
            raise ValueError("addedAffinity: must be a mapping")
        unknown = sorted(set(added) - {REQUIRED, PREFERRED})
        if unknown:
            raise ValueError(f"addedAffinity.{unknown[0]}: unknown field")
        self.added_required_raw: dict | None = added.get(REQUIRED)
        self.added_required: NodeSelector | None = None
        if self.added_required_raw is not None:
            self.added_required = NodeSelector.parse(self.added_required_raw)
            terms = self.added_required_raw.get("nodeSelectorTerms") or []
            for index, error in self.added_required.dropped:
                if not is_empty_term(terms[index]):  # NewNodeSelector skips empty terms silently
                    raise ValueError(f"addedAffinity.{REQUIRED}.nodeSelectorTerms[{index}]: {error}")
        self.added_preferred: list[WeightedTerm] | None = None
        self._failures = NodesMemo()  # by the pod's nodeSelector, when that is all it requires
        self._hits = SharedValues()  # a node's matching preferred terms, for the score details
        if added.get(PREFERRED):
            try:
                path = f"addedAffinity.{PREFERRED}"
                self.added_preferred = parse_preferred(added[PREFERRED], path, "addedAffinity")
            except SelectorError as err:
                raise ValueError(str(err)) from None

    # -- Filter --------------------------------------------------------------------------------
    def pre_filter(
        self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo], snapshot: Any
    ) -> Status | PreFilterResult | None:
        required = (pod.affinity.get("nodeAffinity") or {}).get(REQUIRED)
        has_selector = (pod.pod.get("spec") or {}).get("nodeSelector") is not None
        if required is None and self.added_required is None and not has_selector:
            return _SKIPPED_FILTER
        state[_PREFILTER] = RequiredAffinity.of(pod, self.added_required_raw)
        if required is None:
            return None
        return _node_names_result(required.get("nodeSelectorTerms") or [])

    def filter(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> dict[str, Status]:
        required: RequiredAffinity = state.get(_PREFILTER) or RequiredAffinity.of(
            pod, self.added_required_raw
        )
        if required.affinity is None:
            # Only a nodeSelector (and the profile's added affinity): pods with the same selector
            # get the same verdicts until a node changes.
            return self._failures.get(state, required.node_selector, lambda: self._judge_all(required, nodes))
        return self._judge_all(required, nodes)

    def _judge_all(self, required: RequiredAffinity, nodes: Sequence[NodeInfo]) -> dict[str, Status]:
        view = required.view
        verdicts = _Memo(lambda key: self._judge(required, *view.seen(key)))
        statuses = list(map(verdicts.__getitem__, view.node_keys(nodes)))
        if not any(verdicts.values()):
            return {}
        return {node.name: status for node, status in zip(nodes, statuses, strict=True) if status is not None}

    def _judge(self, required: RequiredAffinity, labels: Mapping[str, str], node_name: str) -> Status | None:
        if self.added_required is not None and not self.added_required.matches(labels, node_name):
            return _ENFORCED_FAILURE
        for key, value in required.node_selector:
            if labels.get(key) != value:
                return _selector_failure(key, value, labels.get(key))
        if required.affinity is not None and not required.affinity.matches(labels, node_name):
            return unresolvable(
                NAME, ERR_REASON_POD, explain.required_why(required.affinity_raw, labels, node_name)
            )
        return None

    # -- Score ---------------------------------------------------------------------------------
    def pre_score(
        self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo], snapshot: Any
    ) -> Status | None:
        raw = (pod.affinity.get("nodeAffinity") or {}).get(PREFERRED)
        if raw is None and self.added_preferred is None:
            return _SKIPPED_SCORE
        added = list(self.added_preferred or [])
        try:
            own = [] if raw is None else parse_preferred(raw, PREFERRED_PATH, "preferred")
        except SelectorError as err:
            # Upstream fails the cycle with this error (the API server rejects such pods anyway).
            state[_PRESCORE] = added
            return Status(Code.ERROR, (str(err),), NAME, Why(str(err), str(err)))
        state[_PRESCORE] = own + added
        return None

    def score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> ScoreColumn:
        if _PRESCORE not in state:
            self.pre_score(state, pod, nodes, None)
        terms: list[WeightedTerm] = state.get(_PRESCORE) or []
        view = LabelView.of([term.preference for term in terms])

        def matching(key: Any) -> tuple[tuple[str, int], ...]:
            labels, node_name = view.seen(key)
            return self._hits.get(
                tuple((t.source, t.weight) for t in terms if t.term.matches(labels, node_name))
            )

        memo = _Memo(matching)
        hits = tuple(map(memo.__getitem__, view.node_keys(nodes)))
        sums = {found: sum(weight for _, weight in found) for found in memo.values()}
        raw = list(map(sums.__getitem__, hits))
        # The hits are shared across cycles, so the kept column of them stays flat (ScoreColumn.lazy).
        return ScoreColumn.lazy(raw, _affinity_detail, hits, max(raw, default=0))

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: list[int]) -> list[int] | None:
        """helper.DefaultNormalizeScore(MaxNodeScore, reverse=False)."""
        top = max(scores, default=0)
        if top == 0:
            return list(scores)
        return [MAX_NODE_SCORE * score // top for score in scores]

    def explain_score(self, detail: Any, raw: int, normalized: int, weight: int) -> Why:
        hits, top = (detail.hits, detail.top) if detail is not None else ((), raw)
        weighted = f"×{weight} = {normalized * weight}"
        if top == 0:
            return Why(
                "No preferred node-affinity term matches any scored node, so every node stays at 0; "
                f"{weighted}.",
                f"没有任何偏好的节点亲和性条件匹配参与打分的节点，所有节点都保持 0 分；{weighted}。",
            )
        formula = f"100·{raw}/{top} = {normalized}"
        if not hits:
            return Why(
                f"No preferred node-affinity term matches {{node}}: raw 0; {formula}; {weighted}.",
                f"没有任何偏好的节点亲和性条件匹配节点 {{node}}：原始分 0；{formula}；{weighted}。",
            )
        weights = "+".join(str(w) for _, w in hits) + (f" = {raw}" if len(hits) > 1 else "")
        sources = ", ".join(source for source, _ in hits)
        return Why(
            f"Matching preferred terms ({sources}) weights {weights}; normalized against the best node "
            f"({top}): {formula}; {weighted}.",
            f"匹配的偏好条件（{sources}）权重 {weights}；按最高分 {top} 归一化：{formula}；{weighted}。",
        )


def _selector_failure(key: str, value: str, label: str | None) -> Status:
    """A nodeSelector mismatch. Pods asking for the same label share the status across cycles, so
    kept decisions hold one status between them rather than one each."""
    try:
        return _shared_selector_failure(key, value, label)
    except TypeError:  # a value that cannot be hashed (explain reads unvalidated files)
        return unresolvable(NAME, ERR_REASON_POD, explain.node_selector_why(key, value, label))


@lru_cache(maxsize=1024)
def _shared_selector_failure(key: str, value: str, label: str | None) -> Status:
    return unresolvable(NAME, ERR_REASON_POD, explain.node_selector_why(key, value, label))


def _node_names_result(terms: Sequence[dict]) -> Status | PreFilterResult | None:
    """If every term names nodes with matchFields metadata.name In, only those nodes can match."""
    names: set[str] | None = None
    for term in terms:
        term_names: set[str] | None = None
        for expr in (term or {}).get("matchFields") or []:
            if expr.get("key") == "metadata.name" and expr.get("operator") == "In":
                values = set(expr.get("values") or [])
                term_names = values if term_names is None else term_names & values
        if term_names is None:
            return None  # this term can match any node, and terms are ORed
        names = term_names if names is None else names | term_names
    if names is None:
        return None
    if not names:
        return unresolvable(
            NAME,
            ERR_REASON_CONFLICT,
            Why(
                f"Every term of the pod's {REQUIRED_PATH} pins metadata.name with matchFields, but the "
                "names within each term contradict each other, so no node can ever match.",
                f"Pod 的 {REQUIRED_PATH} 的每个条件都用 matchFields 限定了 metadata.name，但每个条件内部的"
                "节点名互相矛盾，因此没有任何节点能匹配。",
            ),
        )
    listed = ", ".join(sorted(names))
    return PreFilterResult(
        frozenset(names),
        NAME,
        Why(
            f"The pod's {REQUIRED_PATH} names its nodes (matchFields metadata.name In), so only {listed} "
            "are considered.",
            f"Pod 的 {REQUIRED_PATH} 用 matchFields（metadata.name In）指定了节点，因此只考虑 {listed}。",
        ),
    )
