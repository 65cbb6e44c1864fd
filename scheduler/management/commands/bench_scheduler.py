"""`manage.py bench_scheduler --nodes N --pods P`: pods/s and per-pod latency of the engine."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from scheduler.bench import run


class Command(BaseCommand):
    help = "Place P generated pods one after another onto N generated nodes and report the speed."
    requires_system_checks: list = []
    requires_migrations_checks = False

    def add_arguments(self, parser):
        parser.add_argument("--nodes", type=int, default=100)
        parser.add_argument("--pods", type=int, default=1000)
        parser.add_argument("--seed", type=int, default=1)

    def handle(self, *args, nodes: int, pods: int, seed: int, **options):
        result = run(nodes, pods, seed=seed)
        self.stdout.write(
            f"nodes={result.nodes} pods={result.pods} placed={result.placed} "
            f"time={result.seconds:.2f}s pods/s={result.pods_per_second:.0f} "
            f"p50={result.p50:.2f}ms p99={result.percentile(0.99):.2f}ms "
            f"explanations kept={len(result.decisions)}"
        )
