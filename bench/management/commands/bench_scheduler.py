"""`manage.py bench_scheduler --nodes N --pods P`: pods/s and per-pod latency of the engine."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from bench.scheduling import run


class Command(BaseCommand):
    help = "Place P generated pods one after another onto N generated nodes and report the speed."
    requires_system_checks: list = []
    requires_migrations_checks = False

    def add_arguments(self, parser):
        parser.add_argument("--nodes", type=int, default=100)
        parser.add_argument("--pods", type=int, default=1000)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument(
            "--gc",
            choices=["long-running", "default"],
            default="long-running",
            help="garbage-collector settings while timing: kubesim.gc_tuning's, for the long-running "
            "serve and controlplane (the default), or CPython's defaults",
        )
        parser.add_argument(
            "--preemption",
            action="store_true",
            help="fill the nodes with priority-0 pods and make one pod in ten a priority-1000 pod that "
            "fits nowhere without preempting (its time includes the retry that binds it)",
        )
        parser.add_argument(
            "--per-plugin",
            action="store_true",
            help="also print each plugin's share of the time (the timing wrappers slow the run down)",
        )

    def handle(
        self, *args, nodes: int, pods: int, seed: int, per_plugin: bool, gc: str, preemption: bool, **options
    ):
        result = run(
            nodes,
            pods,
            seed=seed,
            per_plugin=per_plugin,
            gc_tuned=gc == "long-running",
            preemption=preemption,
        )
        per_cpu_second = result.pods / (result.cpu_seconds or 1e-9)
        self.stdout.write(
            f"nodes={result.nodes} pods={result.pods} placed={result.placed} "
            f"time={result.seconds:.2f}s pods/s={result.pods_per_second:.0f} "
            f"p50={result.p50:.2f}ms p99={result.percentile(0.99):.2f}ms "
            f"explanations kept={len(result.decisions)} "
            f"(cpu={result.cpu_seconds:.2f}s: {per_cpu_second:.0f} pods per cpu-second)"
        )
        if preemption:
            times = sorted(result.preempting_ms)
            if times:
                median = times[len(times) // 2]
                self.stdout.write(
                    f"preempted: {len(times)} pods nominated, victims evicted and bound; per preemptor "
                    f"p50={median:.2f}ms max={times[-1]:.2f}ms"
                )
            else:
                self.stdout.write("preempted: no pod found victims")
        if gc == "long-running":
            note = "kubesim.gc_tuning, for serve and controlplane; --gc default for CPython's defaults"
        else:
            note = "CPython's defaults"
        self.stdout.write(f"{result.gc_settings} ({note})")
        if result.decisions:
            self.stdout.write(
                f"one decision rendered in full: {result.nodes} nodes in {result.render_ms:.1f}ms"
            )
        if per_plugin:
            total = sum(result.plugin_seconds.values()) or 1.0
            cpu = result.cpu_seconds
            self.stdout.write(f"plugin CPU time (of {cpu:.2f}s; the rest is the cycle itself):")
            for name, seconds in sorted(result.plugin_seconds.items(), key=lambda item: -item[1]):
                self.stdout.write(f"  {name:<34} {seconds:7.2f}s {100 * seconds / total:5.1f}%")
