"""NodePorts: a hostPort the pod asks for must be free on the node (HostPortInfo.CheckConflict).

An empty hostIP means 0.0.0.0 (every address of the node) and an empty protocol means TCP.
Only nodes whose pods already hold host ports are looked at.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scheduler.engine.framework import CycleState, Plugin, Status, Why, skip, unschedulable
from scheduler.engine.nodeinfo import NodeInfo
from scheduler.engine.podinfo import PodInfo

NAME = "NodePorts"
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"
BIND_ALL = "0.0.0.0"

_SKIP = Why(
    "The pod asks for no host port (no spec.containers[*].ports[*].hostPort), so this filter has nothing "
    "to check.",
    "Pod 没有请求任何主机端口（spec.containers[*].ports[*].hostPort），此过滤器无需检查。",
)


@dataclass(frozen=True, slots=True)
class WantedPort:
    ip: str
    protocol: str
    port: int
    field: str  # e.g. "spec.containers[0].ports[1]"


def wanted_ports(pod: dict) -> list[WantedPort]:
    """The pod's host ports: regular containers and, since v1.33.x (#132040), sidecar init containers."""
    spec = pod.get("spec") or {}
    sources = [("containers", index, c) for index, c in enumerate(spec.get("containers") or [])]
    sources += [
        ("initContainers", index, c)
        for index, c in enumerate(spec.get("initContainers") or [])
        if c.get("restartPolicy") == "Always"  # a restartable init container keeps running
    ]
    wanted = []
    for kind, index, container in sources:
        for port_index, port in enumerate(container.get("ports") or []):
            host_port = int(port.get("hostPort") or 0)
            if host_port <= 0:
                continue
            wanted.append(
                WantedPort(
                    port.get("hostIP") or BIND_ALL,
                    port.get("protocol") or "TCP",
                    host_port,
                    f"spec.{kind}[{index}].ports[{port_index}]",
                )
            )
    return wanted


def conflicting_use(used: Counter, ip: str, protocol: str, port: int) -> tuple[str, str, int] | None:
    """The (ip, protocol, port) already in use that blocks this one, or None."""
    if ip == BIND_ALL:  # binding every address collides with any address using (protocol, port)
        for key in used:
            if key[1] == protocol and key[2] == port:
                return key
        return None
    for key in ((BIND_ALL, protocol, port), (ip, protocol, port)):
        if key in used:
            return key
    return None


def _holder(node: NodeInfo, key: tuple[str, str, int]) -> str:
    for pod in node.pods:
        if any((p.ip, p.protocol, p.port) == key for p in pod.host_ports):
            return pod.key
    return "?"


def _conflict_why(wanted: WantedPort, key: tuple[str, str, int], holder: str) -> Why:
    mine = f"{wanted.ip}:{wanted.port}/{wanted.protocol}"
    theirs = f"{key[0]}:{key[2]}/{key[1]}"
    note_en = note_zh = ""
    if BIND_ALL in (wanted.ip, key[0]) and wanted.ip != key[0]:
        note_en = " (0.0.0.0, the default for an empty hostIP, means every address of the node)"
        note_zh = "（0.0.0.0 是 hostIP 为空时的默认值，表示节点的所有地址）"
    return Why(
        f"The pod's {wanted.field} asks for hostPort {mine}, but pod {holder} on this node already "
        f"holds {theirs}{note_en}.",
        f"Pod 的 {wanted.field} 请求主机端口 {mine}，但该节点上的 Pod {holder} 已占用 {theirs}{note_zh}。",
    )


class NodePorts(Plugin):
    name = NAME
    is_filter = True

    def pre_filter(
        self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo], snapshot: Any
    ) -> Status | None:
        wanted = wanted_ports(pod.pod)
        if not wanted:
            return skip(NAME, _SKIP)
        state[NAME] = wanted
        return None

    def filter(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> dict[str, Status]:
        wanted: list[WantedPort] = state[NAME] if NAME in state else wanted_ports(pod.pod)
        failures: dict[str, Status] = {}
        for node in nodes:
            used = node.used_ports
            if not used:
                continue
            for port in wanted:
                key = conflicting_use(used, port.ip, port.protocol, port.port)
                if key is not None:
                    why = _conflict_why(port, key, _holder(node, key))
                    failures[node.name] = unschedulable(NAME, ERR_REASON, why)
                    break
        return failures
