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
_SKIPPED = skip(NAME, _SKIP)  # shared by every cycle


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


def _conflict_status(wanted: WantedPort, key: tuple[str, str, int]) -> Status:
    mine = f"{wanted.ip}:{wanted.port}/{wanted.protocol}"
    theirs = f"{key[0]}:{key[2]}/{key[1]}"
    note_en = note_zh = ""
    if BIND_ALL in (wanted.ip, key[0]) and wanted.ip != key[0]:
        note_en = " (0.0.0.0, the default for an empty hostIP, means every address of the node)"
        note_zh = "（0.0.0.0 是 hostIP 为空时的默认值，表示节点的所有地址）"
    why = Why(
        f"The pod's {wanted.field} asks for hostPort {mine}, but a pod already on {{node}} holds "
        f"{theirs}{note_en}.",
        f"Pod 的 {wanted.field} 请求主机端口 {mine}，但节点 {{node}} 上已有 Pod 占用了 {theirs}{note_zh}。",
    )
    return unschedulable(NAME, ERR_REASON, why)


class NodePorts(Plugin):
    name = NAME
    is_filter = True

    def pre_filter(
        self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo], snapshot: Any
    ) -> Status | None:
        wanted = wanted_ports(pod.pod)
        if not wanted:
            return _SKIPPED
        state[NAME] = wanted
        return None

    def filter(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> dict[str, Status]:
        wanted: list[WantedPort] = state[NAME] if NAME in state else wanted_ports(pod.pod)
        # One shared status per (wanted port, port in use): nodes that collide alike share it.
        statuses: dict[tuple[int, tuple[str, str, int]], Status] = {}
        failures: dict[str, Status] = {}
        for node in nodes:
            used = node.used_ports
            if not used:
                continue
            for index, port in enumerate(wanted):
                key = conflicting_use(used, port.ip, port.protocol, port.port)
                if key is not None:
                    if (index, key) not in statuses:
                        statuses[index, key] = _conflict_status(port, key)
                    failures[node.name] = statuses[index, key]
                    break
        return failures
