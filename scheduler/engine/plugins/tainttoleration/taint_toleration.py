"""TaintToleration: NoSchedule/NoExecute taints must be tolerated; PreferNoSchedule taints lower the score.

Column-wise: only nodes that carry taints are walked, and each distinct taint list is judged
against the pod's tolerations once per cycle, so thousands of nodes sharing a few taint lists
cost a dictionary lookup each (the lists' keys are cached per node until the Node changes).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scheduler.engine.framework import (
    MAX_NODE_SCORE,
    CycleState,
    NodesMemo,
    Plugin,
    ScoreColumn,
    SharedValues,
    Status,
    Why,
    unresolvable,
)
from scheduler.engine.nodeinfo import NodeInfo
from scheduler.engine.podinfo import PodInfo
from scheduler.engine.tolerations import tolerated_by_any

NAME = "TaintToleration"
# v1.33 text (docs/scheduler.md §1); v1.35 shortened it to "node(s) had untolerated taint(s)".
ERR_REASON_UNTOLERATED = "node(s) had untolerated taint {{{key}: {value}}}"
FILTER_EFFECTS = ("NoSchedule", "NoExecute")
PREFER_NO_SCHEDULE = "PreferNoSchedule"
TaintKey = tuple[str, str, str]  # (key, value, effect)
_VERDICTS_KEPT = 4096


def _taint_key(taint: dict) -> TaintKey:
    return (taint.get("key") or "", taint.get("value") or "", taint.get("effect") or "")


def taint_text(key: TaintKey) -> str:
    """kubectl's notation: key=value:Effect, or key:Effect when the value is empty."""
    return f"{key[0]}={key[1]}:{key[2]}" if key[1] else f"{key[0]}:{key[2]}"


def _tolerated(key: TaintKey, tolerations: Sequence[dict]) -> bool:
    return tolerated_by_any({"key": key[0], "value": key[1], "effect": key[2]}, tolerations)


def _untolerated_status(index: int, key: TaintKey, has_tolerations: bool) -> Status:
    reason = ERR_REASON_UNTOLERATED.format(key=key[0], value=key[1])
    text = taint_text(key)
    if has_tolerations:
        why = Why(
            f"{{node}}'s spec.taints[{index}] {text} is not tolerated by any of the pod's spec.tolerations.",
            f"节点 {{node}} 的 spec.taints[{index}] {text} 没有被 Pod 的任何一条 spec.tolerations 容忍。",
        )
    else:
        why = Why(
            f"{{node}}'s spec.taints[{index}] {text} repels pods, and the pod has no spec.tolerations.",
            f"节点 {{node}} 的 spec.taints[{index}] {text} 排斥 Pod，而该 Pod 没有任何 spec.tolerations。",
        )
    return unresolvable(NAME, reason, why)


@dataclass(slots=True)
class PreferDetail:
    """One node's score inputs: its intolerable PreferNoSchedule taints, and the column's maximum."""

    names: tuple[str, ...]
    top: int = 0


def _prefer_detail(names: tuple[tuple[str, ...], ...], top: int, index: int) -> PreferDetail:
    return PreferDetail(names[index], top)


