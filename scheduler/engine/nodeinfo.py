"""NodeInfo: a node plus the aggregate of the pods bound to it, kept up to date incrementally."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from scheduler.engine.podinfo import PodInfo
from scheduler.engine.resources import Resource


@dataclass(slots=True, eq=False)
class NodeInfo:
    node: dict
    name: str
    labels: dict[str, str]
    taints: list[dict]
    unschedulable: bool
    allocatable: Resource
    images: dict[str, int]  # every name of every image in status.images -> sizeBytes
    pods: list[PodInfo] = field(default_factory=list)
    requested: Resource = field(default_factory=Resource)
    non_zero_cpu: int = 0
    non_zero_memory: int = 0
    used_ports: Counter = field(default_factory=Counter)  # (ip, protocol, port) -> pods using it
    pods_with_affinity: list[PodInfo] = field(default_factory=list)
    pods_with_required_anti_affinity: list[PodInfo] = field(default_factory=list)
    generation: int = 0
    # Kept up to date with the pods, so that a plugin reads one tuple per node rather than a chain
    # of attributes. Room left for one more pod: (pods, milli-cpu, memory, ephemeral storage),
    # negative when overcommitted (NodeResourcesFit's filter).
    free: tuple[int, int, int, int] = (0, 0, 0, 0)
    # (allocatable milli-cpu, allocatable memory, non-zero milli-cpu, non-zero memory, requested
    # milli-cpu, requested memory): the default resource scoring's inputs.
    cpu_memory: tuple[int, int, int, int, int, int] = (0, 0, 0, 0, 0, 0)

    def __post_init__(self) -> None:
        self._refresh_totals()

    @classmethod
    def of(cls, node: dict) -> NodeInfo:
        meta = node.get("metadata") or {}
        spec = node.get("spec") or {}
        status = node.get("status") or {}
        images: dict[str, int] = {}
        for image in status.get("images") or []:
            for name in image.get("names") or []:
                images[name] = int(image.get("sizeBytes") or 0)
        return cls(
            node=node,
            name=meta.get("name") or "",
            labels=dict(meta.get("labels") or {}),
            taints=list(spec.get("taints") or []),
            unschedulable=bool(spec.get("unschedulable")),
            allocatable=Resource.from_list(status.get("allocatable") or {}),
            images=images,
        )

    def add_pod(self, pod: PodInfo) -> None:
        self._account(pod, 1)
        self.pods.append(pod)
        self._refresh_totals()
        if pod.has_any_pod_affinity:
            self.pods_with_affinity.append(pod)
        if pod.has_required_anti_affinity:
            self.pods_with_required_anti_affinity.append(pod)

    def remove_pod(self, pod: PodInfo) -> bool:
        for index, existing in enumerate(self.pods):
            if existing.key == pod.key:
                self._account(existing, -1)
                del self.pods[index]
                self._refresh_totals()
                self.pods_with_affinity = [p for p in self.pods_with_affinity if p.key != pod.key]
                self.pods_with_required_anti_affinity = [
                    p for p in self.pods_with_required_anti_affinity if p.key != pod.key
                ]
                return True
        return False

    def take_pods_from(self, other: NodeInfo) -> None:
        """Carry the bound pods over when the Node object itself is replaced."""
        for pod in other.pods:
            self.add_pod(pod)

    def _account(self, pod: PodInfo, sign: int) -> None:
        self.requested.add(pod.requests, sign)
        self.non_zero_cpu += sign * pod.non_zero_cpu
        self.non_zero_memory += sign * pod.non_zero_memory
        for port in pod.host_ports:
            self.used_ports[(port.ip, port.protocol, port.port)] += sign
            if self.used_ports[(port.ip, port.protocol, port.port)] <= 0:
                del self.used_ports[(port.ip, port.protocol, port.port)]
        self.generation += 1

    def _refresh_totals(self) -> None:
        alloc, used = self.allocatable, self.requested
        self.free = (
            alloc.allowed_pod_number - len(self.pods),
            alloc.milli_cpu - used.milli_cpu,
            alloc.memory - used.memory,
            alloc.ephemeral_storage - used.ephemeral_storage,
        )
        self.cpu_memory = (
            alloc.milli_cpu,
            alloc.memory,
            self.non_zero_cpu,
            self.non_zero_memory,
            used.milli_cpu,
            used.memory,
        )
