"""The benchmarks' server: `manage.py serve` (the embedded default, pace 0) on a throwaway SQLite
database in a folder of its own, migrated, optionally with collected static files (as `make run`
serves the page) and setup code run before it starts."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (and its reaped children), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def nginx_pod(name: str) -> dict:
    """A bare nginx Pod labelled app=bench: the benchmarks' single writes."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": "bench"}},
        "spec": {"containers": [{"name": "nginx", "image": "nginx:1.15"}]},
    }


def nginx_rc(name: str, replicas: int) -> dict:
    """A ReplicationController of nginx pods labelled app=NAME: the benchmarks' and tests' workload."""
    labels = {"app": name}
    return {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": labels,
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "nginx", "image": "nginx:1.15"}]},
            },
        },
    }


class ThrowawayServer:
    """A context manager: the server runs inside the block; its folder goes afterwards."""

    def __init__(
        self, prefix: str, *, static: bool = False, setup: str = "", ready: str = "/clusters/demo/snapshot"
    ):
        self.dir = tempfile.TemporaryDirectory(prefix=prefix)
        self.port = free_port()
        self.static, self.setup, self.ready = static, setup, ready
        self.env = {
            **{k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")},
            "KUBESIM_SQLITE_PATH": str(Path(self.dir.name) / "db.sqlite3"),
            "KUBESIM_PACE_MS": "0",
        }
        if static:  # the page as `make run` serves it: collected, hashed and gzipped static files
            self.env["KUBESIM_STATIC_ROOT"] = str(Path(self.dir.name) / "static")
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self):
        manage = [sys.executable, str(Path(settings.BASE_DIR) / "manage.py")]
        subprocess.run([*manage, "migrate", "--noinput", "-v0"], env=self.env, check=True)
        if self.static:
            subprocess.run([*manage, "collectstatic", "--noinput", "-v0"], env=self.env, check=True)
        if self.setup:
            subprocess.run([*manage, "shell", "-c", self.setup], env=self.env, check=True)
        self.process = subprocess.Popen(
            [*manage, "serve", "--port", str(self.port)],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.url}{self.ready}", timeout=60):
                    return self
            except OSError:
                time.sleep(0.3)
        self.__exit__()
        raise CommandError("the benchmark's server did not start")

    def __exit__(self, *exc) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.dir.cleanup()
