"""Each running container's usage at a moment of the simulated clock, and each node's: the figures
metrics-server would have scraped from the kubelets (docs/metrics.md).

Pure: it reads the pods, Services, Endpoints and Nodes it is given (from the database for the
metrics API, from the informer for the HPA controller), so both see the same numbers.

- A container uses its image's idle profile plus what its command does (commands.py).
- A load generator's requests to a Service are spread evenly over the Service's ready endpoints (as
  kube-proxy's random choice averages out); each costs the serving container its profile's
  `cpu_per_rps`. Requests to a port the Service does not serve, or with no ready endpoint, fail
  and cost no server anything.
- metrics-server scrapes every RESOLUTION seconds; a sample averages the WINDOW before it, so a
  container that started inside the window has no metrics yet, and load ramps up over one window.
- CPU is throttled at the container's `limits.cpu` (or the node's allocatable CPU).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime

from cluster.usage.commands import Request, work_of
from cluster.usage.profiles import MI, NODE_SYSTEM_MEMORY, NODE_SYSTEM_MILLICORES, profile_of
from k8s.quantity import milli_value, value

RESOLUTION = 15  # metrics-server's --metric-resolution
WINDOW = 15  # seconds each sample averages
CLIENT_MEMORY = int(1.2 * MI)  # a shell starting wget after wget
CPU_JITTER = 0.04  # ± a fraction: no two samples of a real container are equal
MEMORY_JITTER = 0.005


@dataclass(frozen=True, slots=True)
class ContainerUsage:
    name: str
    millicores: float
    memory: int  # bytes


@dataclass(frozen=True, slots=True)
class PodUsage:
    namespace: str
    name: str
    labels: dict
    containers: tuple[ContainerUsage, ...]


@dataclass(frozen=True, slots=True)
class NodeUsage:
    name: str
    labels: dict
    millicores: float
    memory: int


@dataclass
class Sample:
    """One scrape: its time, and the pods and nodes that have metrics."""

    timestamp: datetime
    pods: dict[tuple[str, str], PodUsage] = field(default_factory=dict)
    nodes: dict[str, NodeUsage] = field(default_factory=dict)


def sample_time(now: datetime) -> datetime:
    """The last scrape at or before `now`."""
    seconds = int(now.timestamp()) // RESOLUTION * RESOLUTION
    return datetime.fromtimestamp(seconds, UTC)


def _parse_time(text: object) -> datetime | None:
    if not isinstance(text, str):
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def _running_since(pod: dict) -> dict[str, datetime]:
    """Each running container's start."""
    started = {}
    for status in (pod.get("status") or {}).get("containerStatuses") or []:
        running = (status.get("state") or {}).get("running")
        when = _parse_time((running or {}).get("startedAt"))
        if when is not None:
            started[status.get("name")] = when
    return started


def _is_running(pod: dict) -> bool:
    return (pod.get("status") or {}).get("phase") == "Running" and bool(
        (pod.get("spec") or {}).get("nodeName")
    )


def _jitter(key: str, bucket: int, spread: float) -> float:
    digest = hashlib.blake2b(f"{key}/{bucket}".encode(), digest_size=2).digest()
    return 1.0 + spread * (int.from_bytes(digest, "big") / 65535.0 * 2.0 - 1.0)


def _ramp(started: datetime, at: datetime) -> float:
    return max(0.0, min(1.0, (at - started).total_seconds() / WINDOW))


class _Network:
    """Where a request goes: Service names and ClusterIPs to their ready endpoints, pod IPs to pods."""

    def __init__(self, pods: list[dict], services: list[dict], endpoints: list[dict]) -> None:
        self.services = {(s["metadata"].get("namespace", ""), s["metadata"]["name"]): s for s in services}
        self.by_ip = {}
        for key, service in self.services.items():
            for ip in (service.get("spec") or {}).get("clusterIPs") or [
                (service.get("spec") or {}).get("clusterIP")
            ]:
                if ip and ip != "None":
                    self.by_ip[ip] = key
        self.endpoints = {(e["metadata"].get("namespace", ""), e["metadata"]["name"]): e for e in endpoints}
        self.pod_ips = {}
        for pod in pods:
            ip = (pod.get("status") or {}).get("podIP")
            if ip and _is_running(pod):
                self.pod_ips[ip] = (pod["metadata"].get("namespace", ""), pod["metadata"]["name"])

    def _service_key(self, host: str, namespace: str) -> tuple[str, str] | None:
        if host in self.by_ip:
            return self.by_ip[host]
        parts = host.removesuffix(".cluster.local").removesuffix(".svc").split(".")
        if len(parts) == 1:
            return (namespace, parts[0])
        if len(parts) == 2:
            return (parts[1], parts[0])
        return None

    def backends(self, request: Request, namespace: str) -> list[tuple[tuple[str, str], object]]:
        """The pods that serve the request, each with the target port (a number or a name)."""
        if request.host in self.pod_ips:
            return [(self.pod_ips[request.host], request.port)]
        key = self._service_key(request.host, namespace)
        service = self.services.get(key) if key else None
        if service is None:
            return []
        port = next(
            (p for p in (service.get("spec") or {}).get("ports") or [] if p.get("port") == request.port), None
        )
        if port is None:
            return []
        target = port.get("targetPort", port.get("port"))
        found = []
        for subset in (self.endpoints.get(key) or {}).get("subsets") or []:
            for address in subset.get("addresses") or []:
                ref = address.get("targetRef") or {}
                if ref.get("kind") == "Pod":
                    found.append(((ref.get("namespace", ""), ref.get("name", "")), target))
        return found


