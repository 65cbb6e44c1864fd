"""`python manage.py bench_class --students 60`: a simulated class on the embedded default.

Each student joins (a sandbox with N nodes and its own running control plane), then works through
a generated lab: apply a manifest, then label nodes, one change per step. The figure is the time
from the student's write to the "your progress changed" message on their lab channel, which is
what the lab panel waits for: the write, the nudge, the grader's evaluation and the broadcast.
"""

from __future__ import annotations

import asyncio
import random
import resource
import statistics
import time

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from cluster.apiserver import service as api
from kubesim.throwaway_db import migrated_or_throwaway
from labs import grader, sandbox
from labs.catalog import lab_of, save_definition
from labs.models import ClassSession, LabDefinition, Student
from labs.progress import student_group

LABEL_STEPS = 4
POD = """apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: web, image: nginx:1.15, resources: {requests: {cpu: 100m, memory: 64Mi}}}]
"""


def bench_lab(nodes: int) -> str:
    manifests = "".join(
        f"    ---\n    apiVersion: v1\n    kind: Node\n    metadata: {{name: node{i}}}\n"
        f'    status: {{allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}}}\n'
        for i in range(1, nodes + 1)
    )
    steps = [
        "  - id: apply\n    title: {en: Apply, zh: 应用}\n    instructions: {en: Apply, zh: 应用}\n"
        "    checks: [{type: podPhase, pod: web, phase: Running}]\n"
        "    solution: {commands: []}\n"
    ]
    for i in range(1, LABEL_STEPS + 1):
        steps.append(
            f"  - id: label-{i}\n    title: {{en: Label, zh: 标签}}\n"
            "    instructions: {en: Label, zh: 标签}\n"
            f"    checks: [{{type: nodeLabel, node: node{i}, label: step={i}}}]\n"
            f"    solution: {{commands: ['kubectl label nodes node{i} step={i}']}}\n"
        )
    return (
        "id: bench-class\ntitle: {en: Bench, zh: 基准}\nlevel: beginner\nminutes: 1\n"
        f"cluster:\n  pace: 0\n  manifests: |\n{manifests}steps:\n{''.join(steps)}"
    )


class Command(BaseCommand):
    help = "Simulate a class: p50/p99 from a student's change to their check result, and memory."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--students", type=int, default=60)
        parser.add_argument("--nodes", type=int, default=10)
        parser.add_argument(
            "--warmup", type=float, default=5.0, help="seconds for the kubelets to register before the lesson"
        )

    def handle(self, *args, **options):
        # A fresh clone has no migrated database: then these run on a throwaway one of their own.
        with migrated_or_throwaway(self.stdout):
            return self._handle(*args, **options)

    def _handle(self, *args, students: int, nodes: int, warmup: float, **options) -> None:
        session, lab = self._session(nodes)
        started = time.perf_counter()
        people = [sandbox.join(session, f"student {i}", lab) for i in range(students)]
        joined = time.perf_counter() - started
        self.stdout.write(f"{students} students joined in {joined:.1f} s ({nodes}-node sandboxes)")
        self.write_seconds: list[float] = []
        latencies = asyncio.run(self._class(people, warmup))
        latencies.sort()
        p50 = statistics.median(latencies) * 1000
        p99 = latencies[max(0, int(len(latencies) * 0.99) - 1)] * 1000
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        writes = sorted(self.write_seconds)
        w50, w99 = statistics.median(writes) * 1000, writes[max(0, int(len(writes) * 0.99) - 1)] * 1000
        self.stdout.write(
            f"change committed → check result on the student's channel: n={len(latencies)} p50={p50:.0f} ms "
            f"p99={p99:.0f} ms max={latencies[-1] * 1000:.0f} ms; server peak RSS {rss:.0f} MiB"
        )
        self.stdout.write(
            f"(the writes themselves, queued behind the control planes: p50={w50:.0f} ms p99={w99:.0f} ms)"
        )

    def _session(self, nodes: int):
        teacher, _ = get_user_model().objects.get_or_create(
            username="bench-teacher", defaults={"is_staff": True}
        )
        definition = LabDefinition.objects.filter(slug="bench-class").first() or LabDefinition()
        save_definition(definition, bench_lab(nodes))
        definition.published = True
        definition.save()
        session = ClassSession.objects.create(lab=definition, teacher=teacher)
        return session, lab_of(definition)

    async def _class(self, people: list[Student], warmup: float) -> list[float]:
        from cluster.controlplane import ControlPlane

        planes = [ControlPlane(p.sandbox.name) for p in people]
        for plane in planes:
            plane.start()
        for p in people:
            grader.ensure(p.pk, p.sandbox.name)
        await asyncio.sleep(warmup)
        try:
            results = await asyncio.gather(*(self._student(p) for p in people))
        finally:
            await grader.stop_all()
            for plane in planes:
                await plane.stop()
        return [latency for result in results for latency in result]

    async def _student(self, student: Student) -> list[float]:
        layer = get_channel_layer()
        channel = await layer.new_channel()
        await layer.group_add(student_group(student.pk), channel)
        actor = api.Actor(client="kubectl", detail="bench")
        writes = [lambda: api.apply_manifests(student.sandbox, POD, actor)]
        for i in range(1, LABEL_STEPS + 1):
            writes.append(lambda i=i: _label(student.sandbox, f"node{i}", "step", str(i), actor))
        latencies = []
        await asyncio.sleep(random.uniform(0, 2))  # students do not all press Enter at once
        for write in writes:
            await _drain(layer, channel)  # late news of the previous step is not this change's result
            begin = time.perf_counter()
            await database_sync_to_async(write)()
            committed = time.perf_counter()
            self.write_seconds.append(committed - begin)
            latencies.append(await _until_passed(layer, channel, committed))
            await asyncio.sleep(random.uniform(0.2, 1.0))
        await layer.group_discard(student_group(student.pk), channel)
        return latencies


async def _until_passed(layer, channel: str, begin: float, timeout: float = 30.0) -> float:
    """Time until the student's lab channel reports a change (the step's result)."""
    await asyncio.wait_for(layer.receive(channel), timeout)
    return time.perf_counter() - begin


async def _drain(layer, channel: str) -> None:
    while True:
        try:
            await asyncio.wait_for(layer.receive(channel), 0.02)
        except TimeoutError:
            return


def _label(cluster, node: str, key: str, value: str, actor) -> None:
    body = {"metadata": {"labels": {key: value}}}
    api.patch(cluster, "Node", "", node, body, "application/merge-patch+json", actor)
