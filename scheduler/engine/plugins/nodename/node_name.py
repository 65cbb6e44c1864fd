"""NodeName: a pod that names its node in spec.nodeName fits only that node."""

from __future__ import annotations

from collections.abc import Sequence

from scheduler.engine.framework import CycleState, Plugin, Status, Why, unresolvable
from scheduler.engine.nodeinfo import NodeInfo
from scheduler.engine.podinfo import PodInfo

NAME = "NodeName"
ERR_REASON = "node(s) didn't match the requested node name"


class NodeName(Plugin):
    name = NAME
    is_filter = True

    def filter(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> dict[str, Status]:
        wanted = pod.node_name
        if not wanted:
            return {}
        status = unresolvable(
            NAME,
            ERR_REASON,
            Why(
                f"The pod's spec.nodeName is {wanted!r}, so every other node is rejected.",
                f"Pod 的 spec.nodeName 是 {wanted!r}，因此其他节点一律不合格。",
            ),
        )
        return {node.name: status for node in nodes if node.name != wanted}
