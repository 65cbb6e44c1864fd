"""Measure what running containers cost the server: 1,000 pods whose containers loop
(`while true; do echo tick; sleep 1; done`), against the same server idle.

python manage.py bench_runtime [--pods 1000] [--seconds 60]

It starts its own embedded server (`manage.py serve`, a throwaway SQLite database, pace 0) with a
cluster of 10 nodes, measures it idle (CPU share of one core, memory, p50/p99 of a pod GET sent
every 50 ms), creates a ReplicationController of N such pods, waits until all are Running and
`--settle` seconds more, then measures the same for `--seconds` while every container prints a line
a second. The start leaves work behind it (the scheduler writes its 1,000 explanations and the
kubelets their Events in the control plane's lulls): `--settle 30` measures the looping alone. Targets (the
containers' doing): under 20% of a core, and request p99 under twice idle's.
"""

from __future__ import annotations

import json
import statistics
import time
import urllib.error
import urllib.request

from django.core.management.base import BaseCommand, CommandError

from bench.management.commands.bench_fanout import _rss_kib, teacher_token
from bench.server import ThrowawayServer, cpu_seconds
from bench.stats import percentile

CLUSTER = "runtime"
NODES = 10
LOOP = "while true; do echo tick; sleep 1; done"


def _setup(pods: int) -> str:
    """The cluster: NODES nodes with room for the pods, and a quota that lets them be."""
    room = -(-pods // NODES) + 10
    return f"""
from cluster.controlplane.demo import create_cluster, node_body
nodes = [node_body(f"node{{i}}", i, {{}}, ("busybox:1.36",)) for i in range(1, {NODES + 1})]
for node in nodes:
    node["status"]["capacity"]["pods"] = node["status"]["allocatable"]["pods"] = "{room}"
create_cluster({CLUSTER!r}, nodes, quota={{"pods": {pods + 10}, "objects": {pods + 100}}})
"""


class Command(BaseCommand):
    help = "The server's CPU, memory and request p99 with N pods whose containers loop, against idle."

    def add_arguments(self, parser):
        parser.add_argument("--pods", type=int, default=1000)
        parser.add_argument("--seconds", type=int, default=60)
        parser.add_argument("--idle-seconds", type=int, default=15)
        parser.add_argument("--settle", type=float, default=2.0, help="seconds after the last start")

    def handle(self, *args, pods: int, seconds: int, idle_seconds: int, settle: float, **options):
        setup = _setup(pods)
        with ThrowawayServer("kubesim-runtime-", setup=setup, ready=f"/clusters/{CLUSTER}/version") as server:
            self.base = f"{server.url}/clusters/{CLUSTER}/api/v1/namespaces/default"
            self.token = teacher_token()
            pid = server.process.pid
            self._post("pods", _probe_pod())
            self._wait(lambda: self._running("probe"), 60, "the probe pod")
            idle = self._measure(pid, idle_seconds)
            started = time.perf_counter()
            self._post("replicationcontrollers", _looping_rc(pods))
            self._wait(lambda: self._running_count() >= pods, 900, f"{pods} pods running")
            took = time.perf_counter() - started
            self.stdout.write(f"{pods} looping pods Running after {took:.1f} s; measuring {settle:g} s later")
            time.sleep(settle)  # the last starts' writes settle
            busy = self._measure(pid, seconds)
            ticks = self._ticks()
        self.stdout.write(self._line("idle", idle))
        self.stdout.write(self._line(f"{pods} pods looping", busy))
        self.stdout.write(f"one pod's log after the run: {ticks} lines")
        share = busy["cpu"] / busy["seconds"]
        added = share - idle["cpu"] / idle["seconds"]
        ratio = busy["p99"] / idle["p99"] if idle["p99"] else float("inf")
        verdict = "met" if share < 0.20 and ratio < 2 else "NOT met"
        self.stdout.write(
            f"target (<20% of a core, p99 < 2x idle): {verdict}: {share * 100:.1f}% of a core in all "
            f"({added * 100:.1f}% more than idle, which includes the measuring GETs), p99 {ratio:.2f}x idle"
        )

    # -- measuring ---------------------------------------------------------------------------------
    def _measure(self, pid: int, seconds: int) -> dict:
        cpu, began = cpu_seconds(pid), time.perf_counter()
        latencies = []
        while time.perf_counter() - began < seconds:
            sent = time.perf_counter()
            self._get("pods/probe")
            latencies.append((time.perf_counter() - sent) * 1000)
            time.sleep(max(0.0, 0.05 - (time.perf_counter() - sent)))
        elapsed = time.perf_counter() - began
        return {
            "seconds": elapsed,
            "cpu": cpu_seconds(pid) - cpu,
            "rss": _rss_kib(pid) / 1024,
            "p50": statistics.median(latencies),
            "p99": percentile(latencies, 0.99),
            "n": len(latencies),
        }

    @staticmethod
    def _line(what: str, m: dict) -> str:
        return (
            f"{what}: CPU {m['cpu'] / m['seconds'] * 100:.1f}% of a core over {m['seconds']:.0f} s; "
            f"RSS {m['rss']:.0f} MiB; pod GET n={m['n']} p50={m['p50']:.1f} ms p99={m['p99']:.1f} ms"
        )

    # -- the API -----------------------------------------------------------------------------------
    def _call(self, path: str, method: str = "GET", body: dict | None = None) -> bytes:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"{self.base}/{path}", data=data, method=method)
        request.add_header("Content-Type", "application/json")
        request.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.read()
        except urllib.error.HTTPError as error:
            raise CommandError(f"{method} {path}: {error.code} {error.read()[:300]!r}") from None

    def _get(self, path: str) -> dict:
        return json.loads(self._call(path))

    def _post(self, path: str, body: dict) -> dict:
        return json.loads(self._call(path, "POST", body))

    def _running(self, name: str) -> bool:
        return (self._get(f"pods/{name}").get("status") or {}).get("phase") == "Running"

    def _running_count(self) -> int:
        found = self._get("pods?fieldSelector=status.phase%3DRunning&labelSelector=app%3Dticker")
        return len(found.get("items") or [])

    def _ticks(self) -> int:
        pods = self._get("pods?labelSelector=app%3Dticker&limit=1").get("items") or []
        if not pods:
            return 0
        return self._call(f"pods/{pods[0]['metadata']['name']}/log").decode().count("tick")

    @staticmethod
    def _wait(done, seconds: float, what: str) -> None:
        deadline = time.monotonic() + seconds
        while not done():
            if time.monotonic() > deadline:
                raise CommandError(f"timed out waiting for {what}")
            time.sleep(2)


def _probe_pod() -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "probe"},
        "spec": {"containers": [{"name": "web", "image": "nginx:1.15"}]},
    }


def _looping_rc(replicas: int) -> dict:
    labels = {"app": "ticker"}
    container = {"name": "ticker", "image": "busybox:1.36", "command": ["sh", "-c", LOOP]}
    return {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": "ticker"},
        "spec": {
            "replicas": replicas,
            "selector": labels,
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [container]}},
        },
    }
