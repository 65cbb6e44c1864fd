"""Measure the API server's CPU per write, one thread, no control plane: a pod's create (a user's,
with its trace's first steps), its binding (in one batch transaction, as the scheduler binds) and
its status (as its kubelet reports it).

A burst's wall time follows the machine's speed and every thread of the process; this thread's
CPU time per write follows the code, so two versions can be compared within minutes.
"""

from __future__ import annotations

import secrets
import time

from django.core.management.base import BaseCommand
from django.db import transaction

from bench.server import nginx_pod
from bench.stats import percentile, speed_line, yardstick
from cluster.apiserver import service as api
from cluster.apiserver.actor import Actor
from cluster.controlplane.demo import create_many
from cluster.kubelet.flowsteps import KUBELET
from cluster.models import ApiObject, Cluster
from database.sqlite import memo
from database.throwaway_db import migrated_or_throwaway
from scheduler import flowsteps

KUBECTL = Actor("kubectl", "kubesim bench_writes")
SCHEDULER = Actor("scheduler", "default-scheduler", flow=flowsteps.SCHEDULER)


class Command(BaseCommand):
    help = "Benchmark the API server's CPU per create, binding and status write (one thread)."

    def add_arguments(self, parser):
        parser.add_argument("--pods", type=int, default=300)
        parser.add_argument("--nodes", type=int, default=3)
        parser.add_argument("--rounds", type=int, default=3, help="rounds of --pods; the median is printed")

    def handle(self, *args, **options):
        with migrated_or_throwaway(self.stdout):
            return self._handle(**options)

    def _handle(self, *, pods: int, nodes: int, rounds: int, **options):
        before = yardstick()
        figures: dict[str, list[float]] = {"create": [], "bind": [], "status": []}
        running = 0
        for _ in range(rounds):
            cluster = create_many(f"bench-{secrets.token_hex(3)}", nodes, pace_ms=0)
            try:
                for verb, seconds in self._round(cluster, pods).items():
                    figures[verb].append(seconds / pods * 1000)
                running += ApiObject.objects.filter(
                    cluster=cluster, kind="Pod", phase="Running", node_name__gt=""
                ).count()
            finally:
                Cluster.objects.filter(pk=cluster.pk).delete()
        medians = {verb: percentile(values, 0.5) for verb, values in figures.items()}
        self.stdout.write(
            f"CPU per write, median of {rounds} rounds of {pods} pods on {nodes} nodes: "
            f"create {medians['create']:.3f} ms, bind {medians['bind']:.3f} ms, "
            f"status {medians['status']:.3f} ms; pods bound and Running: {running} of {pods * rounds}"
        )
        self.stdout.write(speed_line(before))

    def _round(self, cluster: Cluster, pods: int) -> dict[str, float]:
        names = [node["metadata"]["name"] for node in api.list_objects(cluster, "Node")[0]]
        start = time.thread_time()
        for index in range(pods):
            api.create(cluster, nginx_pod(f"bench-{index}"), KUBECTL)
        created = time.thread_time()
        with memo.batch(), transaction.atomic():
            for index in range(pods):
                api.bind(cluster, "default", f"bench-{index}", names[index % len(names)], SCHEDULER)
        bound = time.thread_time()
        for index in range(pods):
            pod = api.get(cluster, "Pod", "default", f"bench-{index}")
            pod["status"] = {**pod.get("status", {}), "phase": "Running"}
            kubelet = Actor("kubelet", "kubesim bench_writes", node=names[index % len(names)], flow=KUBELET)
            api.update(cluster, pod, kubelet, subresource="status")
        reported = time.thread_time()
        return {"create": created - start, "bind": bound - created, "status": reported - bound}
