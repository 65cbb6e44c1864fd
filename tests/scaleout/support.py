"""Real processes for the scale-out tests: Daphne servers and control planes on PostgreSQL + Redis
(or SQLite), started as `make run-scaled` starts them, and always killed and cleaned up after."""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support.auth import teacher_headers

ROOT = Path(__file__).resolve().parents[2]
PG_ADMIN_URL = os.environ.get("KUBESIM_TEST_PG", "postgres://postgres@127.0.0.1:5432/postgres")
REDIS_BASE = os.environ.get("KUBESIM_TEST_REDIS", "redis://127.0.0.1:6379")
REDIS_DB = int(os.environ.get("KUBESIM_TEST_REDIS_DB", "6"))


def unavailable(what: str, error: Exception) -> None:
    """Skip when a service is missing, but fail under CI=true: CI must run both profiles."""
    reason = f"{what} is not reachable ({error}); the scale-out tests need it"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(reason)
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def request(url: str, method: str = "GET", body: dict | None = None, content_type: str = "") -> dict:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("Content-Type", content_type or "application/json")
    for name, value in teacher_headers().items():  # the tests write as the teacher
        req.add_header(name, value)
    with urllib.request.urlopen(req, timeout=20) as response:
        return json.loads(response.read())


@dataclass
class Processes:
    """Child processes of one test, killed (whole process group) even when the test fails."""

    env: dict
    children: list[subprocess.Popen] = field(default_factory=list)
    logs: Path | None = None

    def manage(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, check=check, capture_output=True
        )

    def start(self, *args: str, name: str) -> subprocess.Popen:
        log = open(self.logs / f"{name}.log", "wb")  # noqa: SIM115 (closed with the process)
        child = subprocess.Popen(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        child.log = log
        self.children.append(child)
        return child

    def serve(self, port: int, control_plane: bool = False, api_port: int | None = None) -> subprocess.Popen:
        """`manage.py serve` on `port` (and the API over TLS on `api_port`), once it answers."""
        args = ["serve", "--port", str(port)] + ([] if control_plane else ["--no-control-plane"])
        args += ["--api-port", str(api_port)] if api_port else []
        child = self.start(*args, name=f"serve-{port}")
        wait_for(lambda: _answers(f"http://127.0.0.1:{port}/clusters/demo/snapshot"), 60, f"serve {port}")
        return child

    def controlplane(self, identity: str) -> subprocess.Popen:
        return self.start("controlplane", "--identity", identity, name=f"controlplane-{identity}")

    def kill(self, child: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
        if child.poll() is None:
            os.killpg(child.pid, sig)
            try:
                child.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(child.pid, signal.SIGKILL)
                child.wait(5)
        child.log.close()

    def stop_all(self) -> None:
        for child in self.children:
            if child.poll() is None:
                self.kill(child, signal.SIGTERM)
            child.log.close()

    def log_tail(self, lines: int = 40) -> str:
        out = []
        for path in sorted(self.logs.glob("*.log")):
            text = path.read_text(errors="replace").splitlines()[-lines:]
            out.append(f"== {path.name}\n" + "\n".join(text))
        return "\n".join(out)


def _answers(url: str) -> bool:
    try:
        request(url)
        return True
    except (OSError, urllib.error.URLError):
        return False


def wait_for(predicate, timeout: float, what: str, interval: float = 0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def new_pg_database() -> str:
    """A fresh database on the machine's PostgreSQL; returns its URL."""
    import psycopg

    name = f"kubesim_t_{secrets.token_hex(4)}"
    try:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True, connect_timeout=3) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
    except psycopg.OperationalError as error:
        unavailable(f"PostgreSQL ({PG_ADMIN_URL})", error)
    return PG_ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"


def drop_pg_database(url: str) -> None:
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def redis_url() -> str:
    """The tests' own Redis database number, flushed before use."""
    import redis

    url = f"{REDIS_BASE}/{REDIS_DB}"
    try:
        redis.Redis.from_url(url, socket_connect_timeout=3).flushdb()
    except redis.exceptions.ConnectionError as error:
        unavailable(f"Redis ({REDIS_BASE})", error)
    return url


def flush_redis(url: str) -> None:
    import redis

    redis.Redis.from_url(url).flushdb()


SCRUBBED = ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "KUBESIM_SQLITE_PATH")


def base_env(**extra: str) -> dict:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")
    }
    env.update({"KUBESIM_PACE_MS": "0", "PYTHONUNBUFFERED": "1", "LOG_LEVEL": "WARNING"}, **extra)
    return env


def db_connection(env: dict):
    """A DB-API connection to the database the processes use (to check what they wrote)."""
    if env.get("DATABASE_URL"):
        import psycopg

        return psycopg.connect(env["DATABASE_URL"], autocommit=True)
    return sqlite3.connect(env["KUBESIM_SQLITE_PATH"])


def query(conn, sql: str, params: tuple = ()) -> list[tuple]:
    """Run `sql` (with %s placeholders) on SQLite or PostgreSQL."""
    if isinstance(conn, sqlite3.Connection):
        sql = sql.replace("%s", "?")
    cur = conn.cursor()
    cur.execute(sql, params)
    return cur.fetchall()


def integrity_problems(conn, cluster: str) -> list[str]:
    """What a killed process could have left half-written: every stored object must be the state
    its log entry describes, and the log must be gapless up to the cluster's revision."""
    [(cluster_id, revision, compacted)] = query(
        conn, "SELECT id, revision, compacted_revision FROM cluster_cluster WHERE name = %s", (cluster,)
    )
    revisions = [row[0] for row in query(conn, LOG, (cluster_id, compacted))]
    problems = []
    if revisions and revisions != list(range(revisions[0], revision + 1)):
        problems.append(f"the log is not gapless up to revision {revision}")
    orphans = query(conn, OBJECTS_WITHOUT_LOG_ENTRY, (cluster_id, compacted))
    problems += [f"{kind} {ns}/{name} at {rv} has no log entry" for kind, ns, name, rv in orphans]
    return problems


# Above the compacted revision (below it, compaction keeps each key's newest entry, as etcd does).
LOG = "SELECT revision FROM cluster_watchevent WHERE cluster_id = %s AND revision > %s ORDER BY revision"
OBJECTS_WITHOUT_LOG_ENTRY = """
SELECT o.kind, o.namespace, o.name, o.resource_version FROM cluster_apiobject o
WHERE o.cluster_id = %s AND o.resource_version > %s AND NOT EXISTS (
  SELECT 1 FROM cluster_watchevent e WHERE e.cluster_id = o.cluster_id
  AND e.revision = o.resource_version AND e.kind = o.kind AND e.name = o.name)
"""
