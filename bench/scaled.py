"""The scale-out profile as the benchmarks start it: a throwaway PostgreSQL database, SERVERS
`manage.py serve --no-control-plane` processes and CONTROLPLANES `manage.py controlplane` processes
sharing it and a Redis database, as `make run-scaled` starts them (without the nginx in front: a
benchmark's clients are spread over the servers' ports themselves)."""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.core.management.base import CommandError
from django.db import connections

from bench.server import cpu_seconds, free_port
from kubesim.env import database_from_url

START_SECONDS = 90


def admin_url(url: str) -> str:
    """The same server's `postgres` database (where CREATE and DROP DATABASE run)."""
    return urlunsplit(urlsplit(url)._replace(path="/postgres"))


def with_database(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


def create_database(url: str, name: str) -> str:
    import psycopg

    if not re.fullmatch(r"[a-z0-9_]{1,63}", name):
        raise CommandError(f"--database-name: {name!r} is not a plain lowercase name")
    try:
        with psycopg.connect(admin_url(url), autocommit=True, connect_timeout=5) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
    except psycopg.OperationalError as error:
        raise CommandError(f"cannot reach PostgreSQL at {url}: {error}") from None
    return with_database(url, name)


def drop_database(url: str) -> None:
    import psycopg

    name = urlsplit(url).path.lstrip("/")
    with psycopg.connect(admin_url(url), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def flush_redis(url: str) -> None:
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=3).flushdb()
    except redis.exceptions.ConnectionError as error:
        raise CommandError(f"cannot reach Redis at {url}: {error}") from None


def throwaway_name() -> str:
    return f"kubesim_bench_{secrets.token_hex(4)}"


@contextlib.contextmanager
def postgres(url: str) -> Iterator[None]:
    """This process's default database is `url` for every thread (as `sqlite_file` for SQLite)."""
    settings_dict = connections.settings["default"]
    saved = dict(settings_dict)
    connections["default"].close()
    settings_dict.clear()
    settings_dict.update(saved, **database_from_url(url), OPTIONS={})
    connections["default"] = connections.create_connection("default")
    try:
        yield
    finally:
        connections["default"].close()
        settings_dict.clear()
        settings_dict.update(saved)
        connections["default"] = connections.create_connection("default")


class Deployment:
    """SERVERS Daphne processes and CONTROLPLANES control planes on `database_url` and `redis_url`."""

    def __init__(
        self, database_url: str, redis_url: str, servers: int, controlplanes: int, env: dict
    ) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="kubesim-bench-scaled-"))
        self.database_url = database_url
        self.env = {
            **{k: v for k, v in os.environ.items() if k not in ("KUBESIM_SQLITE_PATH",)},
            **env,
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
        }
        self.processes: list[subprocess.Popen] = []
        self.ports: list[int] = []
        self.logs: list = []
        try:
            for i in range(servers):  # one after the other: the first loads the demo cluster
                port = free_port()
                self._start(f"serve-{i}", "serve", "--no-control-plane", "--port", str(port))
                self._wait_for_port(port)
                self.ports.append(port)
            for i in range(controlplanes):
                self._start(f"controlplane-{i}", "controlplane", "--identity", f"bench-cp-{i}")
        except BaseException:
            self.stop()
            raise

    def _start(self, name: str, *args: str) -> None:
        log = open(self.folder / f"{name}.log", "wb")  # noqa: SIM115 (closed in stop)
        self.logs.append(log)
        manage = [sys.executable, str(Path(settings.BASE_DIR) / "manage.py")]
        self.processes.append(subprocess.Popen([*manage, *args], env=self.env, stdout=log, stderr=log))

    def _wait_for_port(self, port: int) -> None:
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if any(process.poll() is not None for process in self.processes):
                raise CommandError(f"a process of the scaled profile exited; see {self.saved_logs}")
            try:
                socket.create_connection(("127.0.0.1", port), 0.5).close()
                return
            except OSError:
                time.sleep(0.3)
        raise CommandError("a server of the scaled profile did not start")

    @property
    def pids(self) -> list[int]:
        return [process.pid for process in self.processes]

    def cpu_seconds(self) -> float:
        return sum(cpu_seconds(pid) for pid in self.pids)

    @property
    def saved_logs(self) -> Path:
        return Path(tempfile.gettempdir()) / "bench-class-scaled-logs"

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()  # the control planes hand their leases back
        for process in self.processes:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for log in self.logs:
            log.close()
        shutil.rmtree(self.saved_logs, ignore_errors=True)
        shutil.copytree(self.folder, self.saved_logs)
        shutil.rmtree(self.folder, ignore_errors=True)

    def query(self, sql: str) -> tuple:
        import psycopg

        with psycopg.connect(self.database_url, autocommit=True) as conn:
            return conn.execute(sql).fetchone()

    def query_all(self, sql: str) -> list[tuple]:
        import psycopg

        with psycopg.connect(self.database_url, autocommit=True) as conn:
            return conn.execute(sql).fetchall()
