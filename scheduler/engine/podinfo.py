"""PodInfo: what the scheduler needs of a Pod, computed once when the pod enters the snapshot."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from scheduler.engine.resources import Resource, shared_pod_requests


def normalize_image(image: str) -> str:
    """ImageLocality's normalization: append `:latest` when the last path segment has no tag or digest."""
    if "@" in image:
        return image
    if ":" not in image.rsplit("/", 1)[-1]:
        return image + ":latest"
    return image


@dataclass(slots=True)
class HostPort:
    ip: str
    protocol: str
    port: int


@dataclass(slots=True, eq=False)
class PodInfo:
    pod: dict
    namespace: str
    name: str
    uid: str
    labels: dict[str, str]
    node_name: str
    scheduler_name: str
    priority: int
    requests: Resource
    non_zero_cpu: int
    non_zero_memory: int
    # Tuples, not lists: an empty tuple is shared and a tuple of strings is not scanned by the
    # garbage collector, which matters once thousands of pods and decisions are kept.
    host_ports: tuple[HostPort, ...]
    images: tuple[str, ...]
    affinity: dict
    tolerations: tuple[dict, ...]
    node_selector: dict[str, str]
    spread_constraints: tuple[dict, ...]
    volumes: tuple[dict, ...]
    extra: dict = field(default_factory=dict)  # per-plugin precomputed facts, filled lazily

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def pod_affinity(self) -> dict:
        return self.affinity.get("podAffinity") or {}

    @property
    def pod_anti_affinity(self) -> dict:
        return self.affinity.get("podAntiAffinity") or {}

    @property
    def has_required_anti_affinity(self) -> bool:
        return bool(self.pod_anti_affinity.get("requiredDuringSchedulingIgnoredDuringExecution"))

    @property
    def has_any_pod_affinity(self) -> bool:
        return bool(self.pod_affinity or self.pod_anti_affinity)

    def bound_to(self, node_name: str) -> PodInfo:
        """This pod as bound to `node_name`, without recomputing anything.

        The two share `extra`: its facts come from the pod's spec and labels, which binding does not change.
        """
        pod = {**self.pod, "spec": {**(self.pod.get("spec") or {}), "nodeName": node_name}}
        return replace(self, pod=pod, node_name=node_name)

    @classmethod
    def of(cls, pod: dict) -> PodInfo:
        meta = pod.get("metadata") or {}
        spec = pod.get("spec") or {}
        requests, non_zero = shared_pod_requests(pod)  # shared objects: nothing changes them
        ports: list[HostPort] = []
        images: list[str] = []
        for container in [*(spec.get("initContainers") or []), *(spec.get("containers") or [])]:
            if container.get("image"):
                images.append(normalize_image(container["image"]))
        # Sidecars (restartable init containers) hold their host ports for the pod's lifetime too.
        sidecars = [c for c in spec.get("initContainers") or [] if c.get("restartPolicy") == "Always"]
        for container in [*sidecars, *(spec.get("containers") or [])]:
            for port in container.get("ports") or []:
                if int(port.get("hostPort") or 0) > 0:
                    ports.append(
                        HostPort(
                            port.get("hostIP") or "0.0.0.0",
                            port.get("protocol") or "TCP",
                            int(port["hostPort"]),
                        )
                    )
        return cls(
            pod=pod,
            namespace=meta.get("namespace") or "default",
            name=meta.get("name") or "",
            uid=meta.get("uid") or "",
            labels=dict(meta.get("labels") or {}),
            node_name=spec.get("nodeName") or "",
            scheduler_name=spec.get("schedulerName") or "default-scheduler",
            priority=int(spec.get("priority") or 0),
            requests=requests,
            non_zero_cpu=non_zero.milli_cpu,
            non_zero_memory=non_zero.memory,
            host_ports=tuple(ports),
            images=tuple(images),
            affinity=spec.get("affinity") or {},
            tolerations=tuple(spec.get("tolerations") or ()),
            node_selector=dict(spec.get("nodeSelector") or {}),
            spread_constraints=tuple(spec.get("topologySpreadConstraints") or ()),
            volumes=tuple(spec.get("volumes") or ()),
        )
