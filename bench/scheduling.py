"""A synthetic cluster and workload that make every scheduler plugin do real work.

Nodes carry varied labels (zone, rack, disk type), taints (NoSchedule and PreferNoSchedule),
images, cordons and bound pods. Pods come from three namespaces and mix nodeSelector, tolerations,
required and preferred node affinity, required and preferred pod (anti-)affinity, topology spread
(zone and hostname), host ports, init containers and GCE persistent disks, so no plugin is always
skipped. The generator is seeded: a run is reproducible.
"""

from __future__ import annotations

import gc
import random
import statistics
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

from kubesim import gc_tuning
from scheduler.engine.cycle import schedule
from scheduler.engine.decision import Decision
from scheduler.engine.profile import Profile, default_profile
from scheduler.engine.snapshot import Snapshot

MiB = 1024 * 1024
IMAGES = {
    "nginx:1.15": 109 * MiB,
    "nginx:1.16": 127 * MiB,
    "redis:7": 117 * MiB,
    "busybox:1.36": 4 * MiB,
    "mysql:8.0": 544 * MiB,
    "httpd:2.4": 148 * MiB,
    "python:3.11": 1010 * MiB,
    "postgres:15": 379 * MiB,
}
ZONES = ["zone-a", "zone-b", "zone-c", "zone-d"]
APPS = ["web", "api", "cache", "db", "batch", "queue"]
NAMESPACES = ["default", "default", "shop", "batch"]
RACKS = 20
RELEASES = 8  # per app: pods of one release avoid each other (required anti-affinity)
DISKS = 40


def make_nodes(count: int, rng: random.Random) -> list[dict]:
    return [_node(i, rng) for i in range(count)]


def _node(i: int, rng: random.Random) -> dict:
    name = f"node-{i:05d}"
    labels = {
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "topology.kubernetes.io/zone": ZONES[i % len(ZONES)],
        "disktype": "ssd" if rng.random() < 0.5 else "hdd",
        "rack": str(rng.randrange(RACKS)),
    }
    taints = []
    if rng.random() < 0.1:
        taints.append({"key": "dedicated", "value": "gpu", "effect": "NoSchedule"})
        labels["gpu"] = "true"
    if rng.random() < 0.1:
        taints.append({"key": "maintenance", "value": "soon", "effect": "PreferNoSchedule"})
    images = [
        {
            "names": [image, f"{image.split(':')[0]}@sha256:{zlib.crc32(image.encode()):08x}"],
            "sizeBytes": size,
        }
        for image, size in IMAGES.items()
        if rng.random() < 0.3
    ]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "spec": {"taints": taints, "unschedulable": rng.random() < 0.02},
        "status": {
            "allocatable": {
                "cpu": rng.choice(["4", "8", "16", "32"]),
                "memory": rng.choice(["8Gi", "16Gi", "32Gi", "64Gi"]),
                "pods": "110",
                "ephemeral-storage": "100Gi",
            },
            "images": images,
        },
    }


def _container(name: str, rng: random.Random) -> dict:
    return {
        "name": name,
        "image": rng.choice(list(IMAGES)),
        "resources": {
            "requests": {
                "cpu": f"{rng.choice([100, 250, 500, 1000])}m",
                "memory": f"{rng.choice([128, 256, 512, 1024])}Mi",
            }
        },
    }


def _term(selector: dict, topology_key: str) -> dict:
    return {"labelSelector": {"matchLabels": selector}, "topologyKey": topology_key}


def _node_affinity(rng: random.Random) -> dict:
    affinity: dict = {}
    if rng.random() < 0.08:
        excluded = sorted({str(rng.randrange(RACKS)) for _ in range(3)})
        affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "rack", "operator": "NotIn", "values": excluded}]}
            ]
        }
    if rng.random() < 0.3:
        zone = {"key": "topology.kubernetes.io/zone", "operator": "In", "values": [rng.choice(ZONES)]}
        affinity["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": 10, "preference": {"matchExpressions": [zone]}}
        ]
    return affinity


def _pod_affinity(app: str, release: str, rng: random.Random) -> dict:
    affinity: dict = {}
    anti: dict = {}
    if rng.random() < 0.05:
        anti["requiredDuringSchedulingIgnoredDuringExecution"] = [
            _term({"release": release}, "kubernetes.io/hostname")
        ]
    if rng.random() < 0.15:
        anti["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": 50, "podAffinityTerm": _term({"app": app}, "kubernetes.io/hostname")}
        ]
    if anti:
        affinity["podAntiAffinity"] = anti
    near: dict = {}
    if rng.random() < 0.03:
        near["requiredDuringSchedulingIgnoredDuringExecution"] = [
            _term({"app": "cache"}, "topology.kubernetes.io/zone")
        ]
    if rng.random() < 0.05:
        near["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": 20, "podAffinityTerm": _term({"app": "cache"}, "topology.kubernetes.io/zone")}
        ]
    if near:
        affinity["podAffinity"] = near
    return affinity


