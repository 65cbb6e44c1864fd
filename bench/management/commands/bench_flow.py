"""Measure the flow's speed on a throwaway 100-node cluster at pace 0.

1. create request → last step (13) broadcast by the hub, over N bare pods: p50 and p99;
2. an RC scaled to 1,000 replicas → all of them Running.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time

from channels.db import database_sync_to_async
from django.core.management.base import BaseCommand

from bench.server import nginx_pod, nginx_rc
from bench.stats import percentile, speed_line, yardstick
from cluster.apiserver import service as api
from cluster.apiserver.actor import Actor
from cluster.broadcast.hub import hub_for
from cluster.broadcast.sinks import InboxClient
from cluster.controlplane.demo import create_many
from cluster.controlplane.runtime import ControlPlane
from cluster.models import ApiObject, Cluster
from database.throwaway_db import migrated_or_throwaway
from kubesim.gc_tuning import tune_for_long_running

KUBECTL = Actor("kubectl", "kubesim bench_flow")


class Command(BaseCommand):
    help = "Benchmark create → last step broadcast and an RC of 1,000 replicas on 100 nodes (pace 0)."

    def add_arguments(self, parser):
        parser.add_argument("--nodes", type=int, default=100)
        parser.add_argument("--pods", type=int, default=40, help="bare pods timed one by one")
        parser.add_argument("--replicas", type=int, default=1000)

    def handle(self, *args, **options):
        # A fresh clone has no migrated database: then these run on a throwaway one of their own.
        with migrated_or_throwaway(self.stdout):
            return self._handle(*args, **options)

    def _handle(self, *args, nodes: int, pods: int, replicas: int, **options):
        name = f"bench-{secrets.token_hex(3)}"
        before = yardstick()
        cluster = create_many(name, nodes, pace_ms=0)
        # Measured as `serve` and `controlplane` run: with their long-running GC settings.
        self.stdout.write(tune_for_long_running())
        try:
            asyncio.run(self._run(cluster, pods, replicas))
        finally:
            Cluster.objects.filter(pk=cluster.pk).delete()
        self.stdout.write(speed_line(before))

    async def _run(self, cluster: Cluster, pods: int, replicas: int) -> None:
        plane = ControlPlane(cluster.name)
        await plane.run_until_idle()  # the kubelets register the nodes before timing starts
        plane.start()
        client = InboxClient()
        hub = hub_for(cluster.name)
        await hub.join(client)
        try:
            latencies = await self._latencies(cluster, client, pods)
            p50, p99 = (percentile(latencies, q) * 1000 for q in (0.5, 0.99))
            nodes = len(await self._nodes(cluster))
            self.stdout.write(
                f"create → last step broadcast, {pods} pods on {nodes} nodes: "
                f"p50 {p50:.1f} ms, p99 {p99:.1f} ms"
            )
            seconds, cpu = await self._scale(cluster, replicas)
            self.stdout.write(
                f"RC scaled 1 → {replicas} replicas: all Running after {seconds:.1f} s "
                f"(CPU of this process meanwhile: {cpu:.1f} s)"
            )
        finally:
            hub.leave(client)
            await plane.stop()

    async def _nodes(self, cluster: Cluster) -> list[dict]:
        return (await database_sync_to_async(api.list_objects)(cluster, "Node"))[0]

    async def _latencies(self, cluster: Cluster, client: InboxClient, count: int) -> list[float]:
        latencies = []
        for index in range(count):
            start = time.perf_counter()
            await database_sync_to_async(api.create)(cluster, nginx_pod(f"bench-{index}"), KUBECTL)
            while True:
                message = json.loads((await asyncio.wait_for(client.queue.get(), 30)).text)
                if message.get("type") == "flow.step" and message["step"] == 13:
                    break
            latencies.append(time.perf_counter() - start)
        return latencies

    async def _scale(self, cluster: Cluster, replicas: int) -> float:
        await database_sync_to_async(api.create)(cluster, nginx_rc("scale", 1), KUBECTL)
        await self._wait_running(cluster, 1, 30)
        start, cpu = time.perf_counter(), time.process_time()
        await database_sync_to_async(api.scale)(
            cluster, "ReplicationController", "default", "scale", replicas, KUBECTL
        )
        await self._wait_running(cluster, replicas, 300)
        # On a shared machine the wall time follows the load; the CPU time (every thread of the
        # process) much less so.
        return time.perf_counter() - start, time.process_time() - cpu

    async def _wait_running(self, cluster: Cluster, replicas: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        count = database_sync_to_async(
            lambda: ApiObject.objects.filter(
                cluster=cluster, kind="Pod", phase="Running", name__startswith="scale-"
            ).count()
        )
        while await count() < replicas:
            if time.monotonic() > deadline:
                raise TimeoutError(f"only {await count()} of {replicas} pods Running after {timeout} s")
            await asyncio.sleep(0.1)
