"""Resource accounting as the scheduler does it (framework/types.go, resourcehelper.PodRequests).

cpu is counted in millicores, everything else in whole base units.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

from k8s.labels import label_key_error
from k8s.quantity import milli_value, parse_quantity, value

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"

# Requests assumed for a container that names no cpu / memory request (scoring only).
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024


@lru_cache(maxsize=1024)
def is_scalar_resource(name: str) -> bool:
    """Extended resources, hugepages and attachable-volume counts (v1helper.IsScalarResourceName)."""
    if name.startswith(("hugepages-", "attachable-volumes-")) or "kubernetes.io/" in name:
        return True
    return is_extended_resource(name)


def is_extended_resource(name: str) -> bool:
    """A domain-prefixed name outside *kubernetes.io/, valid as a quota key (IsExtendedResourceName)."""
    if "/" not in name or "kubernetes.io/" in name or name.startswith("requests."):
        return False
    return label_key_error("requests." + name) is None


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

    def copy(self) -> Resource:
        return Resource(
            self.milli_cpu, self.memory, self.ephemeral_storage, self.allowed_pod_number, dict(self.scalars)
        )


# A container's requests as exact quantities: resourcehelper.PodRequests adds and maxes Quantity
# values and converts to integers only once per pod, so two "0.5m" containers request 1m, not 2m.
Requests = dict[str, Fraction]

_DEFAULT_CPU = Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000)


def _container_requests(container: dict, non_zero: bool) -> Requests:
    requests = (container.get("resources") or {}).get("requests") or {}
    exact = {name: parse_quantity(quantity) for name, quantity in requests.items()}
    if non_zero:
        exact.setdefault(CPU, _DEFAULT_CPU)
        exact.setdefault(MEMORY, Fraction(DEFAULT_MEMORY_REQUEST))
    return exact


def _add(total: Requests, other: Requests) -> None:
    for name, amount in other.items():
        total[name] = total.get(name, 0) + amount


def _maximize(total: Requests, other: Requests) -> None:
    for name, amount in other.items():
        if amount > total.get(name, 0):
            total[name] = amount


def _to_resource(requests: Requests) -> Resource:
    res = Resource()
    for name, amount in requests.items():
        res.set(name, _round_up(amount * 1000) if name == CPU else _round_up(amount))
    return res


def _round_up(amount: Fraction) -> int:
    return -((-amount.numerator) // amount.denominator)


def pod_requests(pod: dict, non_zero: bool = False) -> Resource:
    """The pod's effective request: containers summed, sidecars added, init containers maxed, overhead.

    With `non_zero`, a container naming no cpu (memory) request counts 100m (200Mi), as the
    scheduler's scoring does; an explicit "0" stays 0.
    """
    return shared_pod_requests(pod)[1 if non_zero else 0].copy()


def shared_pod_requests(pod: dict) -> tuple[Resource, Resource]:
    """pod_requests() without and with `non_zero`, as objects shared by every pod that asks for the
    same amounts: the caller must not change them.

    Pods of one template ask for the same amounts, so the exact (fraction) arithmetic runs once per
    distinct set of requests, and thousands of kept pods hold two objects between them.
    """
    spec = pod.get("spec") or {}
    try:
        key = _requests_key(spec)
        cached = _computed.get(key)
    except TypeError:  # an unhashable quantity: compute without remembering
        return _pod_requests(spec, False), _pod_requests(spec, True)
    if cached is None:
        # An invalid quantity raises and is not remembered.
        cached = _pod_requests(spec, False), _pod_requests(spec, True)
        if len(_computed) >= _COMPUTED_LIMIT:
            _computed.clear()
        _computed[key] = cached
    return cached


_computed: dict[tuple, tuple[Resource, Resource]] = {}
_COMPUTED_LIMIT = 4096


def _requests_key(spec: dict) -> tuple:
    """Everything pod_requests reads, as a hashable value.

    Raises TypeError unless every quantity is a str or an int: 1, 1.0 and True are equal keys in
    Python but not the same quantity.
    """

    def requests(container: dict) -> tuple:
        items = tuple(((container.get("resources") or {}).get("requests") or {}).items())
        if any(type(value) not in (str, int) for _, value in items):
            raise TypeError("not a plain quantity")
        return items

    return (
        tuple(requests(c) for c in spec.get("containers") or []),
        tuple((requests(c), c.get("restartPolicy")) for c in spec.get("initContainers") or []),
        requests({"resources": {"requests": spec.get("overhead")}}),
    )


def _pod_requests(spec: dict, non_zero: bool) -> Resource:
    total: Requests = {}
    for container in spec.get("containers") or []:
        _add(total, _container_requests(container, non_zero))
    sidecars: Requests = {}
    init_peak: Requests = {}
    for container in spec.get("initContainers") or []:
        requests = _container_requests(container, non_zero)
        if container.get("restartPolicy") == "Always":
            _add(total, requests)
            _add(sidecars, requests)
            needed = dict(sidecars)
        else:
            needed = requests
            _add(needed, sidecars)
        _maximize(init_peak, needed)
    _maximize(total, init_peak)
    _add(total, {name: parse_quantity(q) for name, q in (spec.get("overhead") or {}).items()})
    return _to_resource(total)