def _spread(app: str, rng: random.Random) -> list[dict]:
    constraints = []
    if rng.random() < 0.15:
        constraints.append(
            {
                "maxSkew": 2,
                "topologyKey": "topology.kubernetes.io/zone",
                "whenUnsatisfiable": rng.choice(["DoNotSchedule", "ScheduleAnyway"]),
                "labelSelector": {"matchLabels": {"app": app}},
            }
        )
    if rng.random() < 0.05:
        constraints.append(
            {
                "maxSkew": 1,
                "topologyKey": "kubernetes.io/hostname",
                "whenUnsatisfiable": "ScheduleAnyway",
                "labelSelector": {"matchLabels": {"app": app}},
            }
        )
    return constraints


def make_pod(index: int, rng: random.Random, node_name: str = "") -> dict:
    app = rng.choice(APPS)
    release = f"{app}-{rng.randrange(RELEASES)}"
    main = _container("main", rng)
    if rng.random() < 0.05:
        main["ports"] = [{"containerPort": 8080, "hostPort": 8000 + rng.randrange(50)}]
    spec: dict = {"containers": [main]}
    if rng.random() < 0.1:
        spec["initContainers"] = [_container("setup", rng)]
    if node_name:
        spec["nodeName"] = node_name
    roll = rng.random()
    if roll < 0.2:
        spec["nodeSelector"] = {"disktype": "ssd"}
    elif roll < 0.3:
        spec["tolerations"] = [
            {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}
        ]
        spec["nodeSelector"] = {"gpu": "true"}
    elif roll < 0.35:
        spec["tolerations"] = [{"key": "maintenance", "operator": "Exists", "effect": "PreferNoSchedule"}]
    affinity = {"nodeAffinity": _node_affinity(rng), **_pod_affinity(app, release, rng)}
    affinity = {kind: value for kind, value in affinity.items() if value}
    if affinity:
        spec["affinity"] = affinity
    if constraints := _spread(app, rng):
        spec["topologySpreadConstraints"] = constraints
    if rng.random() < 0.03:
        disk = {"pdName": f"pd-{rng.randrange(DISKS)}", "readOnly": rng.random() < 0.5}
        spec["volumes"] = [{"name": "data", "gcePersistentDisk": disk}]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"{app}-{index:06d}",
            "namespace": rng.choice(NAMESPACES),
            "labels": {"app": app, "release": release},
            "uid": f"uid-{index}",
        },
        "spec": spec,
    }


@dataclass(slots=True)
class BenchResult:
    nodes: int
    pods: int
    placed: int
    seconds: float
    per_pod_ms: list[float]
    decisions: list[Decision]
    cpu_seconds: float = 0.0  # this process's CPU time: steadier than wall time on a shared machine
    plugin_seconds: dict[str, float] = field(default_factory=dict)
    gc_settings: str = ""  # the garbage collector's settings while timing
    render_ms: float = 0.0  # rendering the last decision in full (Decision.to_json)
    preempting_ms: list[float] = field(default_factory=list)  # each preemptor: both its cycles

    @property
    def pods_per_second(self) -> float:
        return self.pods / self.seconds if self.seconds else float("inf")

    def percentile(self, fraction: float) -> float:
        ordered = sorted(self.per_pod_ms)
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]

    @property
    def p50(self) -> float:
        return statistics.median(self.per_pod_ms)


_EXTENSION_POINTS = ("pre_filter", "filter", "pre_score", "score", "normalize_score")


def _timed(method: Callable, totals: dict[str, float], name: str) -> Callable:
    clock = time.process_time  # CPU time, so other processes on the machine do not count

    def wrapper(*args, **kwargs):
        began = clock()
        try:
            return method(*args, **kwargs)
        finally:
            totals[name] = totals.get(name, 0.0) + clock() - began

    return wrapper


def instrument(profile: Profile, totals: dict[str, float]) -> None:
    """Time every extension point of every plugin into `totals` (plugin name -> CPU seconds)."""
    plugins = {plugin.name: plugin for plugin in profile.filters}
    plugins.update((plugin.name, plugin) for plugin, _ in profile.scorers)
    for name, plugin in plugins.items():
        for point in _EXTENSION_POINTS:
            setattr(plugin, point, _timed(getattr(plugin, point), totals, name))


PREEMPTOR_PRIORITY = 1000
PREEMPTOR_EVERY = 10  # one pod in ten must preempt


FILLER_MILLI_CPU = 2000


