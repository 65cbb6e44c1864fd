"""deploy/nginx-kubesim.conf through the real nginx, in front of two Daphne processes and a control
plane: the page, a websocket's flow steps, and the real kubectl (get, run, exec, logs, attach) over
the TLS API port that nginx passes through (`stream {}`), each spread over both processes.

The configuration is the shipped file with only its listen ports, upstream servers and server_name
changed; what the shipped file leaves to the machine (the pid file, logs, temporary files) goes to
this test's directory, given on nginx's command line or in the http block's first lines. nginx runs
as this user (its workers as `nobody` when that is root), listening on 127.0.0.1 only; the
`modules/` of its prefix (where the shipped `load_module` looks) is the binary's module directory.
Without nginx or its stream module the test is skipped, and fails under CI=true.
"""

from __future__ import annotations

import asyncio
import base64
import http.client
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml
from cryptography import x509
from django.conf import settings

from bench.wsclient import connect
from tests.kubectl.conftest import Kubectl
from tests.scaleout import workloads
from tests.scaleout.support import ROOT, free_port, request, wait_for
from tests.support.auth import teacher_headers

pytestmark = [pytest.mark.scaleout, pytest.mark.kubectl]

SHIPPED = ROOT / "deploy" / "nginx-kubesim.conf"
PATH = "/ws/clusters/demo/"
# The http block's temporary files (Debian's nginx keeps them in /var/lib/nginx, root's).
TEMP_PATHS = (
    "client_body_temp_path",
    "proxy_temp_path",
    "fastcgi_temp_path",
    "uwsgi_temp_path",
    "scgi_temp_path",
)


def _missing(what: str) -> None:
    """Skip when a tool is not installed, but fail under CI=true: .ci/run installs it."""
    reason = f"{what} is not installed: the nginx test needs it (.ci/run installs it)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(reason)
    pytest.skip(reason)


def _nginx() -> tuple[str, Path]:
    """The nginx binary and the directory its dynamic modules are in, with the stream module."""
    binary = os.environ.get("NGINX") or shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/sbin")
    if not binary or not os.access(binary, os.X_OK):
        _missing("nginx (Debian: nginx-light)")
    built = subprocess.run([binary, "-V"], capture_output=True, text=True, check=True).stderr
    found = re.search(r"--modules-path=(\S+)", built)
    prefix = re.search(r"--prefix=(\S+)", built)
    modules = (
        Path(found.group(1)) if found else Path(prefix.group(1) if prefix else "/usr/share/nginx") / "modules"
    )
    if not (modules / "ngx_stream_module.so").exists():
        _missing(f"nginx's stream module ({modules}/ngx_stream_module.so; Debian: libnginx-mod-stream)")
    return binary, modules


def _kubectl() -> str:
    binary = os.environ.get("KUBECTL") or shutil.which("kubectl")
    if not binary:
        _missing("kubectl")
    return binary


def _once(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"the shipped nginx configuration should have {old!r} once"
    return text.replace(old, new)


def _servers(text: str, upstream: str, addresses: list[str]) -> str:
    """The upstream block's `server` lines replaced by `addresses`, where the first one was."""
    block = re.search(rf"upstream {upstream} \{{\n(.*?)\n\s*\}}", text, re.S)
    assert block, f"the shipped nginx configuration has no upstream {upstream}"
    lines = block.group(1).split("\n")
    at = [i for i, line in enumerate(lines) if re.match(r"\s*server \S+;", line)]
    assert len(at) >= 2, f"upstream {upstream} should list every Daphne process"
    indent = re.match(r"\s*", lines[at[0]]).group(0)
    kept = [line for i, line in enumerate(lines) if i not in at]
    kept[at[0] : at[0]] = [f"{indent}server {address};" for address in addresses]
    return text[: block.start(1)] + "\n".join(kept) + text[block.end(1) :]


def nginx_config(tmp: Path, listen: int, listen_api: int, web: list[int], api: list[int]) -> str:
    """The shipped file, listening on 127.0.0.1 ports and spreading over the test's processes."""
    text = SHIPPED.read_text()
    assert "ssl_certificate" not in text and "proxy_ssl" not in text, "nginx must not terminate the API's TLS"
    text = _once(text, "listen 80;", f"listen 127.0.0.1:{listen};")
    text = _once(text, "listen 6443;", f"listen 127.0.0.1:{listen_api};")
    text = _once(text, "server_name kubesim.example.edu;", "server_name 127.0.0.1;")
    text = _servers(text, "kubesim", [f"127.0.0.1:{port}" for port in web])
    text = _servers(text, "kubesim_api", [f"127.0.0.1:{port}" for port in api])
    where = [f"    {name} {tmp / name.removesuffix('_temp_path')};" for name in TEMP_PATHS]
    where.append(f"    access_log {tmp / 'access.log'};")
    return _once(text, "\nhttp {\n", "\nhttp {\n" + "\n".join(where) + "\n")


@contextmanager
def running_nginx(tmp: Path, config: str, ports: list[int]) -> Iterator[subprocess.Popen]:
    binary, modules = _nginx()
    prefix = tmp / "nginx"
    prefix.mkdir()
    (prefix / "modules").symlink_to(modules)  # the shipped `load_module modules/…` finds it here
    conf = prefix / "nginx.conf"
    conf.write_text(config)
    command = [binary, "-p", str(prefix), "-c", str(conf), "-e", str(prefix / "error.log")]
    command += ["-g", f"pid {prefix / 'nginx.pid'}; daemon off;"]
    checked = subprocess.run([*command, "-t"], capture_output=True, text=True)
    assert checked.returncode == 0 and "test is successful" in checked.stderr, checked.stderr
    log = (prefix / "stderr.log").open("wb")
    proxy = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        for port in ports:
            wait_for(lambda port=port: _listens(port) or proxy.poll() is not None, 10, f"nginx on {port}")
        assert proxy.poll() is None, (prefix / "error.log").read_text()
        yield proxy
    finally:
        if proxy.poll() is None:
            os.killpg(proxy.pid, signal.SIGTERM)  # its fast shutdown; the workers go with it
            try:
                proxy.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(proxy.pid, signal.SIGKILL)
                proxy.wait(5)
        log.close()


def _listens(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), 0.2).close()
        return True
    except OSError:
        return False


