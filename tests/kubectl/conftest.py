"""A live KubeSim (Daphne via `manage.py serve`, plain HTTP and the TLS API port) with its own SQLite
file, and the real kubectl: as the teacher through the kubeconfig `manage.py kubeconfig` writes
(TLS, the CA, the presenter token; no other flag), or anonymous over plain HTTP (`--server`)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
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


def free_api_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Kubectl:
    binary: str
    server: str  # the plain-HTTP address, used with --server when there is no kubeconfig
    home: Path
    kubeconfig: Path | None = None  # the teacher's (or a student's): TLS + token, KUBECONFIG only
    cwd: Path = MANIFESTS

    def _command(self, args: tuple[str, ...]) -> tuple[list[str], dict]:
        config = str(self.kubeconfig) if self.kubeconfig else str(self.home / "none")
        env = {**os.environ, "HOME": str(self.home), "KUBECONFIG": config}
        prefix = [self.binary] if self.kubeconfig else [self.binary, "--server", self.server]
        return [*prefix, *args], env

    def run(self, *args: str, stdin: str | None = None, timeout: float = 30) -> subprocess.CompletedProcess:
        command, env = self._command(args)
        return subprocess.run(
            command, input=stdin, capture_output=True, text=True, timeout=timeout, env=env, cwd=self.cwd
        )

    def ok(self, *args: str, stdin: str | None = None) -> str:
        result = self.run(*args, stdin=stdin)
        assert result.returncode == 0, f"kubectl {' '.join(args)} failed:\n{result.stderr}"
        return result.stdout

    def popen(self, *args: str) -> subprocess.Popen:
        command, env = self._command(args)
        return subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)


def _kubectl_binary() -> str:
    binary = os.environ.get("KUBECTL") or shutil.which("kubectl")
    if binary:
        return binary
    if os.environ.get("CI") == "true":
        pytest.fail("kubectl is not installed, and CI=true requires the real-kubectl tests to run")
    pytest.skip("kubectl is not installed: the real-kubectl tests need it (set KUBECTL or put it on PATH)")


def _manage(env: dict, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env=env,
        input=stdin,
        text=True,
        check=True,
        capture_output=True,
    )


@dataclass
class LiveServer:
    env: dict
    http: str  # http://127.0.0.1:PORT
    api_port: int
    tmp: Path

    def kubeconfig(self, cluster: str, name: str) -> Path:
        """`manage.py kubeconfig --cluster NAME` (the caller's token: the teacher's, or the sandbox's)."""
        path = self.tmp / f"{name}.kubeconfig"
        _manage(self.env, "kubeconfig", "--cluster", cluster, "--output", str(path))
        return path

    def shell(self, code: str) -> str:
        return _manage(self.env, "shell", stdin=code).stdout


@contextmanager
def live_server(tmp: Path, seed: str | None = SEED) -> Iterator[LiveServer]:
    """migrate, seed (or the demo when seed is None), then `serve --api-port` until the block ends."""
    api_port = free_api_port()
    env = {
        **os.environ,
        "KUBESIM_SQLITE_PATH": str(tmp / "db.sqlite3"),
        "KUBESIM_PACE_MS": "0",
        "API_PORT": str(api_port),
    }
    env.pop("DJANGO_SETTINGS_MODULE", None)
    env.pop("DATABASE_URL", None)  # the embedded default on its own file, whatever the caller's
    env.pop("REDIS_URL", None)
    _manage(env, "migrate", "--noinput")
    if seed is None:
        _manage(env, "loaddemo")
    else:
        _manage(env, "shell", stdin=seed)
    port = _free_port()
    log = (tmp / "serve.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", str(port), "--api-port", str(api_port)],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=log,
    )
    http = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"{http}/clusters/demo/version", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        else:
            pytest.fail(f"KubeSim did not start: see {tmp / 'serve.log'}")
        yield LiveServer(env, http, api_port, tmp)
    finally:
        server.terminate()
        server.wait(timeout=10)
        log.close()


@pytest.fixture(scope="session")
def kubesim(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with live_server(tmp_path_factory.mktemp("kubesim")) as server:
        yield server


@pytest.fixture(scope="session")
def kubectl(kubesim: LiveServer) -> Kubectl:
    """The real kubectl as the teacher: KUBECONFIG from `manage.py kubeconfig`, over TLS."""
    home = kubesim.tmp / "home"
    home.mkdir(exist_ok=True)
    return Kubectl(
        _kubectl_binary(), f"{kubesim.http}/clusters/demo", home, kubesim.kubeconfig("demo", "teacher")
    )


@pytest.fixture(scope="session")
def anonymous_kubectl(kubesim: LiveServer) -> Kubectl:
    """The real kubectl with no credentials, over plain HTTP (`--server`): read-only."""
    home = kubesim.tmp / "home-anonymous"
    home.mkdir(exist_ok=True)
    return Kubectl(_kubectl_binary(), f"{kubesim.http}/clusters/demo", home)


def own_demo(kubesim: LiveServer, kubectl: Kubectl, name: str) -> Kubectl:
    """A demo cluster of the test's own (one whose clock it may move) and the teacher's kubectl for it."""
    kubesim.shell(f"from cluster.controlplane.demo import create_demo\ncreate_demo({name!r}, pace_ms=0)\n")
    config = kubesim.kubeconfig(name, f"{name}-teacher")
    return Kubectl(kubectl.binary, f"{kubesim.http}/clusters/{name}", kubectl.home, config)