def fill_for_preemption(nodes: list[dict], pod_count: int) -> list[dict]:
    """Priority-0 filler pods (2 cpus each) on every node big enough, leaving free_milli_cpu()
    for the ordinary pods: a preemptor asks for more than that, so it fits nowhere unless a
    filler or two (and maybe some ordinary pods) go, and what it frees it takes itself."""
    free = free_milli_cpu(len(nodes), pod_count)
    fillers = []
    for node in nodes:
        name = node["metadata"]["name"]
        left = int(node["status"]["allocatable"]["cpu"]) * 1000 - free
        index = 0
        while left > 0:
            cpu = min(FILLER_MILLI_CPU, left)
            left -= cpu
            index += 1
            container = {
                "name": "fill",
                "image": "busybox:1.36",
                "resources": {"requests": {"cpu": f"{cpu}m"}},
            }
            fillers.append(
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {
                        "name": f"filler-{name}-{index}",
                        "namespace": "batch",
                        "labels": {"app": "filler"},
                    },
                    "spec": {"nodeName": name, "priority": 0, "containers": [container]},
                }
            )
    return fillers


def free_milli_cpu(node_count: int, pod_count: int) -> int:
    """Room left per node for the ordinary pods (about 600m each, 90% of the pods)."""
    return max(2000, -(-pod_count * 9 * 600 // (10 * node_count)))


def make_preemptor(pod: dict, node_count: int, pod_count: int) -> dict:
    """An ordinary generated pod turned into one that must preempt: high priority, and more cpu
    than any node has free."""
    spec = pod["spec"]
    spec["priority"] = PREEMPTOR_PRIORITY
    cpu = f"{free_milli_cpu(node_count, pod_count) + 500}m"
    spec["containers"][0]["resources"]["requests"]["cpu"] = cpu
    spec.pop("initContainers", None)
    return pod


def run(
    node_count: int,
    pod_count: int,
    seed: int = 1,
    bound_per_node: int = 2,
    per_plugin: bool = False,
    gc_tuned: bool = True,
    preemption: bool = False,
) -> BenchResult:
    """Schedule `pod_count` generated pods one after another and keep every decision.

    With `gc_tuned` (the default), the garbage collector is set up as KubeSim's long-running
    processes (serve, controlplane) set it up once started (kubesim.gc_tuning): here once the
    cluster is built, before the pods arrive, so the pods and everything the loop creates,
    decisions included, are collected normally. The process's previous settings are restored
    afterwards.
    """
    rng = random.Random(seed)
    nodes = make_nodes(node_count, rng)
    bound = [
        make_pod(-(i + 1), rng, node_name=nodes[i % node_count]["metadata"]["name"])
        for i in range(node_count * bound_per_node)
    ]
    if preemption:
        bound += fill_for_preemption(nodes, pod_count)
    snapshot = Snapshot.from_objects(nodes, bound)
    profile = default_profile()
    plugin_seconds: dict[str, float] = {}
    if per_plugin:
        instrument(profile, plugin_seconds)
    thresholds = gc.get_threshold()
    gc_settings = gc_tuning.tune_for_long_running() if gc_tuned else gc_tuning.settings()
    try:
        pods = [make_pod(i, rng) for i in range(pod_count)]
        if preemption:
            for index in range(PREEMPTOR_EVERY - 1, pod_count, PREEMPTOR_EVERY):
                pods[index] = make_preemptor(pods[index], node_count, pod_count)
        result = _place(pods, snapshot, profile)
        if result.decisions:
            # The explanations are rendered on demand; measure what one full rendering costs.
            began = time.perf_counter()
            result.decisions[-1].to_json()
            result.render_ms = (time.perf_counter() - began) * 1000
    finally:
        if gc_tuned:
            gc.unfreeze()
            gc.set_threshold(*thresholds)
    result.plugin_seconds, result.gc_settings = plugin_seconds, gc_settings
    return result


def _place(pods: list[dict], snapshot: Snapshot, profile: Profile) -> BenchResult:
    decisions: list[Decision] = []
    timings: list[float] = []
    placed = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    preempting: list[float] = []
    for pod in pods:
        began = time.perf_counter()
        decision = schedule(pod, snapshot, profile)
        nominated = decision.preemption.nominated_node if decision.preemption else None
        if nominated:
            # The victims go; the next attempt finds the nominated node free and takes it.
            decisions.append(decision)
            for victim in decision.preemption.victims:
                snapshot.remove_pod(victim)
            retry = {**pod, "status": {"nominatedNodeName": nominated}}
            decision = schedule(retry, snapshot, profile)
        if decision.selected is not None:
            snapshot.add_pod(decision.pod.bound_to(decision.selected))
            placed += 1
        elapsed = (time.perf_counter() - began) * 1000
        timings.append(elapsed)
        if nominated:
            preempting.append(elapsed)
        decisions.append(decision)  # every node's full explanation is kept
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    result = BenchResult(len(snapshot), len(pods), placed, seconds, timings, decisions, cpu)
    result.preempting_ms = preempting
    return result