def _counted(port: int, verb: str, resource: str) -> int:
    """How many such API requests the Daphne process on `port` answered: its own `/metrics` (each
    process counts what it served, in memory), read from it directly, not through nginx."""
    req = urllib.request.Request(f"http://127.0.0.1:{port}/clusters/demo/metrics", headers=teacher_headers())
    with urllib.request.urlopen(req, timeout=10) as response:
        text = response.read().decode()
    wanted = (f'verb="{verb}"', f'resource="{resource}"', 'subresource=""')
    return sum(
        int(float(line.rsplit(" ", 1)[1]))
        for line in text.splitlines()
        if line.startswith("apiserver_request_total{") and all(label in line for label in wanted)
    )


def _through_tls(kubeconfig: Path, path: str, port: int | None = None) -> dict:
    """GET `path` as the kubeconfig's current user, over TLS to its server (or to `port` on the
    same host), trusting its CA only."""
    config = yaml.safe_load(kubeconfig.read_text())
    context = next(c["context"] for c in config["contexts"] if c["name"] == config["current-context"])
    cluster = next(c["cluster"] for c in config["clusters"] if c["name"] == context["cluster"])
    user = next(u["user"] for u in config["users"] if u["name"] == context["user"])
    trust = ssl.create_default_context(
        cadata=base64.b64decode(cluster["certificate-authority-data"]).decode()
    )
    server = urlsplit(cluster["server"])
    connection = http.client.HTTPSConnection(server.hostname, port or server.port, timeout=10, context=trust)
    try:
        connection.request("GET", path, headers={"Authorization": f"Bearer {user['token']}"})
        response = connection.getresponse()
        assert response.status == 200, response.read()
        return json.loads(response.read())
    finally:
        connection.close()


def _flow(messages: list[dict], trace: str) -> list[tuple[int, int]]:
    return [
        (m["seq"], m["step"])
        for m in messages
        if m.get("type") in ("flow.step", "flow.end") and m.get("trace") == trace
    ]


def _running(kubectl: Kubectl, name: str) -> bool:
    pod = json.loads(kubectl.ok("get", "pod", name, "-o", "json"))
    statuses = (pod.get("status") or {}).get("containerStatuses") or []
    return bool(statuses) and all("running" in (s.get("state") or {}) for s in statuses)


