"""NodeUnschedulable: a cordoned node (spec.unschedulable) takes only pods that tolerate it."""

from __future__ import annotations

from collections.abc import Sequence

from scheduler.engine.framework import CycleState, NodesMemo, Plugin, Status, Why, unresolvable
from scheduler.engine.nodeinfo import NodeInfo
from scheduler.engine.podinfo import PodInfo
from scheduler.engine.tolerations import tolerated_by_any

NAME = "NodeUnschedulable"
ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
# Upstream checks the pod's tolerations against this taint (it has no value).
UNSCHEDULABLE_TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}

_CORDONED = Why(
    "{node} is cordoned (spec.unschedulable: true), and none of the pod's spec.tolerations "
    "tolerates node.kubernetes.io/unschedulable:NoSchedule.",
    "节点 {node} 已被封锁（spec.unschedulable: true），而 Pod 的 spec.tolerations 中没有任何一条容忍 "
    "node.kubernetes.io/unschedulable:NoSchedule。",
)


# One shared status: every cordoned node fails for the same reason.
_UNSCHEDULABLE = unresolvable(NAME, ERR_REASON_UNSCHEDULABLE, _CORDONED)


class NodeUnschedulable(Plugin):
    name = NAME
    is_filter = True

    def __init__(self, args: dict | None = None) -> None:
        super().__init__(args)
        self._failures = NodesMemo()

    def filter(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> dict[str, Status]:
        failures = self._failures.get(state, "cordoned", lambda: _cordoned(nodes))
        if not failures or tolerated_by_any(UNSCHEDULABLE_TAINT, pod.tolerations):
            return {}
        return failures


def _cordoned(nodes: Sequence[NodeInfo]) -> dict[str, Status]:
    return dict.fromkeys([node.name for node in nodes if node.unschedulable], _UNSCHEDULABLE)
