"""A live KubeSim (Daphne via `manage.py serve`) with its own SQLite file, and the real kubectl."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MANIFESTS = Path(__file__).resolve().parent / "manifests"
SEED = """
from cluster.models import Cluster
from cluster.apiserver import service as api
from cluster.apiserver.actor import Actor
cluster, _ = Cluster._default_manager.get_or_create(name="demo")
actor = Actor(client="api", detail="kubectl tests")
for name, role in (("master", True), ("node1", False), ("node2", False)):
    labels = {"kubernetes.io/hostname": name}
    if role:
        labels["node-role.kubernetes.io/control-plane"] = ""
    capacity = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    api.create(cluster, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
        "status": {"capacity": capacity, "allocatable": capacity,
                   "conditions": [{"type": "Ready", "status": "True"}],
                   "nodeInfo": {"kubeletVersion": "v1.33.1"}}}, actor)
"""


def _free_port() -> int:
    for port in range(8300, 8400):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) != 0:
                return port
    raise RuntimeError("no free port in 8300-8399")


@dataclass
class Kubectl:
    binary: str
    server: str
    home: Path

    def run(self, *args: str, stdin: str | None = None, timeout: float = 30) -> subprocess.CompletedProcess:
        env = {**os.environ, "HOME": str(self.home), "KUBECONFIG": str(self.home / "none")}
        return subprocess.run(
            [self.binary, "--server", self.server, *args],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            cwd=MANIFESTS,
        )

    def ok(self, *args: str, stdin: str | None = None) -> str:
        result = self.run(*args, stdin=stdin)
        assert result.returncode == 0, f"kubectl {' '.join(args)} failed:\n{result.stderr}"
        return result.stdout

    def popen(self, *args: str) -> subprocess.Popen:
        env = {**os.environ, "HOME": str(self.home), "KUBECONFIG": str(self.home / "none")}
        return subprocess.Popen(
            [self.binary, "--server", self.server, *args], stdout=subprocess.PIPE, text=True, env=env
        )


def _kubectl_binary() -> str:
    binary = os.environ.get("KUBECTL") or shutil.which("kubectl")
    if binary:
        return binary
    if os.environ.get("CI") == "true":
        pytest.fail("kubectl is not installed, and CI=true requires the real-kubectl tests to run")
    pytest.skip("kubectl is not installed: the real-kubectl tests need it (set KUBECTL or put it on PATH)")


def _manage(env: dict, *args: str, stdin: str | None = None) -> None:
    subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env=env,
        input=stdin,
        text=True,
        check=True,
        capture_output=True,
    )


@pytest.fixture(scope="session")
def kubectl(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kubectl]:
    binary = _kubectl_binary()
    tmp = tmp_path_factory.mktemp("kubesim")
    env = {**os.environ, "KUBESIM_SQLITE_PATH": str(tmp / "db.sqlite3"), "KUBESIM_PACE_MS": "0"}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    _manage(env, "migrate", "--noinput")
    _manage(env, "shell", stdin=SEED)
    port = _free_port()
    log = (tmp / "serve.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", str(port)], cwd=REPO, env=env, stdout=log, stderr=log
    )
    base = f"http://127.0.0.1:{port}/clusters/demo"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"{base}/version", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        else:
            pytest.fail(f"KubeSim did not start: see {tmp / 'serve.log'}")
        home = tmp / "home"
        home.mkdir()
        yield Kubectl(binary, base, home)
    finally:
        server.terminate()
        server.wait(timeout=10)
        log.close()