def test_nginx_spreads_pages_websockets_and_kubectls_tls_over_two_daphne_processes(scaled, tmp_path):
    _nginx()
    kubectl_binary = _kubectl()
    web, api = [free_port(), free_port()], [free_port(), free_port()]
    listen, listen_api = free_port(), free_port()
    # As `SERVER_API_PORT=… make run-scaled` behind nginx: kubeconfigs name nginx's TLS port.
    scaled.env.update(API_PORT=str(listen_api), KUBESIM_TRUSTED_PROXIES="127.0.0.1")
    for port, tls in zip(web, api, strict=True):
        scaled.serve(port, api_port=tls)
    scaled.controlplane("cp")
    config = nginx_config(tmp_path, listen, listen_api, web, api)
    origin = f"http://127.0.0.1:{listen}"
    base = f"{origin}/clusters/demo"
    with running_nginx(tmp_path, config, [listen, listen_api]):
        wait_for(lambda: workloads.holder(base) == "cp", 20, "the control plane to lead")

        # The page, through nginx.
        with urllib.request.urlopen(f"{origin}/", timeout=10) as response:
            assert response.status == 200
            assert b"<html" in response.read()

        # Two websockets through nginx (least_conn puts the second on the other process), both
        # getting every step of a pod created through nginx.
        async def watch() -> tuple[list[dict], list[dict]]:
            sockets = [await connect(origin, PATH), await connect(origin, PATH)]
            for sock in sockets:
                assert (await sock.next_message())["type"] == "snapshot"
            marks = [len(sock.frames) for sock in sockets]
            pod = {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "via-nginx"},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]},
            }
            await asyncio.to_thread(request, f"{base}/api/v1/namespaces/default/pods", "POST", pod)
            await asyncio.to_thread(wait_for, lambda: _pod_running(base), 30, "pod via-nginx to run")
            await asyncio.sleep(1.5)  # the last steps reach both sockets
            got = [[m.data for m in sock.messages(mark)] for sock, mark in zip(sockets, marks, strict=True)]
            for sock in sockets:
                sock.close()
            return got[0], got[1]

        first, second = asyncio.run(watch())
        trace = workloads.trace_of(base, "Pod", "via-nginx")
        expected = [(s["seq"], s["step"]) for s in trace["steps"]]
        assert len(expected) >= 7
        assert _flow(first, trace["id"]) == expected
        assert _flow(second, trace["id"]) == expected

        # The TLS port presents KubeSim's own serving certificate: nginx passes the bytes through.
        presented = x509.load_pem_x509_certificate(
            ssl.get_server_certificate(("127.0.0.1", listen_api)).encode()
        )
        state = Path(settings.KUBESIM_STATE_DIR) / "pki"
        assert presented == x509.load_pem_x509_certificate((state / "apiserver.crt").read_bytes())

        # The real kubectl with the teacher's kubeconfig, which names nginx's TLS port.
        kubeconfig = tmp_path / "teacher.kubeconfig"
        scaled.manage("kubeconfig", "--cluster", "demo", "--output", str(kubeconfig))
        assert f"server: https://127.0.0.1:{listen_api}\n" in kubeconfig.read_text()
        home = tmp_path / "home"
        home.mkdir()
        kubectl = Kubectl(kubectl_binary, base, home, kubeconfig)
        # Each kubectl opens two connections (the first asks nothing /metrics counts) and nginx
        # takes idle processes in turn, so every `get nodes`' list could land on the same process:
        # a request on a connection of its own (TLS checked against the kubeconfig's CA, its
        # token) in between moves the turn on.
        before = [_counted(port, "LIST", "nodes") for port in web]
        for _ in range(3):
            assert re.search(r"^node1\s+Ready", kubectl.ok("get", "nodes"), re.M)
            assert _through_tls(kubeconfig, "/api/v1/nodes")["kind"] == "NodeList"
        after = [_counted(port, "LIST", "nodes") for port in web]
        served = [b - a for a, b in zip(before, after, strict=True)]
        assert sum(served) == 6 and all(served), f"the 6 lists of nodes went {served} to the two processes"
        for port in api:  # each process, reached directly, is trusted through the same kubeconfig
            assert _through_tls(kubeconfig, "/api/v1/namespaces", port)["kind"] == "NamespaceList"

        kubectl.ok("run", "web", "--image=nginx:1.25")
        wait_for(lambda: _running(kubectl, "web"), 30, "pod web to run")
        for _ in range(4):  # exec: a websocket inside TLS inside nginx's TCP proxy
            result = kubectl.run("exec", "web", "--", "hostname")
            assert result.returncode == 0 and result.stdout == "web\n", result.stderr
        assert kubectl.ok("logs", "web")
        # attach (`run -i`): the web process nginx picked relays the streams to the control plane's
        for name in ("piped-1", "piped-2"):
            result = kubectl.run(
                "run", name, "--rm", "-i", "--image=busybox:1.36", "--restart=Never", "--", "sh",
                stdin="echo from stdin\nhostname\nexit 3\n", timeout=90,
            )  # fmt: skip
            assert f"from stdin\n{name}\n" in result.stdout, result.stderr
            assert result.returncode == 3, result.stderr

        # Plain HTTP API requests through nginx are spread too.
        before = [_counted(port, "LIST", "pods") for port in web]
        for _ in range(6):
            request(f"{base}/api/v1/namespaces/default/pods")
        after = [_counted(port, "LIST", "pods") for port in web]
        served = [b - a for a, b in zip(before, after, strict=True)]
        assert sum(served) == 6 and all(served), f"the 6 lists went {served} to the two processes"


def _pod_running(base: str) -> bool:
    pod = request(f"{base}/api/v1/namespaces/default/pods/via-nginx")
    return (pod.get("status") or {}).get("phase") == "Running"
