"""`python manage.py bench_class --students 60`: a simulated class against a real server.

The bench starts `manage.py serve` (the embedded default: one process, SQLite, the in-memory
channel layer) on a throwaway database, opens a class session and lets N students join it over
HTTP (`/join/`, as a browser does: each gets a sandbox with its own control plane). Each student
then reaches the server as kubectl does, over HTTP with their sandbox's bearer token, and works
through a generated lab: create a 5-replica ReplicationController (the step checks that it exists),
then label nodes, one change per step, while the lab panel's websocket (`/ws/labs/student/`, same
token) waits for each check result; a last step passes when the RC's 5 pods are Running. A student
starts 0-2 s into the lesson and sends the next write 0.2-1 s after the last result came (`--seed`
makes those the same on every run), or with `--every S` every S seconds whatever the results
(then the offered load does not grow as the checks get faster).

It prints, while all the sandboxes are busy (their control planes creating, scheduling and
starting the pods):
- the students' write latency, p50/p99: the request written → the response's last byte received
  (the kernel's arrival time, as a kubectl of its own would have it; the bench's sixty threads
  share one GIL, so what they saw is printed beside it);
- change → check result: the response received → the lab panel's frame saying the step passed
  (both the kernel's arrival times), p50/p99, over the RC step and the label steps;
- RC created → the last step passed (its 5 pods Running: the sandbox's control plane), p50/p99;
- the server's CPU from the first write to the last step passed (far steadier than latencies),
  and per student write: with `--scaled` it adds the CPU of PostgreSQL's backends serving the
  throwaway database and of Redis (the whole Redis server's), and prints Redis's commands and
  PostgreSQL's transactions and rows read per student write, and the API writes the lesson made;
then, once every student has left (no sockets, no requests), the server's CPU and the database's
writes over an idle window, after the sandboxes had `--park-after` seconds to park.

`--joins-through-proxy` measures joining alone, with the server's own join limits: the class joins
through a trusted proxy (`KUBESIM_TRUSTED_PROXIES=127.0.0.1`, each student's address in its
`X-Forwarded-For`; all should get in within a minute), then the same class from one address no
proxy vouches for (the header ignored: limited per address, as before).

`--scaled --servers M --controlplanes N` runs the same lesson against the scale-out profile
(bench/scaled.py): a throwaway database on `--postgres`, the Redis database `--redis` (flushed
before and after), M `serve --no-control-plane` and N `controlplane` processes; student i joins,
writes and listens through server i mod M, and the CPU, memory and idle figures add up every
process (the control planes elect and share the sandboxes out: nothing parks there; "database
changed" compares the revisions and flow steps).

`--capacity` sizes a machine: it runs the lesson (no idle window) for a class of `--students`,
then `--step` more each time, until the students' writes p99 passes `--p99-ms` (100), and prints
the most students that stayed within it, per core (the embedded default runs in one process:
one core; the scale-out profile counts its processes, at most the machine's cores).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from bench import scaled
from bench.server import cpu_seconds, free_port
from bench.stampedhttp import Connection, Response
from bench.stats import percentile, yardstick
from database.throwaway_db import sqlite_file

LABEL_STEPS = 4
SETTLE_SECONDS = 600.0  # the longest the idle measurement waits for the pods to run
REPLICAS = 5
RC = {
    "apiVersion": "v1",
    "kind": "ReplicationController",
    "metadata": {"name": "web"},
    "spec": {
        "replicas": REPLICAS,
        "selector": {"app": "web"},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {
                "containers": [
                    {
                        "name": "web",
                        "image": "nginx:1.15",
                        "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}},
                    }
                ]
            },
        },
    },
}


def bench_lab(nodes: int) -> str:
    manifests = "".join(
        f"    ---\n    apiVersion: v1\n    kind: Node\n    metadata: {{name: node{i}}}\n"
        f'    status: {{allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}}}\n'
        for i in range(1, nodes + 1)
    )
    steps = [
        "  - id: apply\n    title: {en: Apply, zh: 应用}\n    instructions: {en: Apply, zh: 应用}\n"
        "    checks: [{type: exists, kind: ReplicationController, name: web}]\n"
        "    solution: {commands: []}\n"
    ]
    for i in range(1, label_steps(nodes) + 1):
        steps.append(
            f"  - id: label-{i}\n    title: {{en: Label, zh: 标签}}\n"
            "    instructions: {en: Label, zh: 标签}\n"
            f"    checks: [{{type: nodeLabel, node: node{i}, label: step={i}}}]\n"
            f"    solution: {{commands: ['kubectl label nodes node{i} step={i}']}}\n"
        )
    steps.append(
        "  - id: running\n    title: {en: Running, zh: 运行}\n    instructions: {en: Wait, zh: 等待}\n"
        f"    checks: [{{type: podCount, selector: app=web, phase: Running, count: {REPLICAS}}}]\n"
        "    solution: {commands: []}\n"
    )
    return (
        "id: bench-class\ntitle: {en: Bench, zh: 基准}\nlevel: beginner\nminutes: 1\n"
        f"cluster:\n  pace: 0\n  manifests: |\n{manifests}steps:\n{''.join(steps)}"
    )


def label_steps(nodes: int) -> int:
    """One label step per node, at most LABEL_STEPS (a 1-node sandbox has one label step)."""
    return max(1, min(LABEL_STEPS, nodes))


class Server:
    """`manage.py serve` on the bench's throwaway database (the embedded default)."""

    def __init__(self, database: Path, park_after: float, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.log = open(database.parent / "serve.log", "wb")  # noqa: SIM115 (closed in stop)
        self.env = {
            **{k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")},
            "KUBESIM_SQLITE_PATH": str(database),
            **server_env(park_after),
            **(env or {}),
        }
        manage = [sys.executable, str(Path(settings.BASE_DIR) / "manage.py")]
        self.process = subprocess.Popen(
            [*manage, "serve", "--port", str(self.port)], env=self.env, stdout=self.log, stderr=self.log
        )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                self.stop()
                raise CommandError(f"the server exited; see {self.saved_log}")
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.5).close()
                return
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise CommandError("the server did not start")

    @property
    def ports(self) -> list[int]:
        return [self.port]

    def cpu_seconds(self) -> float:
        return cpu_seconds(self.process.pid)

    def services(self) -> dict:
        """The services' share of the work: none (SQLite and the channel layer are in-process)."""
        return {}

    def rss_mib(self) -> float:
        return _rss_mib(self.process.pid)

    def pods_not_running(self) -> int:
        return _pods_not_running(self.env["KUBESIM_SQLITE_PATH"])

    def db_writes(self) -> tuple[int, int, tuple]:
        return _db_writes(self.env["KUBESIM_SQLITE_PATH"])

    @property
    def saved_log(self) -> Path:
        """Where the server's output is kept after the bench (its folder is removed)."""
        return Path(tempfile.gettempdir()) / "bench-class-serve.log"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        shutil.copy(self.log.name, self.saved_log)


def server_env(park_after: float) -> dict[str, str]:
    """What the bench's servers need on top of the environment: the students' tokens derive from
    this process's secret key, and the whole class joins from 127.0.0.1."""
    return {
        "SECRET_KEY": settings.SECRET_KEY,
        "KUBESIM_JOIN_ATTEMPTS_PER_MINUTE": "100000",
        "KUBESIM_CLASS_JOINS_PER_MINUTE": "100000",
        "KUBESIM_MAX_STUDENTS": "100000",
        "KUBESIM_PARK_AFTER_SECONDS": str(park_after),
    }


class ScaledServer(scaled.Deployment):
    """The scale-out profile (`--scaled`): the same questions as `Server` asks of the one process,
    asked of every process and of PostgreSQL."""

    def __init__(
        self, database_url: str, redis_url: str, servers: int, controlplanes: int, park_after: float
    ):
        super().__init__(database_url, redis_url, servers, controlplanes, server_env(park_after))

    def rss_mib(self) -> float:
        return sum(_rss_mib(pid) for pid in self.pids)

    def services(self) -> dict:
        """What PostgreSQL and Redis spent so far: the CPU seconds of each PostgreSQL backend
        serving the throwaway database (by pid: a backend that exits before the lesson's end is
        not counted; the processes keep their connections), Redis's CPU seconds and its calls per
        command (both the whole Redis server's: another user of it counts too)."""
        import redis

        backends = {}
        for (pid,) in self.query_all(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid != pg_backend_pid()"
        ):
            with contextlib.suppress(OSError):
                backends[f"pg-{pid}"] = cpu_seconds(pid)
        commits, fetched = self.query(
            "SELECT xact_commit + xact_rollback, tup_returned FROM pg_stat_database "
            "WHERE datname = current_database()"
        )
        client = redis.Redis.from_url(self.env["REDIS_URL"])
        info = client.info("cpu")
        calls = {
            name.removeprefix("cmdstat_"): stats["calls"]
            for name, stats in client.info("commandstats").items()
        }
        client.close()
        return {
            **backends,
            "redis": info["used_cpu_user"] + info["used_cpu_sys"],
            "redis_calls": calls,
            "transactions": commits,
            "rows_read": fetched,
        }

    def pods_not_running(self) -> int:
        return self.query("SELECT COUNT(*) FROM cluster_apiobject WHERE kind = 'Pod' AND phase != 'Running'")[
            0
        ]

    def db_writes(self) -> tuple[int, int, tuple]:
        revisions, steps = self.query(
            "SELECT (SELECT COALESCE(SUM(revision), 0) FROM cluster_cluster), "
            "(SELECT COALESCE(MAX(id), 0) FROM cluster_flowstep)"
        )
        return int(revisions), int(steps), (int(revisions), int(steps))


class Student:
    """One student: the browser's connection for joining, a kept-alive one for kubectl's writes
    (timed on the wire: `bench.stampedhttp`) and the lab panel's websocket."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.token = ""  # the sandbox's bearer token, once joined
        self.sandbox, self.sandbox_index = "", 0  # set once joined
        self.http = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.wire: Connection | None = None  # kubectl's writes, timed on the wire
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
        headers = dict(headers or {})
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        try:
            self.http.request(method, path, body=body, headers=headers)
            response = self.http.getresponse()
        except (ConnectionError, http.client.HTTPException):  # a kept-alive connection was closed
            self.http.close()
            self.http.request(method, path, body=body, headers=headers)
            response = self.http.getresponse()
        data = response.read()
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name.strip()] = rest.split(";", 1)[0]
        return response.status, data

    def join(self, code: str, name: str) -> None:
        """As a browser: the join form (its CSRF cookie), then the POST that creates the sandbox."""
        status, data = self.try_join(code, name)
        if status != 302:
            raise CommandError(f"{name} could not join: HTTP {status} {data[:300]!r}")

    def try_join(self, code: str, name: str, headers: dict | None = None) -> tuple[int, bytes]:
        """The join's answer (302 when the sandbox was made), each request with `headers` too."""
        self.request("GET", f"/join/?code={code}", headers=headers)
        form = urllib.parse.urlencode(
            {"code": code, "name": name, "csrfmiddlewaretoken": self.cookies.get("csrftoken", "")}
        ).encode()
        return self.request(
            "POST", "/join/", form, {**(headers or {}), "Content-Type": "application/x-www-form-urlencoded"}
        )

    def write(self, method: str, path: str, body: dict, content_type: str) -> tuple[Response, float]:
        """The response (timed on the wire) and the time this thread saw it take."""
        if self.wire is None:
            self.wire = Connection("127.0.0.1", self.port)
        headers = {"Content-Type": content_type, "Authorization": f"Bearer {self.token}"}
        begin = time.perf_counter()
        response = self.wire.request(method, path, json.dumps(body).encode(), headers)
        seen = time.perf_counter() - begin
        if response.status >= 300:
            raise CommandError(f"{method} {path}: HTTP {response.status} {response.body[:300]!r}")
        return response, seen

    def close(self) -> None:
        self.http.close()
        if self.wire is not None:
            self.wire.close()


class Command(BaseCommand):
    help = (
        "Simulate a class over HTTP against a server the bench starts: students' write latency and "
        "change → check result (p50/p99) while every sandbox is busy, then CPU and database writes "
        "of the idle sandboxes."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--students", type=int, default=60)
        parser.add_argument("--nodes", type=int, default=10)
        parser.add_argument(
            "--warmup", type=float, default=5.0, help="seconds for the kubelets to register before the lesson"
        )
        parser.add_argument(
            "--every",
            type=float,
            default=None,
            help="a student sends a write every EVERY seconds whether or not the last check result "
            "came (the same offered load however fast the checks are); by default a student waits "
            "for each result, then 0.2-1 s",
        )
        parser.add_argument(
            "--seed",
            type=int,
            default=1,
            help="seeds each student's start and pauses (the same lesson on every run, so two runs "
            "differ by the code and the machine only)",
        )
        parser.add_argument(
            "--park-after",
            type=float,
            default=20.0,
            help="the server's KUBESIM_PARK_AFTER_SECONDS (idle sandboxes park after this long)",
        )
        parser.add_argument(
            "--idle-window",
            type=float,
            default=60.0,
            help="seconds over which idle CPU and writes are measured",
        )
        parser.add_argument(
            "--scaled",
            action="store_true",
            help="run the lesson against the scale-out profile (PostgreSQL, Redis, --servers Daphne "
            "processes, --controlplanes control-plane processes) instead of the embedded default; "
            "students are spread over the servers",
        )
        parser.add_argument("--servers", type=int, default=2, help="with --scaled: Daphne processes")
        parser.add_argument(
            "--controlplanes", type=int, default=2, help="with --scaled: control-plane processes"
        )
        parser.add_argument(
            "--postgres",
            default="postgres://postgres@127.0.0.1:5432/postgres",
            help="with --scaled: the PostgreSQL server (a throwaway database is created there and dropped)",
        )
        parser.add_argument(
            "--database-name", default=None, help="with --scaled: the throwaway database's name"
        )
        parser.add_argument(
            "--redis",
            default="redis://127.0.0.1:6379/9",
            help="with --scaled: the Redis database (flushed before and after)",
        )
        parser.add_argument(
            "--joins-through-proxy",
            action="store_true",
            help="measure joining only, with the server's own join limits: the class joins through "
            "a trusted proxy (KUBESIM_TRUSTED_PROXIES=127.0.0.1, each student a distinct "
            "X-Forwarded-For), then the same class from one untrusted address",
        )
        parser.add_argument(
            "--capacity",
            action="store_true",
            help="sizing: run the lesson (no idle window) at --students, then --step more each time, "
            "until the students' writes p99 passes --p99-ms; print the most students that stayed "
            "within it and the students per core (with --scaled, the same against the scale-out "
            "profile)",
        )
        parser.add_argument("--p99-ms", type=float, default=100.0, help="with --capacity: the target")
        parser.add_argument("--step", type=int, default=30, help="with --capacity: students added per run")
        parser.add_argument(
            "--max-students", type=int, default=600, help="with --capacity: the last class size tried"
        )
        parser.add_argument(
            "--idle-after",
            type=float,
            default=None,
            help="seconds after every pod runs before the idle window (default: park-after + 10)",
        )

    def handle(self, *args, students: int, nodes: int, warmup: float, park_after: float, **options):
        if nodes < 1:
            raise CommandError("--nodes must be at least 1")
        idle_after = options["idle_after"] if options["idle_after"] is not None else park_after + 10
        self.every = options["every"]
        self.seed = options["seed"]
        if options["joins_through_proxy"]:
            self._joins(students, nodes)
            return
        if options["capacity"]:
            self._capacity(students, nodes, warmup, park_after, options)
            return
        self._lesson(students, nodes, warmup, park_after, idle_after, options)

    def _capacity(self, students: int, nodes: int, warmup: float, park_after: float, options) -> None:
        """Bigger and bigger classes (no idle window) until the writes' p99 passes the target."""
        target, step = options["p99_ms"], max(1, options["step"])
        options = {**options, "idle_window": 0.0}
        tried: list[tuple[int, float]] = []
        while students <= options["max_students"]:
            self.stdout.write(f"-- capacity: a class of {students}")
            result = self._lesson(students, nodes, warmup, park_after, 0.0, options)
            p99 = percentile(result["writes"], 0.99) * 1000
            tried.append((students, p99))
            if p99 > target:
                break
            students += step
        within = [n for n, p99 in tried if p99 <= target]
        processes = options["servers"] + options["controlplanes"] if options["scaled"] else 1
        # One embedded process runs on one core (one GIL); the scale-out profile uses every core.
        cores = min(os.cpu_count() or 1, processes) if options["scaled"] else 1
        runs = ", ".join(f"{n}: {p99:.0f} ms" for n, p99 in tried)
        if within:
            self.stdout.write(
                f"capacity: {max(within)} students with the writes' p99 ≤ {target:g} ms "
                f"({max(within) / cores:.0f} per core; {cores} core{'s' if cores > 1 else ''} used "
                f"of {os.cpu_count()}); runs (students: p99): {runs}"
            )
        else:
            self.stdout.write(f"capacity: no class size kept the writes' p99 ≤ {target:g} ms; runs: {runs}")

    def _lesson(self, students, nodes, warmup, park_after, idle_after, options) -> dict:
        if options["scaled"]:
            return self._scaled(students, nodes, warmup, park_after, idle_after, options)
        folder = Path(tempfile.mkdtemp(prefix="kubesim-bench-class-"))
        database = folder / "db.sqlite3"
        try:
            # This process and the server share a fresh SQLite file (migrated here), whatever
            # database DATABASE_URL names.
            with sqlite_file(database):
                call_command("migrate", verbosity=0, interactive=False)
                code = self._session(nodes)
                speed = yardstick()
                self.stdout.write(f"load average before: {_load()}; machine speed {speed:.1f} k loops/CPU-s")
                server = Server(database, park_after)
                try:
                    idle = (idle_after, options["idle_window"])
                    return self._run(server, code, students, nodes, warmup, *idle)
                finally:
                    server.stop()
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def _scaled(self, students, nodes, warmup, park_after, idle_after, options) -> None:
        if options["servers"] < 1 or options["controlplanes"] < 1:
            raise CommandError("--servers and --controlplanes must be at least 1")
        redis = options["redis"]
        scaled.flush_redis(redis)
        url = scaled.create_database(options["postgres"], options["database_name"] or scaled.throwaway_name())
        try:
            with scaled.postgres(url):
                call_command("migrate", verbosity=0, interactive=False)
                code = self._session(nodes)
                speed = yardstick()
                self.stdout.write(
                    f"scaled: {options['servers']} servers, {options['controlplanes']} control planes, "
                    f"PostgreSQL + Redis; load average before: {_load()}; "
                    f"machine speed {speed:.1f} k loops/CPU-s"
                )
                server = ScaledServer(url, redis, options["servers"], options["controlplanes"], park_after)
                try:
                    idle = (idle_after, options["idle_window"])
                    return self._run(server, code, students, nodes, warmup, *idle)
                finally:
                    server.stop()
        finally:
            scaled.drop_database(url)
            scaled.flush_redis(redis)

    def _joins(self, students: int, nodes: int) -> None:
        """Two classes join a server that keeps its own join limits: through a trusted proxy
        (every student's address forwarded), then from one address no proxy vouches for."""
        folder = Path(tempfile.mkdtemp(prefix="kubesim-bench-joins-"))
        try:
            for proxied in (True, False):
                database = folder / f"db-{int(proxied)}.sqlite3"
                with sqlite_file(database):
                    call_command("migrate", verbosity=0, interactive=False)
                    code = self._session(nodes)
                # The server's join limits as configured (not the lesson's raised ones); the
                # class's own, for 60 to join within a minute, is what is measured.
                env = {
                    "KUBESIM_JOIN_ATTEMPTS_PER_MINUTE": str(settings.KUBESIM_JOIN_ATTEMPTS_PER_MINUTE),
                    "KUBESIM_CLASS_JOINS_PER_MINUTE": str(settings.KUBESIM_CLASS_JOINS_PER_MINUTE),
                    "KUBESIM_TRUSTED_PROXIES": "127.0.0.1" if proxied else "",
                    "KUBESIM_SHARED_ADDRESSES": "",
                }
                server = Server(database, 60.0, env)
                try:
                    self._join_class(server, code, students, proxied)
                finally:
                    server.stop()
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def _join_class(self, server: Server, code: str, students: int, proxied: bool) -> None:
        people = [Student(server.port) for _ in range(students)]

        def join(i: int) -> tuple[int, float]:
            # Student i's own address, as the proxy forwards it (ignored without a trusted proxy).
            headers = {"X-Forwarded-For": f"10.{i // 250 % 250}.{i % 250}.{i % 200 + 1}"}
            status, _ = people[i].try_join(code, f"student {i}", headers)
            return status, time.perf_counter() - started

        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=students) as pool:
            answers = list(pool.map(join, range(students)))
        for person in people:
            person.close()
        joined = [seconds for status, seconds in answers if status == 302]
        refused = sum(1 for status, _ in answers if status == 429)
        other = len(answers) - len(joined) - refused
        how = (
            "through a trusted proxy (KUBESIM_TRUSTED_PROXIES=127.0.0.1; a distinct X-Forwarded-For each)"
            if proxied
            else "from one untrusted address (no trusted proxy: X-Forwarded-For ignored)"
        )
        last = f"the last joined {max(joined):.1f} s after the start" if joined else "none joined"
        self.stdout.write(
            f"{students} students join {how}: {len(joined)} joined, {refused} refused (429), "
            f"{other} other answers; {last}"
            + (f"; all within a minute: {'yes' if max(joined) <= 60 else 'no'}" if proxied and joined else "")
        )

    def _session(self, nodes: int) -> str:
        from labs.catalog import save_definition
        from labs.models import ClassSession, LabDefinition

        teacher, _ = get_user_model().objects.get_or_create(
            username="bench-teacher", defaults={"is_staff": True}
        )
        definition = LabDefinition()
        save_definition(definition, bench_lab(nodes))
        definition.published = True
        definition.save()
        return ClassSession.objects.create(lab=definition, teacher=teacher).code

    def _run(self, server: Server, code: str, students: int, nodes: int, warmup, idle_after, window) -> dict:
        from cluster.auth.access import sandbox_token
        from labs.models import Student as StudentRow

        pool = ThreadPoolExecutor(max_workers=students + 4, thread_name_prefix="student")
        people = [Student(server.ports[i % len(server.ports)]) for i in range(students)]
        started = time.perf_counter()
        list(pool.map(lambda pair: pair[1].join(code, f"student {pair[0]}"), enumerate(people)))
        self.stdout.write(
            f"{students} students joined over HTTP in {time.perf_counter() - started:.1f} s "
            f"({nodes}-node sandboxes)"
        )
        rows = {row.display_name: row for row in StudentRow.objects.select_related("sandbox")}
        for i, person in enumerate(people):
            sandbox = rows[f"student {i}"].sandbox
            person.token = sandbox_token(sandbox)  # from here on, kubectl's way: the bearer token only
            person.sandbox = sandbox.name
            person.sandbox_index = i
        result = asyncio.run(self._class(server, people, nodes, warmup, pool))
        for person in people:
            person.close()
        self._report_busy(result)
        left = time.perf_counter()
        self.stdout.write(
            f"load average after the lesson: {_load()}; machine speed {yardstick():.1f} k loops/CPU-s "
            "(bench.stats.yardstick)"
        )
        if window > 0:
            self._report_idle(server, students, left, idle_after, window)
        pool.shutdown()
        return result

    async def _class(self, server, people, nodes: int, warmup: float, pool) -> dict:
        from bench import wsclient

        loop = asyncio.get_running_loop()
        self.socket_retries = 0
        sockets = await asyncio.gather(*(self._lab_socket(wsclient, p.port, p.token) for p in people))
        without = sum(1 for sock in sockets if sock is None)
        if self.socket_retries:
            self.stdout.write(
                f"lab sockets whose handshake the server dropped: {self.socket_retries} attempts; "
                f"students left without a lab socket (no check result measured): {without}"
            )
        await asyncio.sleep(warmup)
        self.stdout.write(
            f"each student writes every {self.every:g} s, results or not"
            if self.every is not None
            else "each student writes once the last check result came, after 0.2-1 s"
        )
        result = {"writes": [], "writes_seen": [], "labels": [], "rc": [], "running": [], "failed": 0}
        cpu, services, began = server.cpu_seconds(), server.services(), time.perf_counter()
        written = server.db_writes()
        try:
            await asyncio.gather(
                *(
                    self._student(loop, pool, p, s, nodes, result)
                    for p, s in zip(people, sockets, strict=True)
                )
            )
            # The server's work for the whole lesson (every pod Running): steadier than latencies.
            result["cpu"] = server.cpu_seconds() - cpu
            result["services"] = _spent(services, server.services())
            after = server.db_writes()
            result["api_writes"], result["flow_steps"] = after[0] - written[0], after[1] - written[1]
            result["seconds"] = time.perf_counter() - began
        finally:
            for sock in sockets:
                if sock is not None:
                    sock.close()
        return result

    async def _lab_socket(self, wsclient, port: int, token: str, attempts: int = 4):
        """The student's lab panel socket, or None: Daphne drops a handshake that the server did
        not accept within 5 s (the consumer's database call waited that long)."""
        for _ in range(attempts):
            try:
                return await wsclient.connect(f"http://127.0.0.1:{port}", "/ws/labs/student/", token=token)
            except (ConnectionError, OSError, TimeoutError):
                self.socket_retries += 1
                await asyncio.sleep(random.uniform(0.5, 2.0))
        return None

    async def _student(self, loop, pool, person: Student, sock, nodes: int, result: dict) -> None:
        pauses = random.Random(f"{self.seed}-{person.sandbox_index}")
        rc_path = f"/clusters/{person.sandbox}/api/v1/namespaces/default/replicationcontrollers"
        writes = [("rc", "POST", rc_path, RC, "application/json")]
        for i in range(1, label_steps(nodes) + 1):
            path = f"/clusters/{person.sandbox}/api/v1/nodes/node{i}"
            patch = {"metadata": {"labels": {"step": str(i)}}}
            writes.append(("labels", "PATCH", path, patch, "application/merge-patch+json"))
        await asyncio.sleep(pauses.uniform(0, 2))  # students do not all press Enter at once
        started, waits = time.monotonic(), []
        for index, (kind, method, path, body, content_type) in enumerate(writes):
            if self.every is not None:
                await asyncio.sleep(max(0.0, started + index * self.every - time.monotonic()))
            seen = len(sock.frames) if sock is not None else 0
            response, thread_saw = await loop.run_in_executor(
                pool, person.write, method, path, body, content_type
            )
            committed = response.arrived  # the student has the answer: the lab's check is next
            if index == 0:
                rc_committed, seen_at_rc = committed, seen
            result["writes"].append(response.elapsed)
            result["writes_seen"].append(thread_saw)
            if sock is None:
                await asyncio.sleep(0.5)  # no lab panel: as long as a check usually takes
                continue
            waiting = self._check_result(sock, seen, index + 1, committed, kind, result)
            if self.every is not None:
                waits.append(asyncio.create_task(waiting))
                continue
            await waiting
            await asyncio.sleep(pauses.uniform(0.2, 1.0))
        await asyncio.gather(*waits)
        if sock is not None:  # the last step: the RC's 5 pods Running, from the RC's creation
            arrival = await _passed(sock, seen_at_rc, len(writes) + 1, timeout=120.0)
            if arrival is None:
                result["failed"] += 1
            else:
                result["running"].append(arrival - rc_committed)

    @staticmethod
    async def _check_result(sock, seen: int, step: int, committed: float, kind: str, result: dict) -> None:
        arrival = await _passed(sock, seen, step)
        if arrival is None:
            result["failed"] += 1
        else:
            result[kind].append(max(0.0, arrival - committed))

    def _report_busy(self, result: dict) -> None:
        def ms(values, fraction):
            return percentile(values, fraction) * 1000

        writes, labels, rc, running = result["writes"], result["labels"], result["rc"], result["running"]
        seen = result["writes_seen"]
        both = labels + rc
        self.stdout.write(
            f"students' writes over HTTP (request written → response's last byte received) with every "
            f"sandbox busy: n={len(writes)} p50={ms(writes, 0.5):.0f} ms p99={ms(writes, 0.99):.0f} ms "
            f"max={ms(writes, 1):.0f} ms; as the bench's threads saw them (their GIL waits "
            f"included): p50={ms(seen, 0.5):.0f} ms p99={ms(seen, 0.99):.0f} ms"
        )
        self.stdout.write(
            f"change → lab check result on the student's socket: n={len(both)} p50={ms(both, 0.5):.0f} ms "
            f"p99={ms(both, 0.99):.0f} ms; label steps p50={ms(labels, 0.5):.0f} "
            f"p99={ms(labels, 0.99):.0f} ms; "
            f"RC step p50={ms(rc, 0.5):.0f} p99={ms(rc, 0.99):.0f} ms; "
            f"no result in time: {result['failed']}"
        )
        self.stdout.write(
            f"RC created → its 5 pods Running (the last step passed): n={len(running)} "
            f"p50={ms(running, 0.5):.0f} ms p99={ms(running, 0.99):.0f} ms"
        )
        self.stdout.write(
            f"server CPU from the first write to the last step passed: {result['cpu']:.1f} s "
            f"over {result['seconds']:.1f} s"
        )
        services, count = result.get("services") or {}, max(1, len(writes))
        total = result["cpu"] + services.get("postgres", 0.0) + services.get("redis", 0.0)

        def per_write(seconds: float) -> str:
            return f"{seconds / count * 1000:.1f} ms"

        line = (
            f"API writes in the lesson {result['api_writes']} ({result['api_writes'] / count:.1f} per "
            f"student write), flow steps {result['flow_steps']}; CPU per student write (the lesson's "
            f"CPU / {len(writes)} writes): {per_write(total)}"
        )
        if services:
            calls = services["redis_calls"]
            busiest = sorted(calls.items(), key=lambda call: -call[1])[:6]
            top = ", ".join(f"{name} {n / count:.1f}" for name, n in busiest)
            line += (
                f" (KubeSim's processes {per_write(result['cpu'])}, PostgreSQL's backends "
                f"{per_write(services['postgres'])}, Redis {per_write(services['redis'])}); "
                f"Redis commands per write {sum(calls.values()) / count:.1f}: {top}; PostgreSQL "
                f"transactions per write {services['transactions'] / count:.1f} (counted by the server, "
                f"lagging up to a second), rows read per write {services['rows_read'] / count:.0f}"
            )
        self.stdout.write(line)

    def _report_idle(
        self, server: Server, students: int, left: float, idle_after: float, window: float
    ) -> None:
        # The sandboxes first finish their work (every pod Running), then have idle_after seconds.
        deadline = time.perf_counter() + SETTLE_SECONDS
        while server.pods_not_running() and time.perf_counter() < deadline:
            time.sleep(2.0)
        left_over = server.pods_not_running()
        self.stdout.write(
            f"every sandbox's pods Running {time.perf_counter() - left:.0f} s after the last student's "
            f"step" + (f" (not yet: {left_over} pods)" if left_over else "")
        )
        time.sleep(idle_after)
        before = server.db_writes()
        cpu = server.cpu_seconds()
        begin = time.perf_counter()
        time.sleep(window)
        elapsed = time.perf_counter() - begin
        cpu = server.cpu_seconds() - cpu
        after = server.db_writes()
        rss = server.rss_mib()
        self.stdout.write(
            f"{students} idle sandboxes (+ the demo), {elapsed:.0f} s window starting {idle_after:.0f} s "
            f"after that: server CPU {cpu / elapsed * 100:.2f}% of one core, "
            f"{(after[0] - before[0]) / elapsed:.1f} API writes/s, "
            f"{(after[1] - before[1]) / elapsed:.1f} flow steps/s, "
            f"database file changed: {'yes' if after[2] != before[2] else 'no'}; "
            f"server RSS {rss:.0f} MiB; load average {_load()}"
        )


def _spent(before: dict, after: dict) -> dict:
    """PostgreSQL's and Redis's work between two `services()` snapshots: CPU seconds of the
    database's backends and of Redis, and Redis's calls per command."""
    if not after:
        return {}
    backends = sum(value - before.get(key, 0.0) for key, value in after.items() if key.startswith("pg-"))
    calls = {
        name: count - before["redis_calls"].get(name, 0)
        for name, count in after["redis_calls"].items()
        if count > before["redis_calls"].get(name, 0)
    }
    return {
        "postgres": backends,
        "redis": after["redis"] - before["redis"],
        "redis_calls": calls,
        "transactions": after["transactions"] - before["transactions"],
        "rows_read": after["rows_read"] - before["rows_read"],
    }


async def _passed(sock, seen: int, step: int, timeout: float = 30.0) -> float | None:
    """The arrival time of the first frame (after frame `seen`) whose state is past `step`."""
    deadline = time.monotonic() + timeout
    index = seen
    while True:
        while index < len(sock.frames):
            begin, end, at = sock.frames[index]
            index += 1
            message = json.loads(sock.buffer[begin:end])
            state = message.get("state") or {}
            if message.get("type") == "state" and (state.get("current") or 0) >= step:
                return at
        remaining = deadline - time.monotonic()
        if remaining <= 0 or sock.closed:
            return None
        sock.arrived.clear()
        try:
            await asyncio.wait_for(sock.arrived.wait(), remaining)
        except TimeoutError:
            return None


def _db_writes(path: str) -> tuple[int, int, tuple]:
    """(sum of every cluster's revision, the newest flow step id, the database files' sizes and
    modification times): API writes bump a revision; any commit touches the WAL file."""
    import sqlite3

    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        revisions = conn.execute("SELECT COALESCE(SUM(revision), 0) FROM cluster_cluster").fetchone()[0]
        steps = conn.execute("SELECT COALESCE(MAX(id), 0) FROM cluster_flowstep").fetchone()[0]
    finally:
        conn.close()
    stamps = tuple(
        (os.stat(p).st_size, os.stat(p).st_mtime_ns) for p in (path, path + "-wal") if os.path.exists(p)
    )
    return revisions, steps, stamps


def _pods_not_running(path: str) -> int:
    import sqlite3

    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        query = "SELECT COUNT(*) FROM cluster_apiobject WHERE kind = 'Pod' AND phase != 'Running'"
        return conn.execute(query).fetchone()[0]
    finally:
        conn.close()


def _rss_mib(pid: int) -> float:
    found = re.search(r"VmRSS:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    return int(found.group(1)) / 1024 if found else float("nan")


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())
