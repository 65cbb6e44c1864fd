"""TaintToleration: NoSchedule/NoExecute taints must be tolerated; PreferNoSchedule taints lower the score.

Column-wise: only nodes that carry taints are walked, and each distinct (position, taint) is
judged against the pod's tolerations once per cycle, so thousands of nodes sharing a few taints
cost a dictionary lookup each.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scheduler.engine.framework import (
    MAX_NODE_SCORE,
    CycleState,
    Plugin,
    ScoreColumn,
    Status,
    Why,
    unresolvable,
)
from scheduler.engine.nodeinfo import NodeInfo
from scheduler.engine.podinfo import PodInfo
from scheduler.engine.tolerations import tolerated_by_any

NAME = "TaintToleration"
# v1.33 text (SCHEDULER.md decision); v1.35 shortened it to "node(s) had untolerated taint(s)".
ERR_REASON_UNTOLERATED = "node(s) had untolerated taint {{{key}: {value}}}"
FILTER_EFFECTS = ("NoSchedule", "NoExecute")
PREFER_NO_SCHEDULE = "PreferNoSchedule"


def taint_text(taint: dict) -> str:
    """kubectl's notation: key=value:Effect, or key:Effect when the value is empty."""
    key, value, effect = taint.get("key") or "", taint.get("value") or "", taint.get("effect") or ""
    return f"{key}={value}:{effect}" if value else f"{key}:{effect}"


def _taint_key(taint: dict) -> tuple[str, str, str]:
    return (taint.get("key") or "", taint.get("value") or "", taint.get("effect") or "")


def _untolerated_status(index: int, taint: dict, has_tolerations: bool) -> Status:
    reason = ERR_REASON_UNTOLERATED.format(key=taint.get("key") or "", value=taint.get("value") or "")
    text = taint_text(taint)
    if has_tolerations:
        why = Why(
            f"This node's spec.taints[{index}] {text} is not tolerated by any of the pod's spec.tolerations.",
            f"该节点的 spec.taints[{index}] {text} 没有被 Pod 的任何一条 spec.tolerations 容忍。",
        )
    else:
        why = Why(
            f"This node's spec.taints[{index}] {text} repels pods, and the pod has no spec.tolerations.",
            f"该节点的 spec.taints[{index}] {text} 排斥 Pod，而该 Pod 没有任何 spec.tolerations。",
        )
    return unresolvable(NAME, reason, why)


class TaintToleration(Plugin):
    name = NAME
    is_filter = True
    is_score = True

    # -- Filter --------------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> dict[str, Status]:
        tolerations = pod.tolerations
        # (index, key, value, effect) -> the failure Status, or None when tolerated.
        verdicts: dict[tuple[int, str, str, str], Status | None] = {}
        failures: dict[str, Status] = {}
        for node in nodes:
            if not node.taints:
                continue
            for index, taint in enumerate(node.taints):
                if taint.get("effect") not in FILTER_EFFECTS:
                    continue
                key = (index, *_taint_key(taint))
                if key not in verdicts:
                    tolerated = tolerated_by_any(taint, tolerations)
                    verdicts[key] = (
                        None if tolerated else _untolerated_status(index, taint, bool(tolerations))
                    )
                status = verdicts[key]
                if status is not None:
                    failures[node.name] = status  # upstream reports the first untolerated taint
                    break
        return failures

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
        tolerated: dict[tuple[str, str, str], bool] = {}
        raw = [0] * len(nodes)
        intolerable: dict[int, tuple[str, ...]] = {}
        for position, node in enumerate(nodes):
            if not node.taints:
                continue
            names = []
            for taint in node.taints:
                if taint.get("effect") != PREFER_NO_SCHEDULE:
                    continue
                key = _taint_key(taint)
                if key not in tolerated:
                    tolerated[key] = tolerated_by_any(taint, tolerations)
                if not tolerated[key]:
                    names.append(taint_text(taint))
            if names:
                raw[position] = len(names)
                intolerable[position] = tuple(names)
        top = max(raw, default=0)
        clean = (top, ())
        details = [(top, intolerable[i]) if i in intolerable else clean for i in range(len(nodes))]
        return ScoreColumn(raw=raw, details=details)

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: list[int]) -> list[int] | None:
        """helper.DefaultNormalizeScore(MaxNodeScore, reverse=True)."""
        top = max(scores, default=0)
        if top == 0:
            return [MAX_NODE_SCORE] * len(scores)
        return [MAX_NODE_SCORE - MAX_NODE_SCORE * score // top for score in scores]

    def explain_score(self, detail: Any, raw: int, normalized: int, weight: int) -> Why:
        top, names = detail if detail is not None else (raw, ())
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