def _serving_container(pod: dict, target: object) -> str | None:
    containers = (pod.get("spec") or {}).get("containers") or []
    for container in containers:
        for port in container.get("ports") or []:
            if target in (port.get("containerPort"), port.get("name")):
                return container.get("name")
    return containers[0].get("name") if containers else None


def _cpu_cap(container: dict, node: dict | None) -> float:
    limit = ((container.get("resources") or {}).get("limits") or {}).get("cpu")
    try:
        if limit is not None:
            return float(milli_value(limit))
        allocatable = ((node or {}).get("status") or {}).get("allocatable") or {}
        return float(milli_value(allocatable.get("cpu", "4")))
    except (ValueError, TypeError, ArithmeticError):
        return 4000.0


def _node_ready(node: dict) -> bool:
    conditions = (node.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def sample(
    pods: list[dict], services: list[dict], endpoints: list[dict], nodes: list[dict], now: datetime
) -> Sample:
    """The scrape at or before `now`: every pod whose containers all ran through its window, and
    every Ready node, with its pods (all of them, new ones too) and what the node itself runs."""
    at = sample_time(now)
    bucket = int(at.timestamp()) // RESOLUTION
    running = [p for p in pods if _is_running(p)]
    by_key = {(p["metadata"].get("namespace", ""), p["metadata"]["name"]): p for p in running}
    network = _Network(running, services, endpoints)
    served: dict[tuple[str, str, str], float] = {}  # (namespace, pod, container) → requests per second
    started_of = {key: _running_since(p) for key, p in by_key.items()}
    for key, pod in by_key.items():
        for container in (pod.get("spec") or {}).get("containers") or []:
            started = started_of[key].get(container.get("name"))
            if started is None or started > at:
                continue
            work = work_of(container)
            for request in work.targets:
                backends = network.backends(request, key[0])
                for backend, target in backends:
                    serving = by_key.get(backend)
                    name = _serving_container(serving, target) if serving else None
                    if name is not None:
                        share = work.requests_per_second * _ramp(started, at) / len(backends)
                        served[(*backend, name)] = served.get((*backend, name), 0.0) + share
    nodes_by_name = {n["metadata"]["name"]: n for n in nodes}
    result = Sample(at)
    node_totals: dict[str, list[float]] = {}
    for key, pod in by_key.items():
        node_name = pod["spec"]["nodeName"]
        uid = pod["metadata"].get("uid", "")
        usages, complete = [], True
        for container in (pod.get("spec") or {}).get("containers") or []:
            name = container.get("name")
            started = started_of[key].get(name)
            if started is None or started > at:
                complete = False
                continue
            profile = profile_of(str(container.get("image", "")))
            work = work_of(container)
            rps = served.get((*key, name), 0.0)
            millicores = (profile.idle_millicores + work.millicores * _ramp(started, at)) * _jitter(
                f"{uid}/{name}", bucket, CPU_JITTER
            ) + rps * profile.cpu_per_rps
            millicores = min(millicores, _cpu_cap(container, nodes_by_name.get(node_name)))
            memory = profile.idle_memory + int(rps * profile.memory_per_rps)
            if work.targets:
                memory += CLIENT_MEMORY
            memory = int(memory * _jitter(f"{uid}/{name}/memory", bucket, MEMORY_JITTER))
            totals = node_totals.setdefault(node_name, [0.0, 0])
            totals[0] += millicores
            totals[1] += memory
            if (at - started).total_seconds() < WINDOW:
                complete = False  # one scrape of it so far: metrics-server has no rate yet
            usages.append(ContainerUsage(name, millicores, memory))
        if complete and usages:
            labels = dict(pod["metadata"].get("labels") or {})
            result.pods[key] = PodUsage(key[0], key[1], labels, tuple(usages))
    for name, node in nodes_by_name.items():
        if not _node_ready(node):
            continue  # metrics-server cannot scrape a kubelet that does not answer
        cpu, memory = node_totals.get(name, [0.0, 0])
        system_cpu = NODE_SYSTEM_MILLICORES * _jitter(name, bucket, CPU_JITTER)
        result.nodes[name] = NodeUsage(
            name,
            dict(node["metadata"].get("labels") or {}),
            cpu + system_cpu,
            int(memory + NODE_SYSTEM_MEMORY),
        )
    return result


def memory_capacity(node: dict) -> int:
    """The node's allocatable memory in bytes (the page's bar beside its usage)."""
    try:
        return int(value(((node.get("status") or {}).get("allocatable") or {}).get("memory", "0")))
    except (ValueError, TypeError, ArithmeticError):
        return 0
