"""A synthetic cluster and workload that make every scheduler plugin do real work."""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass

from scheduler.engine.cycle import schedule
from scheduler.engine.decision import Decision
from scheduler.engine.profile import default_profile
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


def make_nodes(count: int, rng: random.Random) -> list[dict]:
    nodes = []
    for i in range(count):
        name = f"node-{i:05d}"
        labels = {
            "kubernetes.io/hostname": name,
            "kubernetes.io/os": "linux",
            "topology.kubernetes.io/zone": ZONES[i % len(ZONES)],
            "disktype": "ssd" if rng.random() < 0.5 else "hdd",
            "rack": str(rng.randrange(20)),
        }
        taints = []
        if rng.random() < 0.1:
            taints.append({"key": "dedicated", "value": "gpu", "effect": "NoSchedule"})
            labels["gpu"] = "true"
        if rng.random() < 0.1:
            taints.append({"key": "maintenance", "value": "soon", "effect": "PreferNoSchedule"})
        images = [
            {
                "names": [image, image.split(":")[0] + "@sha256:" + f"{hash(image) & 0xFFFFFFFF:08x}"],
                "sizeBytes": size,
            }
            for image, size in IMAGES.items()
            if rng.random() < 0.3
        ]
        cpu = rng.choice(["4", "8", "16", "32"])
        memory = rng.choice(["8Gi", "16Gi", "32Gi", "64Gi"])
        nodes.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": name, "labels": labels},
                "spec": {"taints": taints, "unschedulable": rng.random() < 0.02},
                "status": {
                    "allocatable": {
                        "cpu": cpu,
                        "memory": memory,
                        "pods": "110",
                        "ephemeral-storage": "100Gi",
                    },
                    "images": images,
                },
            }
        )
    return nodes


def make_pod(index: int, rng: random.Random, node_name: str = "") -> dict:
    app = rng.choice(APPS)
    container = {
        "name": "main",
        "image": rng.choice(list(IMAGES)),
        "resources": {
            "requests": {
                "cpu": f"{rng.choice([100, 250, 500, 1000])}m",
                "memory": f"{rng.choice([128, 256, 512, 1024])}Mi",
            }
        },
    }
    if rng.random() < 0.05:
        container["ports"] = [{"containerPort": 8080, "hostPort": 8000 + rng.randrange(50)}]
    spec: dict = {"containers": [container]}
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
    affinity: dict = {}
    if rng.random() < 0.3:
        zone = rng.choice(ZONES)
        affinity["nodeAffinity"] = {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 10,
                    "preference": {
                        "matchExpressions": [
                            {"key": "topology.kubernetes.io/zone", "operator": "In", "values": [zone]}
                        ]
                    },
                }
            ]
        }
    if rng.random() < 0.15:
        affinity["podAntiAffinity"] = {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 50,
                    "podAffinityTerm": {
                        "labelSelector": {"matchLabels": {"app": app}},
                        "topologyKey": "kubernetes.io/hostname",
                    },
                }
            ]
        }
    if affinity:
        spec["affinity"] = affinity
    if rng.random() < 0.15:
        spec["topologySpreadConstraints"] = [
            {
                "maxSkew": 2,
                "topologyKey": "topology.kubernetes.io/zone",
                "whenUnsatisfiable": rng.choice(["DoNotSchedule", "ScheduleAnyway"]),
                "labelSelector": {"matchLabels": {"app": app}},
            }
        ]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"{app}-{index:06d}",
            "namespace": "default",
            "labels": {"app": app},
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

    @property
    def pods_per_second(self) -> float:
        return self.pods / self.seconds if self.seconds else float("inf")

    def percentile(self, fraction: float) -> float:
        ordered = sorted(self.per_pod_ms)
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]

    @property
    def p50(self) -> float:
        return statistics.median(self.per_pod_ms)


def run(node_count: int, pod_count: int, seed: int = 1, bound_per_node: int = 2) -> BenchResult:
    rng = random.Random(seed)
    nodes = make_nodes(node_count, rng)
    bound = [
        make_pod(-(i + 1), rng, node_name=nodes[i % node_count]["metadata"]["name"])
        for i in range(node_count * bound_per_node)
    ]
    snapshot = Snapshot.from_objects(nodes, bound)
    profile = default_profile()
    pods = [make_pod(i, rng) for i in range(pod_count)]
    decisions: list[Decision] = []
    timings: list[float] = []
    placed = 0
    start = time.perf_counter()
    for pod in pods:
        began = time.perf_counter()
        decision = schedule(pod, snapshot, profile)
        if decision.selected is not None:
            snapshot.add_pod(decision.pod.bound_to(decision.selected))
            placed += 1
        timings.append((time.perf_counter() - began) * 1000)
        decisions.append(decision)  # every node's full explanation is kept
    return BenchResult(node_count, pod_count, placed, time.perf_counter() - start, timings, decisions)