class TaintToleration(Plugin):
    name = NAME
    is_filter = True
    is_score = True

    def __init__(self, args: dict | None = None) -> None:
        super().__init__(args)
        # node name -> (its taints list, their keys); refreshed when the Node object is replaced.
        self._signatures: dict[str, tuple[list, tuple[TaintKey, ...]]] = {}
        # (taint keys, the pod's tolerations) -> verdict: pods of a template share their verdicts,
        # and the shared statuses cost nothing to keep in decisions.
        self._verdicts: dict[tuple, Status | None] = {}
        self._failures = NodesMemo()  # the whole column, by the pod's tolerations
        self._names = SharedValues()  # a node's intolerable PreferNoSchedule taints, for the details

    def _signature(self, node: NodeInfo) -> tuple[TaintKey, ...]:
        entry = self._signatures.get(node.name)
        if entry is None or entry[0] is not node.taints:
            entry = self._signatures[node.name] = (node.taints, tuple(map(_taint_key, node.taints)))
        return entry[1]

    # -- Filter --------------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> dict[str, Status]:
        tolerations = pod.tolerations
        try:
            tolerations_key = tuple(tuple(sorted(t.items())) for t in tolerations)
            hash(tolerations_key)
        except TypeError:  # an unhashable toleration field: judge afresh this cycle
            return self._untolerated(nodes, tolerations, (), {})
        if len(self._verdicts) > _VERDICTS_KEPT:
            self._verdicts.clear()
        return self._failures.get(
            state,
            tolerations_key,
            lambda: self._untolerated(nodes, tolerations, tolerations_key, self._verdicts),
        )

    def _untolerated(
        self, nodes: Sequence[NodeInfo], tolerations: Sequence[dict], tolerations_key: tuple, verdicts: dict
    ) -> dict[str, Status]:
        failures: dict[str, Status] = {}
        for node in [node for node in nodes if node.taints]:
            key = (self._signature(node), tolerations_key)
            if key not in verdicts:
                verdicts[key] = self._first_untolerated(key[0], tolerations)
            status = verdicts[key]
            if status is not None:
                failures[node.name] = status
        return failures

    def _first_untolerated(
        self, signature: tuple[TaintKey, ...], tolerations: Sequence[dict]
    ) -> Status | None:
        """FindMatchingUntoleratedTaint: the first untolerated NoSchedule/NoExecute taint, in list order."""
        for index, key in enumerate(signature):
            if key[2] in FILTER_EFFECTS and not _tolerated(key, tolerations):
                return _untolerated_status(index, key, bool(tolerations))
        return None

    # -- Score ---------------------------------------------------------------------------------
    def pre_score(
        self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo], snapshot: Any
    ) -> Status | None:
        # An empty effect tolerates every effect, so it counts against PreferNoSchedule too.
        state[NAME] = [t for t in pod.tolerations if (t.get("effect") or "") in ("", PREFER_NO_SCHEDULE)]
        return None

    def score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> ScoreColumn:
        if NAME not in state:
            self.pre_score(state, pod, nodes, None)
        tolerations = state[NAME]
        by_signature: dict[tuple[TaintKey, ...], tuple[str, ...]] = {}
        names = [()] * len(nodes)  # each node's intolerable PreferNoSchedule taints
        for index, node in [(index, node) for index, node in enumerate(nodes) if node.taints]:
            signature = self._signature(node)
            found = by_signature.get(signature)
            if found is None:
                found = by_signature[signature] = self._names.get(
                    tuple(
                        taint_text(key)
                        for key in signature
                        if key[2] == PREFER_NO_SCHEDULE and not _tolerated(key, tolerations)
                    )
                )
            names[index] = found
        raw = list(map(len, names))
        # The names are shared across cycles, so the kept column of them stays flat (ScoreColumn.lazy).
        return ScoreColumn.lazy(raw, _prefer_detail, tuple(names), max(raw, default=0))

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: list[int]) -> list[int] | None:
        """helper.DefaultNormalizeScore(MaxNodeScore, reverse=True)."""
        top = max(scores, default=0)
        if top == 0:
            return [MAX_NODE_SCORE] * len(scores)
        return [MAX_NODE_SCORE - MAX_NODE_SCORE * score // top for score in scores]

    def explain_score(self, detail: Any, raw: int, normalized: int, weight: int) -> Why:
        top, names = (detail.top, detail.names) if detail is not None else (raw, ())
        weighted_en = f"; ×{weight} = {normalized * weight}"
        if top == 0:
            return Why(
                "No scored node has a PreferNoSchedule taint the pod does not tolerate, so every node gets "
                f"100{weighted_en}.",
                "没有任何参与打分的节点带有 Pod 不容忍的 PreferNoSchedule 污点，因此每个节点都得 "
                f"100{weighted_en}。",
            )
        listed = f" ({', '.join(names)})" if names else ""
        formula = f"100 − 100·{raw}/{top} = {normalized}"
        return Why(
            f"{raw} intolerable PreferNoSchedule taint(s){listed} in spec.taints, not tolerated by the pod's "
            f"spec.tolerations with effect PreferNoSchedule or empty; normalized against the most on any "
            f"node ({top}): {formula}{weighted_en}.",
            f"spec.taints 中有 {raw} 个 Pod 不容忍的 PreferNoSchedule 污点{listed}（只看 effect 为 "
            f"PreferNoSchedule 或为空的 spec.tolerations）；按所有节点中的最大值 {top} 归一化："
            f"{formula}{weighted_en}。",
        )
