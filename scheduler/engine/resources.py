"""Resource accounting as the scheduler does it (framework/types.go, resourcehelper.PodRequests).

cpu is counted in millicores, everything else in whole base units.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scheduler.engine.quantity import milli_value, value

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"

# Requests assumed for a container that names no cpu / memory request (scoring only).
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024


def is_scalar_resource(name: str) -> bool:
    """Extended resources, hugepages and attachable-volume counts (schedutil.IsScalarResourceName)."""
    if name.startswith(("hugepages-", "attachable-volumes-")):
        return True
    return "/" in name and not name.startswith("requests.")


@dataclass(slots=True)
class Resource:
    milli_cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    allowed_pod_number: int = 0
    scalars: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_list(cls, resource_list: dict | None) -> Resource:
        res = cls()
        for name, quantity in (resource_list or {}).items():
            res.set(name, milli_value(quantity) if name == CPU else value(quantity))
        return res

    def get(self, name: str) -> int:
        if name == CPU:
            return self.milli_cpu
        if name == MEMORY:
            return self.memory
        if name == EPHEMERAL_STORAGE:
            return self.ephemeral_storage
        if name == PODS:
            return self.allowed_pod_number
        return self.scalars.get(name, 0)

    def set(self, name: str, amount: int) -> None:
        if name == CPU:
            self.milli_cpu = amount
        elif name == MEMORY:
            self.memory = amount
        elif name == EPHEMERAL_STORAGE:
            self.ephemeral_storage = amount
        elif name == PODS:
            self.allowed_pod_number = amount
        elif is_scalar_resource(name):
            self.scalars[name] = amount

    def names(self) -> list[str]:
        return [CPU, MEMORY, EPHEMERAL_STORAGE, PODS, *self.scalars]

    def add(self, other: Resource, sign: int = 1) -> None:
        self.milli_cpu += sign * other.milli_cpu
        self.memory += sign * other.memory
        self.ephemeral_storage += sign * other.ephemeral_storage
        self.allowed_pod_number += sign * other.allowed_pod_number
        for name, amount in other.scalars.items():
            self.scalars[name] = self.scalars.get(name, 0) + sign * amount

    def maximize(self, other: Resource) -> None:
        self.milli_cpu = max(self.milli_cpu, other.milli_cpu)
        self.memory = max(self.memory, other.memory)
        self.ephemeral_storage = max(self.ephemeral_storage, other.ephemeral_storage)
        self.allowed_pod_number = max(self.allowed_pod_number, other.allowed_pod_number)
        for name, amount in other.scalars.items():
            self.scalars[name] = max(self.scalars.get(name, 0), amount)

    def copy(self) -> Resource:
        return Resource(
            self.milli_cpu, self.memory, self.ephemeral_storage, self.allowed_pod_number, dict(self.scalars)
        )

    def is_zero(self) -> bool:
        return not (self.milli_cpu or self.memory or self.ephemeral_storage or any(self.scalars.values()))


def _container_requests(container: dict, non_zero: bool) -> Resource:
    requests = (container.get("resources") or {}).get("requests") or {}
    res = Resource.from_list(requests)
    if non_zero:
        if CPU not in requests:
            res.milli_cpu = DEFAULT_MILLI_CPU_REQUEST
        if MEMORY not in requests:
            res.memory = DEFAULT_MEMORY_REQUEST
    return res


def pod_requests(pod: dict, non_zero: bool = False) -> Resource:
    """The pod's effective request: containers summed, sidecars added, init containers maxed, overhead.

    With `non_zero`, a container naming no cpu (memory) request counts 100m (200Mi), as the
    scheduler's scoring does; an explicit "0" stays 0.
    """
    spec = pod.get("spec") or {}
    total = Resource()
    for container in spec.get("containers") or []:
        total.add(_container_requests(container, non_zero))
    sidecars = Resource()
    init_peak = Resource()
    for container in spec.get("initContainers") or []:
        requests = _container_requests(container, non_zero)
        if container.get("restartPolicy") == "Always":
            total.add(requests)
            sidecars.add(requests)
            needed = sidecars.copy()
        else:
            needed = requests
            needed.add(sidecars)
        init_peak.maximize(needed)
    total.maximize(init_peak)
    overhead = spec.get("overhead")
    if overhead:
        total.add(Resource.from_list(overhead))
    return total
